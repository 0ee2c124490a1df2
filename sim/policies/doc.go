// Package policies holds the simulator policies that decide with fitted
// models: coloc (the completion-time rule with the models' predictions),
// similarity (GPU type by model similarity, revised every round, with
// small-model packing, after Thanapol et al. 2023/2024) and oracle (the
// same rule with the measured rates). Each is a sim.Policy; Policies
// lists them, All adds the baselines, and Experiment (one trace, one
// cluster, several policies) and Sweep (many of each, the results page)
// are what `coloc simulate` and the reports call. Experiment.Load reads an
// experiment's files (a Gavel trace or a job list, a cluster spec, the
// measured rates) and WriteTable prints its results as `coloc simulate`
// does.
//
// # coloc and oracle: the completion-time rule
//
// The objective is the average job completion time. At every arrival and
// completion each waiting job, in arrival order, takes the option that
// adds least to the sum of the completion times of the jobs it touches
// (Rule): run now on free GPUs (any GPU type, any allowed degree), wait
// for GPUs of a type to free up (at the time predicted from the running
// jobs' remaining work, after what the jobs ahead of it wait for), or
// share the GPUs of a job running alone (both at their predicted
// normalized throughputs until the first ends; the partner's delay is
// counted). There is no threshold: a pair is used exactly when it is
// predicted to finish the two jobs sooner, in sum, than waiting.
// --min-normalized survives as an optional floor (an SLO guard), off by
// default. Then, at every scheduling point including round ticks, a
// running job moves alone to free GPUs when the predicted saving of it
// and of the partner it leaves exceeds the restart penalty (replan).
//
// Constants and how they were chosen:
//   - none in the rule itself: costs are seconds predicted from rates and
//     remaining work; ties go free, then share, then wait (1 and 2 us
//     apart, far below any cost compared);
//   - with unknown durations (--durations attained) a job is expected to
//     run as long again as it has run, the mean residual life of a
//     Pareto law of shape 2 (heavy-tailed job sizes, as in cluster
//     traces), and at least the mean solo time of the jobs completed so
//     far; before the first completion PriorS (one hour, the order of a
//     median job in the Philly and Gavel traces). Neither was fitted to
//     the shipped traces.
//   - the restart penalty is the simulator's (30 s), the same cost the
//     simulator charges.
//
// What the rule leaves out, by design of a first-order rule: the delay
// sharing or taking GPUs causes to jobs queued behind, and future
// arrivals. coloc decides with the measured solo rates (what profiling
// each job alone gives) and the node-level model's (IAPP) predicted
// normalized throughputs; the oracle with the measured co-located rates.
// Whether a pair may share at all (View.CanShare, a memory question) is
// given to both. Jobs of the same degree share the same GPUs only where
// the data measured the pair at that degree (Gavel's hold pairs on 1 to
// 8 GPUs): no unmeasured multi-GPU pair rate is assumed.
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
