// Package online holds the simulator policies that decide with fitted
// models: coloc (CLWP + NLWP placement with the models' predictions),
// similarity (GPU type by model similarity, revised every round, with
// small-model packing, after Thanapol et al. 2023/2024) and oracle (the
// coloc placement with the measured rates: an upper bound). Each is a
// sim.Policy; Policies lists them for `coloc simulate` and `coloc report`.
//
// Where it sits: model -> place -> sim/policies -> sim's
// replay. The simulator (package sim) knows nothing of models; a
// policy here gets the model directory through sim.Env.Models.
//
// # similarity
//
// Thanapol et al. (ACIIDS 2023; Applied Sciences 14(6) 2349, 2024) give
// only abstracts; what follows is our design. Each job is a new job: its
// K nearest references by the fitted similarity model, its own workload
// left out. GPU types are ranked by the references' mean solo throughput
// relative to their best type of the cluster, at the job's number of
// GPUs (model.Similarity.Suggest's score, restricted to the cluster); the
// suggested degree is not applied, since the simulator fixes each job's
// GPU count. Jobs start on free GPUs of their best-ranked type with room;
// only when none has room does a small-model job (under 20 million
// parameters: CIFAR-size CNNs, LSTM language models, recommenders and RL
// agents, not ImageNet-size CNNs or Transformers) share with a
// small-model job. Every round with no job waiting, a running job moves
// to free GPUs of a better-ranked type when R/r_now > R/r_new + penalty
// (R iterations left; r_now its measured solo rate where it runs, times
// the predicted normalized throughput when it shares; r_new scaled by
// the references' relative speed). Co-located rates are predicted from
// the references' measured pairs, never read from the ground truth.
package policies
