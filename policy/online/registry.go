package online

import "github.com/coloc-dev/coloc/policy/sim"

// Policies returns the model-driven policies, in the order `coloc
// simulate --help` lists them.
func Policies() []sim.PolicyInfo {
	return []sim.PolicyInfo{
		sim.Unavailable("coloc", "CLWP + NLWP placement with the fitted models"),
		sim.Unavailable("similarity", "GPU type and degree by model similarity, revised every round"),
		sim.Unavailable("oracle", "the coloc placement with measured instead of predicted rates"),
	}
}
