// Package peers holds the published schedulers coloc is measured against,
// as policies of the simulator (package sim), and the foresight reference.
// Each decides with what the peer itself would know: measured solo rates
// (and, for gavel-las-packed, measured pair rates), never job durations,
// except srtf-known, which is labelled a reference for that reason.
//
// # Gavel (Narayanan et al., OSDI 2020)
//
// Gavel separates a policy, an allocation X (for each job, or pair of
// jobs, the fraction of time it should spend on each GPU type), from a
// round-based mechanism that realises X. Mechanism follows Gavel's
// simulator (stanford-futuredata/gavel, scheduler.py) line by line where
// decisions depend on it:
//
//   - it acts at round boundaries only (sim.Round events): arrivals and
//     completions in between wait for the next boundary;
//   - the allocation is recomputed when jobs came or went, but at most
//     every Reset seconds (GavelReset, 1920 s, Gavel's
//     minimum_time_between_allocation_resets), and at once when the
//     cluster idles with nothing left to arrive (sim.Idle);
//   - at a recomputation each entry's deficit gains the time its
//     allocation promised since the last one minus the time it had, and
//     every entry's count restarts at 180 s (half of Gavel's round);
//   - an entry's priority on a type is its allocation there over the
//     fraction of the type's time it had since the last recomputation;
//     each type, fastest first (Gavel's fixed order v100, p100, k80, found
//     here from the rates: speedOrder), runs its entries in decreasing
//     priority, then deficit, then allocation, then the order they were
//     added, each taking its scale of GPUs while they last; an entry with
//     allocation 0 may run on GPUs left over, except under fifo;
//   - a round's time counted for an entry is its micro-task's: the whole
//     iterations its rate gives in a round (or what is left) at that rate;
//   - an entry that ran last round on the same type keeps its GPUs when
//     no larger entry took them; the others take free GPUs, on one node
//     where one has room. In this simulator a job whose GPUs change pays
//     the restart penalty and a spread job runs at its spread rate; with
//     Gavel's settings (sim/experiment.SettingsGavel) neither costs
//     anything, as in Gavel's simulator.
//
// The allocations (allocate.go): gavel-las is max_min_fairness_perf, the
// allocation maximizing the least normalized throughput (a job's rate
// under X times its scale over its rate at an equal share of every type),
// Gavel's heterogeneity-aware least-attained-service policy; gavel-las-
// packed is max_min_fairness_packed, the same with pairs of jobs of one
// scale sharing GPUs at their measured pair rates; fifo under Gavel's
// settings is Gavel's FIFOPolicy, defect included (fifoAlloc says which).
// Both max-min programs are solved over classes of identical jobs (same
// workload and scale): the program has an optimum that treats identical
// jobs alike, and Gavel's default solver, an interior-point method,
// returns one; solving per job, as Gavel does, needs a variable per job
// (per pair of jobs with packing) and fails on traces that mix scales.
// Priority weights are all 1 (the traces have none).
//
// Where the two simulators still differ, by design or by choice:
// Gavel re-places jobs on workers by its own strided order, which
// changes no rate in its simulator; a job whose pair partner completes
// runs on at its solo rate here (at the pair rate until the round ends
// in Gavel); pairs with neither allocation nor time owed are not kept
// (Mechanism says why it changes no decision). With Gavel's settings the
// agreement is checked case by case against Gavel's own outputs
// (sim/experiment/testdata/gavel, TestAgreesWithGavelsSimulator).
//
// # Tiresias (Gu et al., NSDI 2019)
//
// Discretized two-dimensional LAS, as its simulator's dlas-gpu schedule:
// attained service is GPUs held times time held; jobs below
// TiresiasThreshold (one GPU-hour) are in the first queue, the others in
// the second; the first queue runs first, each in arrival order;
// preemptive; a job that does not fit is skipped. Tiresias knows no GPU
// types: here a job takes the fastest type with room by its measured solo
// rate (a stronger peer than one that picks blindly), and a running job
// keeps its type while it has room there. Its starvation guard is off,
// as in its simulator's default.
//
// # srtf-known
//
// Preemptive shortest remaining time first with the true remaining work
// (the trace's steps): what perfect foresight buys a greedy scheduler, a
// reference, never a peer.
package peers
