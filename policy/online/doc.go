// Package online holds the simulator policies that decide with fitted
// models: coloc (CLWP + NLWP placement with the models' predictions),
// similarity (GPU type by model similarity, revised every round, with
// small-model packing, after Thanapol et al. 2023/2024) and oracle (the
// coloc placement with the measured rates: an upper bound). Each is a
// sim.Policy; Policies lists them for `coloc simulate` and `coloc report`.
//
// Where it sits: model -> policy/place -> policy/online -> policy/sim's
// replay. The simulator (package policy/sim) knows nothing of models; a
// policy here gets the model directory through sim.Env.Models.
package online
