package policies

import "github.com/coloc-dev/coloc/sim"

// Policies returns the model-driven policies, in the order `coloc
// simulate --help` lists them.
func Policies() []sim.PolicyInfo {
	return []sim.PolicyInfo{
		{Name: "coloc", Doc: "completion-time rule with the fitted models (--models): run now, wait or share, whichever completes jobs sooner (IAPP)", New: newColoc},
		{Name: "similarity", Doc: "GPU type by model similarity (--models), revised every round, small-model packing",
			New: func(e sim.Env) (sim.Policy, error) { return NewSimilarity(e, DefaultSimilarityOptions) }},
		{Name: "oracle", Doc: "the coloc rule with measured instead of predicted rates (perfect predictions)", New: newOracle},
	}
}
