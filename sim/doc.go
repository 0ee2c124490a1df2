// Package sim is the cluster simulator of coloc: it replays a job trace on
// a simulated GPU cluster under a placement policy and measures job
// completion time (JCT), makespan and GPU utilisation. It is the last
// stage of the pipeline before the reports (docs/architecture.md): it evaluates
// the policies of package policy against the usual baselines, on real
// measured rates.
//
// # Model
//
// The cluster comes from a spec (package place/cluster): nodes of GPUs of
// one type each. A job of a trace (ReadTrace: Gavel's msr and
// physical_cluster layouts) needs Scale GPUs of one type and runs Steps
// iterations. It progresses at the rate the ground truth (Rates, built
// from measurements by NewMeasured) gives for its placement:
//
//   - alone: its solo rate at Scale GPUs on that GPU type. The Gavel data
//     give a job's aggregate iterations/s at each scale factor, so no
//     per-GPU scaling is applied. Data in samples/s (coloc's profiler
//     counts every worker's samples) are divided by the workload's
//     per-GPU batch size, which gives the same aggregate iterations/s.
//   - spread over more than one node: the rate of the spread device
//     type (datasets.SpreadType) (Gavel measured those); a job with no such rate cannot
//     be spread.
//   - sharing its GPUs with one other job: the pair's measured co-located
//     rate. Two jobs share only when they hold exactly the same GPUs (so
//     they have the same scale factor, as in the data) and both orders of
//     the pair were measured with status ok. A suspect, infeasible or
//     missing pair never shares: the simulator refuses such a plan with a
//     *placementError, which stops the run; it is a policy bug, since a
//     policy can ask View.CanShare first. At most two jobs share a GPU.
//     A ground truth built with Measured.AssumedPairs also lets two jobs
//     of the same degree k > 1 share where the pair was measured on one
//     GPU only, at rates assumed from it (assumed.go), counted in
//     Result.Assumed.
//   - when its partner finishes, it continues at its solo rate.
//
// A job type without a rate on any GPU type of the cluster at its scale
// (unknown to the data, or a scale the data do not hold) is not simulated:
// it is reported in Result.Jobs with the reason and counted in
// Result.Unrunnable, and left out of every metric.
//
// # Degrees
//
// Options.Degree says who picks a job's number of GPUs. In DegreeTrace
// mode (the default) it is the trace's scale factor. In DegreePolicy mode
// a job may run on any number of GPUs d up to its request (or
// Options.MaxDegree) at which some GPU type of the cluster has a measured
// rate (Job.Degrees); a job asking more than any measured degree gets the
// largest measured one, so none is unrunnable for its size alone. Its
// work is fixed in iterations: Gavel's rates at scale d are the job's
// aggregate iterations/s (each of per-worker batch size), so a job of S
// steps takes S / rate(d) on d GPUs, whatever d. The baselines' degree
// rule is "the request, capped at the largest measured degree"
// (Job.Scale); the model-driven policies choose among Job.Degrees.
//
// # Events and policies
//
// Events are job arrivals, job completions and, every Options.Round
// seconds while jobs are in the system, a round tick. After each batch of
// events at one instant the policy gets a View (jobs, progress, occupancy,
// the placement rules) and returns a Plan of starts, moves and stops. A
// job started again after having run (moved, or resumed after a stop)
// makes no progress for Options.RestartPenalty seconds while it holds its
// GPUs; its partner, if any, runs at the co-located rate meanwhile (our
// choice: the restoring job still occupies memory and the GPU).
//
// A policy decides with an estimator, a Rates it was built with, never
// with the ground truth: the baselines (fifo, backfill, random-pack,
// greedy-pack)
// get the measured solo rates only (SoloOnly), what profiling each job
// alone gives a scheduler. Whether a job can run on a placement and
// whether a pair can share at all are given to every policy
// (View.CanRun, View.CanShare): like memory footprints, they are known
// from profiling; how fast a pair runs is not. Model-driven policies and
// the oracle are further implementations of Policy (see Env and
// PolicyInfo); the simulator does not change for them.
//
// # Metrics
//
// JCT is completion minus arrival; the p95 is the nearest-rank percentile.
// The makespan runs from the first arrival of a runnable job to the last
// completion. A GPU is busy while it holds at least one job, whether it
// shares or restores; utilisation is busy GPU time over available GPU time
// (GPUs x makespan), overall and per GPU type. Co-location therefore
// lowers this utilisation for the same work: it counts GPUs held, not
// how hard they compute. Effective utilisation counts work instead: each
// running job adds its GPUs times its normalized throughput (its true
// rate over its true solo rate on the same placement; 0 while it
// restores), over GPUs x makespan; a GPU shared by two jobs at 0.7 of
// their solo rates counts 1.4. Without sharing or restarts both are
// equal.
//
// The simulator is deterministic: it iterates in job, GPU and type order
// and draws no random numbers; a randomised policy draws from a generator
// seeded with Env.Seed.
//
// # Trying waiting jobs
//
// A policy that tries the waiting jobs in arrival order and lets a job that
// does not fit leave the rest to the others (backfill, greedy-pack,
// similarity) need not try a job whose workload and size already found
// no room in its plan (Plan.Miss, Plan.AllMissed). The
// simulator keeps the waiting jobs by that class, so Plan.Untried gives
// the next job to try without walking past the jobs of classes that found
// no room. And while a plan only takes free GPUs and pairs jobs, free
// GPUs only go, and the only jobs that come to run alone are those it
// starts on free GPUs: a class that found no room needs to be tried only
// against those (Plan.PlacedOnFreeSince, PartnersAmong); what the
// committed plan learned so holds for the next plans until a job
// finishes, since arrivals change no placement. Both give the
// same decisions as trying every job in turn; tests check them against
// the walk and the scan after every scheduling call of random runs.
package sim
