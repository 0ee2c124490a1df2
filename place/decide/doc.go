// Package decide is coloc's decision core: given a cluster's GPUs and the
// jobs in it (waiting, or running where they run), it decides where every
// job runs next: which GPU type, how many GPUs, alone or next to which
// partner, and which running jobs pause so that others run. The simulator
// asks it at every scheduling point; it keeps what it learns between
// calls, so one Core serves one cluster's stream of jobs.
//
// # What it knows
//
// Rates: a job's solo rate on each GPU type and degree (measured), and the
// normalized throughput of two jobs sharing GPUs (predicted by the fitted
// models, or measured for the oracle). Sizes, by Options.Durations:
//
//   - attained (the default): nothing of a job's size but its attained
//     service. The sizes of the jobs completed so far are learned per
//     workload (history: an empirical-Bayes scale per workload and the
//     Kaplan-Meier distribution of sizes over scales, Sizes), and each
//     job's priority is its Gittins index at its attained service: the
//     best ratio, over how much more service to give it, of its chance to
//     complete within it to the expected service spent. Against
//     heavy-tailed sizes the index falls as a job ages, so a job that has
//     run long yields to new ones (as least-attained-service schedulers
//     do), while a job near its workload's typical size is let finish.
//     When the largest size seen is a completion nothing survives past
//     it, so a job whose service has passed every size seen has index 0
//     (and nothing left to do) until the next completion revises the
//     estimate with it censored at its service: it comes last, and its
//     options, all worth 0, are taken in the greedy's order of ties (the
//     first GPU type by name with room). Giving such a job the Pareto
//     tail's index at its age instead changed coloc's average JCT by
//     0.2% on the shipped traces' cuts
//     (docs/notes/2026-12-05-settled-decisions.md), so the estimate stays
//     as Kaplan-Meier has it.
//   - estimate: a user's estimate of each job's size (a requested time
//     limit). The core learns the distribution of the ratio of true size
//     to estimate from the jobs completed so far (Sizes, the running jobs
//     censored at their service over their estimate), counted, as sizes
//     over scales are, in units of resUnit so that the grid resolves
//     ratios around 1. A job's index is the Gittins index of that
//     distribution at its service over its estimate, divided by its
//     estimate: shortest estimate first while the estimates hold, and a
//     job that has outrun its estimate yields as its ratio's tail says.
//   - known: the true sizes, a reference only (no cluster knows them):
//     shortest remaining first.
//
// # How it decides
//
// Value per GPU: a job's index times its progress per GPU (its rate on an
// option over its reference rate, the fastest at its largest allowed
// degree), so a GPU goes to the job that completes most expected work
// per unit of the job's size on it. Two jobs sharing GPUs are worth the
// sum of their values at their predicted normalized throughputs. The
// options (every job alone on every type and degree it may run at) are
// taken greedily by value while GPUs last; then jobs left waiting while
// GPUs of another type are free may have running jobs moved to make room
// (makeRoom); then a job still waiting may join a job running alone when
// the two together are worth more than the host alone (join); then jobs
// running alone may take a faster option on GPUs no one took, a larger
// degree of their type or any option of another type, when that saves
// more than the restart it costs (growDegrees). Value per GPU is the
// currency while GPUs are scarce; on GPUs nobody wants a job's own speed
// is what its completion follows. Before jobs grew across types a job
// alone on one P100 beside idle V100s stayed there (its value per GPU,
// kept, beat two V100s'), and coloc's average JCT over the strongest
// peer in policy mode on the shipped traces' cuts was 0.733 against
// 0.710 after (docs/notes/2026-12-07-guard-and-growth.md).
//
// Sharing is for when GPUs are scarce. Per GPU two jobs at 0.9 of their
// speed do more than one, but each ends later than alone, so on a cluster
// with GPUs to spare no job shares; only while the jobs need more GPUs
// than the cluster has do pairs (among the 64 jobs of highest index)
// compete with single jobs in the greedy. Weighing pairs everywhere put
// two jobs on one GPU beside idle ones (on the small_test trace with 108
// GPUs, average JCT 121 s against 57 s).
//
// Preemption is a decision like any other: a running job keeps its
// placement only while its value, times its keep factor, beats the
// others'. The keep factor is 1 + RestartPenalty/min(t, Round), t the
// time the job is expected to need where it is (its expected remaining
// size at the current rate: the truth with durations known, the mean of
// what its distribution leaves beyond its service otherwise): a change
// costs a restart, the next chance to revise it comes a round later, and
// what a change saves is bounded by the time the job has left, so a job
// near its end is not moved to save less than the restart costs it. With
// one factor for all (1 + RestartPenalty/Round) the 20 jobs of
// small_test, all shorter than three minutes, paid 16 restarts on 48
// GPUs and ended 15% later on average than Tiresias's, which never moved
// them. The mean remaining size, not the time the job is expected to run
// within the round: a job its distribution says may end soon, but need
// not, would be found so again at each revision and never moved off a
// slow GPU, while the mean counts all the time a move would save; the
// time within the round made coloc-estimate's average JCT 0.7% and 0.9%
// worse on the shipped and the held-out cases
// (docs/notes/2026-12-06-keep-by-remaining-size.md). Within
// its first round of running a job is ranked at the service it had when
// it started (it was started for a round; its own ageing does not undo
// that early), which keeps equal-priority jobs from trading GPUs at every
// event and paying a restart each time.
//
// Most decisions on a cluster with GPUs to spare need no greedy: when no
// pairs are weighed, no job shares, every running job's current option,
// kept, beats its others (or those that beat it are on types filled by
// jobs ahead of it) and every waiting job's best option is clear, and all
// those options fit together, the greedy would give each job exactly
// that option whatever the indices' order. settled checks this in one
// pass over the candidates and places the waiting jobs as placeAll would;
// otherwise the greedy runs. Both give the same decision (a test replays
// streams of jobs through both); the check only saves the time.
//
// The greedy itself draws its candidates in order only as far as it
// needs them: each job's options alone from the jobs sorted by their
// first option and a heap of the jobs passed over (a placed job leaves
// with all its options), merged with the pairs' heap, which leaves out
// the pairs no longer live when it turns to sorting; and it never builds
// a pair worth less than one of its jobs alone on the same option, since
// that option comes first and then either the job is placed or the
// option's GPUs are gone. Jobs of one workload and degrees share their
// options alone, and the options two such classes may share are worked
// out once. None of this changes a decision (tests check the merge and
// the pairs' order against sorts of every option, the classes' shared
// options against each pair's, and replay streams against a greedy that
// keeps every pair); it saves its time on a full cluster.
//
// Makespan guard, with sizes known only: the job whose remaining time
// alone is longest is critical when that time is at least the whole
// backlog's remaining GPU time over the cluster's GPUs; the makespan then
// waits for it, so it runs first, on its fastest option, whatever its
// index. One job only. With sizes learned or estimated the guard stays
// off: what it compares with the bound is then an expectation (the mean of
// a heavy tail past a job's service, or a user's estimate off by a
// log-normal factor), and acting on it put jobs that were not long ahead
// of short ones without shortening the makespan. On the shipped traces'
// cuts, off against on, the users'-estimates mode ends jobs 2.5% sooner on
// average in trace mode, and the makespans' geometric means move by 1% or
// less (docs/notes/2026-12-07-guard-and-growth.md). With sizes known it
// does what it is for: it shortens the makespan (by 3% in trace mode and
// 4% in policy mode, geometric means over the same cuts) for some average
// JCT (3.5% and 0.6%); the reference it serves is the core with foresight,
// guard included. Even then it assumes the other jobs can use the GPUs the
// critical one leaves: where they cannot (jobs of 8 GPUs that only one
// type's 8 GPUs can hold) it delays them for no gain in makespan.
//
// # Choices where the sources are silent
//
// The distribution's grid (eighth octaves from one minute), the Pareto tail
// of shape 2 beyond the largest size seen, the window of the 2,048 latest
// arrivals the sizes are learned from, the empirical-Bayes shrinkage,
// sizes per workload in time rather than GPU-time, the 64-job pool for
// pairs and the candidates (the running, the critical, and the 2N+16
// waiting jobs of highest index on N GPUs) are ours; each is explained
// where it is defined. The keep factor and the first-round ranking follow
// from the restart penalty and the round, not from fitted constants.
//
// # One arriving job
//
// Score answers the online question of a scheduler that places one job at
// a time (`coloc serve`'s /v1/score): the nodes ranked for an arriving job
// given their tenants, by the value per GPU above for a job whose priority
// is the same on every node (alone: its progress per GPU relative to its
// fastest option; beside a tenant: the progress the pair adds over the
// tenant alone).
package decide
