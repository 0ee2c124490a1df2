package policies

import (
	"fmt"

	"github.com/coloc-dev/coloc/sim"
)

// Policies returns the model-driven policies, in the order `coloc
// simulate --help` lists them, built with c: their factories close over
// it and refuse to build when c does not check.
func Policies(c Config) []sim.PolicyInfo {
	return []sim.PolicyInfo{
		c.info("coloc", "the decision core with the fitted models (--models): Gittins-index priority learned from completed jobs (--durations attained), preemption, GPU type, degree and sharing by predicted throughput (IAPP)", newColoc),
		c.info("similarity", "GPU type by model similarity (--models), revised every round, small-model packing", newSimilarity),
		c.info("oracle", "coloc with measured instead of predicted pair rates (perfect predictions)", newOracle),
		c.info("coloc-no-sharing", "coloc with every job on GPUs of its own: what the interference predictions are worth", newColocNoSharing),
		c.info("coloc-estimate", "coloc deciding on users' estimates of job sizes (--estimate-median, --estimate-sigma), whatever --durations says", newColocEstimate),
		c.info("coloc-known", "reference, not a peer: coloc deciding on the true job sizes (foresight), whatever --durations says", newColocKnown),
		c.info("coloc-rule", "the former coloc: greedy completion-time rule that never preempts (--order, --durations known or attained)", newColocRule),
		c.info("oracle-rule", "coloc-rule with measured instead of predicted pair rates", newOracleRule),
	}
}

// builder builds a model-driven policy from the simulator's environment
// and the policies' configuration.
type builder func(sim.Env, Config) (sim.Policy, error)

// info names the policy build builds with c.
func (c Config) info(name, doc string, build builder) sim.PolicyInfo {
	return sim.PolicyInfo{Name: name, Doc: doc, New: func(e sim.Env) (sim.Policy, error) {
		if err := c.Check(); err != nil {
			return nil, fmt.Errorf("policy %s: %w", name, err)
		}
		return build(e, c)
	}}
}
