package online

import "github.com/coloc-dev/coloc/policy/sim"

// Policies returns the model-driven policies, in the order `coloc
// simulate --help` lists them.
func Policies() []sim.PolicyInfo {
	return []sim.PolicyInfo{
		{Name: "coloc", Doc: "CLWP + NLWP placement with the fitted models (--models): IASP picks nodes, IAPP GPUs", New: newColoc},
		sim.Unavailable("similarity", "GPU type and degree by model similarity, revised every round"),
		{Name: "oracle", Doc: "the coloc placement with measured instead of predicted rates (perfect predictions)", New: newOracle},
	}
}
