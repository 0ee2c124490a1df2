package policies

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/sim"
)

// ColocRule returns coloc: the completion-time rule (Rule) with the
// measured solo rates and the node-level model's (IAPP) predicted
// normalized throughputs of the pairs the simulator allows (View.CanShare).
// A multi-GPU pair whose rates the simulator assumes (View.Assumed) is
// predicted as it is rated: by the prediction on one GPU of the type.
func ColocRule(solo sim.Rates, m *place.Models, d Durations, minNormalized float64) *Rule {
	return NewRule("coloc-rule", solo, predictedPair(m), d, minNormalized)
}

// predictedPair returns the node-level model's (IAPP) predicted
// normalized throughput of the pairs the simulator allows
// (View.CanShare); a multi-GPU pair whose rates the simulator assumes
// (View.Assumed) is predicted as it is rated: on one GPU of the type.
func predictedPair(m *place.Models) func(v *sim.View, w, q string, sh sim.Shape) (float64, bool) {
	return func(v *sim.View, w, q string, sh sim.Shape) (float64, bool) {
		if !v.CanShare(w, q, sh) {
			return 0, false
		}
		if sh.GPUs > 1 && v.Assumed(w, q, sh) {
			return m.Predict(place.NodeLevel, w, q, sh.GPUType, 1)
		}
		return m.Predict(place.NodeLevel, w, q, sh.GPUType, sh.GPUs)
	}
}

// OracleRule returns the oracle: the same rule with the simulator's
// measured solo and co-located rates.
func OracleRule(truth sim.Rates, d Durations, minNormalized float64) *Rule {
	return PerturbedOracleRule(truth, d, minNormalized, 0, 0)
}

// MaxOracleNoise is the largest perturbation PerturbedOracleRule takes.
const MaxOracleNoise = 0.5

// PerturbedOracleRule is the oracle deciding on measured normalized
// throughputs each multiplied by 1 + noise·u, u uniform in [-1, 1] and
// drawn once per (workload, partner, GPU type, degree) from seed. The
// simulator still runs jobs at the measured rates; only the decisions see
// the perturbation. It measures how much a comparison with the oracle is
// luck: the greedy rule's outcome on a loaded cluster moves with small
// changes of the rates it decides on (docs/simulation.md, "Held out").
// noise 0 is OracleRule.
func PerturbedOracleRule(truth sim.Rates, d Durations, minNormalized, noise float64, seed uint64) *Rule {
	return NewRule("oracle-rule", sim.SoloOnly(truth), measuredPair(truth, noise, seed), d, minNormalized)
}

// measuredPair returns the measured normalized throughput of a pair (its
// co-located rate over its solo rate), each multiplied by 1 + noise·u as
// PerturbedOracleRule says.
func measuredPair(truth sim.Rates, noise float64, seed uint64) func(v *sim.View, w, q string, sh sim.Shape) (float64, bool) {
	return func(_ *sim.View, w, q string, sh sim.Shape) (float64, bool) {
		co, ok := truth.Colocated(w, q, sh)
		s, ok2 := truth.Solo(w, sh)
		if !ok || !ok2 || !(co > 0) || !(s > 0) {
			return 0, false
		}
		y := co / s
		if noise > 0 {
			y *= 1 + noise*pairDraw(seed, w, q, sh)
		}
		return y, true
	}
}

// pairDraw is a number uniform in [-1, 1) that depends only on the seed
// and the pair (workloads in order, GPU type, degree), so every question
// about one pair gets the same answer.
func pairDraw(seed uint64, w, q string, sh sim.Shape) float64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d", w, q, sh.GPUType, sh.GPUs)
	return 2*rand.New(rand.NewPCG(seed, h.Sum64())).Float64() - 1
}

// loadModels loads the fitted models of c for policy name, deciding on
// the expectation or the lower bound as c.Decide says.
func loadModels(name string, c Config) (*place.Models, error) {
	if c.Models == "" {
		return nil, fmt.Errorf("policy %s needs --models, a directory written by 'coloc fit' (with iasp and iapp)", name)
	}
	m, err := place.LoadModels(c.Models, place.DefaultModelNames)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", name, err)
	}
	if err := decideOn(m, c.Decide); err != nil {
		return nil, fmt.Errorf("policy %s: %w", name, err)
	}
	return m, nil
}

// newColocRule builds the former coloc rule.
func newColocRule(e sim.Env, c Config) (sim.Policy, error) {
	m, err := loadModels("coloc-rule", c)
	if err != nil {
		return nil, err
	}
	d, err := ParseDurations(c.Durations)
	if err != nil {
		return nil, err
	}
	r := ColocRule(e.Solo, m, d, c.MinNormalized)
	return r, r.SetOrder(c.Order)
}

func newOracleRule(e sim.Env, c Config) (sim.Policy, error) {
	if e.Truth == nil {
		return nil, errors.New("policy oracle-rule needs the simulator's ground truth")
	}
	d, err := ParseDurations(c.Durations)
	if err != nil {
		return nil, err
	}
	r := PerturbedOracleRule(e.Truth, d, c.MinNormalized, c.OracleNoise, e.Seed)
	return r, r.SetOrder(c.Order)
}
