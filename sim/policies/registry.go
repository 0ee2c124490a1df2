package policies

import "github.com/coloc-dev/coloc/sim"

// Policies returns the model-driven policies, in the order `coloc
// simulate --help` lists them.
func Policies() []sim.PolicyInfo {
	return []sim.PolicyInfo{
		{Name: "coloc", Doc: "the decision core with the fitted models (--models): Gittins-index priority learned from completed jobs (--durations attained), preemption, GPU type, degree and sharing by predicted throughput (IAPP)", New: newColoc},
		{Name: "similarity", Doc: "GPU type by model similarity (--models), revised every round, small-model packing",
			New: func(e sim.Env) (sim.Policy, error) { return NewSimilarity(e, DefaultSimilarityOptions) }},
		{Name: "oracle", Doc: "coloc with measured instead of predicted pair rates (perfect predictions)", New: newOracle},
		{Name: "coloc-no-sharing", Doc: "coloc with every job on GPUs of its own: what the interference predictions are worth", New: newColocNoSharing},
		{Name: "coloc-estimate", Doc: "coloc deciding on users' estimates of job sizes (--estimate-median, --estimate-sigma), whatever --durations says", New: newColocEstimate},
		{Name: "coloc-known", Doc: "reference, not a peer: coloc deciding on the true job sizes (foresight), whatever --durations says", New: newColocKnown},
		{Name: "coloc-rule", Doc: "the former coloc: greedy completion-time rule that never preempts (--order, --durations known or attained)", New: newColocRule},
		{Name: "oracle-rule", Doc: "coloc-rule with measured instead of predicted pair rates", New: newOracleRule},
	}
}
