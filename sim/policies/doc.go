// Package policies holds the simulator policies that decide with fitted
// models: coloc (the decision core of package place/decide with the
// models' predictions; core.go), its variants coloc-no-sharing,
// coloc-estimate and coloc-known (foresight, a reference), oracle (the
// core with the measured pair rates), similarity (GPU type by model
// similarity, revised every round, with small-model packing, after
// Thanapol et al. 2023/2024), and coloc-rule and oracle-rule, the former
// coloc: the completion-time rule below, which `coloc policy export`
// still records. Each is a sim.Policy; Policies lists them, built with a
// Config, their knobs, which Config.Check validates. The export adapter
// (export*.go) turns the core's and the rule's first decisions into a
// policy file. Replaying traces under them (one experiment, a sweep and
// its page) is package sim/experiment's.
//
// # Their configuration
//
// Our choice: the knobs of these policies (--models, --min-normalized,
// --durations, --order, --decide, --estimate-median, --estimate-sigma,
// --oracle-noise) are a type of this package, Config, not fields of
// sim.Env, and reach the factories by closure: Policies(c) returns
// sim.PolicyInfo values whose factories close over c. sim.Env keeps what
// every policy may read (the seed, the solo rates, the ground truth, the
// simulator's settings), so the simulator names nothing of model
// directories, durations modes, orders, decision rules or the oracle's
// noise, and its baselines and sim.Factory are as they were. An opaque
// field of sim.Env would have done the same with a type assertion in
// every factory and a field sim could not document; a second factory
// type would have widened sim's API. A caller holds a Config beside the
// Env (experiment.Experiment.Config), checks it once before any file is
// read, and builds the list with it (experiment.All(c)); a list for names
// and help alone takes the zero Config. Check validates the values of
// every knob in one place; each factory checks its Config again, so a
// PolicyInfo from Policies refuses a bad one on its own, and checks what
// depends on the policy (an order for the decision core, an estimate for
// the rule) as it builds.
//
// # coloc and oracle: the decision core
//
// corePolicy hands the core the cluster and its jobs at every scheduling
// point, tells it of the jobs that completed since (their sizes are what
// it learns job sizes from), and turns its answer into a plan: stop the
// running jobs it moves or pauses, place the others. What a job's size is
// to the core follows --durations (Config.Durations): nothing but its
// attained service (attained, the default), a user's estimate
// (sim.Estimate: the truth times a log-normal factor of median 2 and
// log-space spread 1, drawn per job from the seed; the median is the
// common reading of batch clusters' requested time limits, the spread our
// choice, a wide one), or the truth (known, a reference). --min-normalized
// is a floor below which no pair shares; --order is the rule's and is
// refused for the core, which orders by its index.
//
// # coloc-rule and oracle-rule: the completion-time rule
//
// The objective is the average job completion time. At every arrival and
// completion each waiting job, in arrival order, takes the option that
// adds least to the sum of the completion times of the jobs it touches
// (Rule): run now on free GPUs (any GPU type, any allowed degree; its
// cost at most that of running until the GPUs it could wait for free up,
// paying the restart penalty and finishing there, since the rule moves a
// running job when that pays), wait
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
// The makespan guard (critical.go). Shortest first serves the longest job
// last; a long job on many GPUs then waits while shorter jobs keep taking
// GPUs as they free, and ends long after everything else. The rule
// predicts every job's completion, so after planning in its order it
// looks at the job predicted to end last: when that job waits, it plans
// again with that job first (the GPUs it waits for held for it: a job
// behind may use them only if it leaves them by the predicted start) and
// keeps the second plan only when the predicted makespan ends sooner and
// the predicted makespan plus the sum of the predicted completion times
// (the costs of the options taken) falls: the makespan is counted as one
// more completion time, so a plan that shortens it by delaying many jobs
// more than that is not taken. No
// job shares with a running one when that pushes the pair's later end
// past the makespan's lower bound (the latest predicted free time of a
// running job's GPUs, or now plus all predicted GPU time over the GPUs).
// On the shipped traces (20 traces x 3 clusters, degree trace) this took
// the worst makespan against backfill from 1.117 to 1.032; it has no
// constant (the weight of the makespan, one completion, is the
// objective's own unit). Without the second condition the worst makespan
// was 1.024 but the oracle lost to coloc on average (0.993).
//
// The oracle is the same greedy rule, not an optimum, and on a loaded
// cluster its outcome moves with small changes of the rates it decides
// on: one decision taken differently changes who holds which GPUs for
// hours after. PerturbedOracleRule (`--oracle-noise`) lets it decide on
// each pair's measured normalized throughput times 1 + a·u, u uniform in
// [-1, 1] and drawn per pair from the seed, while the jobs still run at
// the measured rates; the spread of its results over seeds is how far a
// comparison of coloc with the oracle is luck (docs/results/heldout.md).
//
// The export (RuleExport) takes the decisions of `coloc policy export`
// with this rule, from the same code: the rule's first scheduling point
// on the empty cluster with every job of the list waiting at time 0
// (Rule.Schedule inside sim.Run, stopped after its first plan), each
// decision with the option, cost and predictions behind it.
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
//     simulator charges;
//   - the makespan guard has none: it compares two predicted makespans.
//     Its wait predictions for jobs behind a held job are the rule's own
//     (the type's GPUs freed in turns as long as the current one), so
//     they are optimistic when the held job is long.
//
// What the rule remembers, so that a scheduling point costs little per
// waiting job (classes.go, queue.go): with known durations the queue is
// kept in order between calls (a waiting job's remaining work does not
// change while it waits: started jobs leave, new ones are merged in);
// the GPU types, shapes and solo rates of each workload at each degree;
// the jobs running alone and, per workload and degree, the ones it may
// share with (the pair's rates remembered by workloads and shape),
// revised as each placement changes the plan rather than found anew;
// the sorted free times of each type's GPUs, revised likewise, and
// sorted at each call from the order the last call left them (the order
// changes little); what the first plan of a call found before it placed
// anything, which the makespan guard's second plan starts from; and,
// from one call to the next, the lone jobs and partner lists themselves,
// revised by the jobs that started, finished or moved in between
// (carry.go), so that a call costs what changed since the last one.
// Per call, the plans that have changed nothing share their searches for
// free GPUs and running-alone jobs (one stamp for the simulator's
// occupancy); per job, a running job's shape and solo rate are kept
// while it keeps its GPUs (by its start count), and a waiting job's
// least GPU time while its work done stays the same. A rule serves one
// simulation: these are keyed by job ID. None of this changes a
// decision: a test replays generated traces with all of it and with
// every question asked anew (Rule.plain) and wants every job's start,
// finish and GPUs equal.
//
// What the rule leaves out, by design of a first-order rule: the delay
// sharing or taking GPUs causes to jobs queued behind, and future
// arrivals. coloc decides with the measured solo rates (what profiling
// each job alone gives) and the node-level model's (IAPP) predicted
// normalized throughputs; the oracle with the measured co-located rates.
// Whether a pair may share at all (View.CanShare, a memory question) is
// given to both. Jobs of the same degree share the same GPUs where the
// data measured the pair at that degree. Gavel's pair rows at 2, 4 and 8
// GPUs are all [0, 0] (not measured), so there multi-GPU jobs share only
// under Inputs.AssumeMultiGPUPairs, at rates assumed from the one-GPU
// pair (sim.Measured.AssumedPairs); coloc then predicts such a pair (one
// View.Assumed reports) by IAPP's prediction on one GPU, as the
// simulator rates it. It is off by default: nothing measured checks it.
//
// Where it sits: model -> place -> sim/policies -> sim's
// replay. The simulator (package sim) knows nothing of models; a
// policy here gets the model directory through Config.Models.
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
