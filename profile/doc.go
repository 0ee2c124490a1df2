// Package profile is the first stage of coloc: it reads a workload suite,
// plans a profiling campaign (solo, pair and scale runs), runs the workloads
// and writes what it measured as the dataset tables of package datasets
// (runs, samples, solo, pairs, scaling), which every later stage reads.
// `coloc profile plan` and `coloc profile run` are its commands; counters
// come from a Monitor (the samplers of package profile/sampler) passed in.
//
// The commands only parse flags and print: OpenMachine detects the
// machine a campaign runs on (its GPUs through the opener the binary
// passes, the device kind, a Monitor of every sampler found) and
// SelectGPUs takes the GPUs CUDA_VISIBLE_DEVICES lets through;
// WritePlanText, WritePlanJSON and ReadPlanProgress are `coloc profile
// plan`; Summary.WriteFailed lists the failed runs of `coloc profile
// run`. `coloc profile slurm`, `profile k8s` and `profile merge` are
// package profile/fleet, which shards a campaign over a cluster's nodes:
// each shard is a campaign of this package, and MergeShards joins them.
// `coloc profile next` is package profile/next: choosing pairs reads
// features and models, which this package never does.
//
// # Suite and plan
//
// A suite file (YAML, version 1; see LoadSuite) lists workloads: a command,
// a per-GPU batch size, a precision, and whether the command speaks the
// coloc protocol (JSON lines on stdout: meta, step, end). The plan holds,
// for each repeat, a solo run of every workload, a scale run at every
// degree above 1 that fits the GPUs present (degree 1 is the solo run), and
// a run of every selected unordered pair, a workload with itself included
// (n(n+1)/2 pairs). Repeats are interleaved (all runs of repeat 0, then of
// repeat 1, ...) so slow drift of the machine spreads over repeats instead
// of biasing one workload, and solo runs come first in a repeat because a
// pair's memory check and normalization need them. Run IDs come from the
// content ("solo.<w>.r<k>", "pair.<a>+<b>.r<k>", "scale.<w>.d<d>.r<k>"),
// so a rerun finds the runs it did. Plan.Shard deals runs, longest
// estimate first, to the shard with the least estimated time (LPT).
//
// # Running a workload
//
// Each process runs in a process group of its own with CUDA_VISIBLE_DEVICES
// set to the run's GPUs (empty on CPU), CUDA_DEVICE_ORDER=PCI_BUS_ID (so
// CUDA numbers GPUs as NVML does, and the samplers watch the GPUs the run
// uses) and PYTHONUNBUFFERED=1. A protocol workload gets the standard
// arguments --device, --batch-size, --precision, --duration and --seed (the
// repeat index); a protocol-none command runs as written. At degree k > 1
// the command runs under `{python} DIR/logs/torchrun_compat.py --standalone
// --nproc_per_node k`: torch's own launcher (torch.distributed.run), which
// the binary carries and writes into the campaign, behind a fix for torch <
// 2.0 on Python >= 3.11 (there `python -m torch.distributed.run` dies
// before starting a worker). A run still going at its timeout (default
// --duration plus two minutes), a run cancelled by Ctrl-C, and the partner
// of a failed pair get SIGTERM on their process group, then SIGKILL after a
// grace period. A workload ended by a SIGTERM, SIGINT or SIGHUP that coloc
// did not send (a batch system stopping the whole job) makes its run wait
// stopGrace for coloc's own stop; if coloc is stopping, the run is left
// out of the journal, to be redone on resume, not recorded as failed. A non-zero exit, a timeout or a protocol workload that
// printed no step line makes a failed run whose error holds the reason and
// the tail of stderr ("out of memory" when stderr says so).
//
// # Warm-up and the steady window (our rule; the papers do not give one)
//
// Let d_i be the time of step i (the difference of consecutive step
// timestamps). The steady state starts at the first step k such that at
// least --warmup has passed since the first step and the median of
// d_{k-4..k} is within 10% of the median of d_{k-9..k-5} (WindowOptions:
// Span 5, Tolerance 0.1). Medians ignore the odd slow step (garbage
// collection, a checkpoint) that a mean would not. Throughput is samples/s
// from the window's first step to its last: (samples_b - samples_a) /
// (t_b - t_a), with samples cumulative over all ranks; a settled window
// needs at least 5 steps.
//
// # Unsettled runs (our choice)
//
// A busy machine may never let the step time settle. Such a run is not a
// failure (a failure is a crash, a timeout, fewer than two steps, or an
// impossible value): it is measured over the best window it has, from the
// first step past both --warmup and half the run (or, when that window is
// too short or a pair's steady windows do not overlap, from its first to
// its last step, for a pair where both ran), and recorded ok with
// settled=false. Its relative uncertainty u is the relative difference
// between the throughputs of the window's two halves (how far the rate was
// still moving), at least the tolerance it failed to meet (10%) and at
// most 1; a solo or pair mean with an unsettled run has its interval
// widened to at least mean·(1 ± u). Pairs rows measured from an unsettled
// pair run, or normalized by a solo mean with an unsettled run, are
// suspect: kept, with the reason among the campaign's warnings, but not
// used by models unless asked (--include-unsettled). The runs table
// records settled and the window (window_start, window_end) of each run,
// and the counter features are summarised over that window only.
// A protocol-none command is measured as steps × batch size / wall time,
// start-up included.
//
// A pair's two workloads start together on one GPU (time-sliced by
// default, or under a private MPS daemon that runs for the whole campaign,
// solo runs included, so both see the same driver path). Each measures
// only over the window where both are steady: from the later of the two
// steady starts to the earlier of the two last steps. The workloads' clocks
// are put on the harness's clock first: each step line is stamped when it
// is read, and a workload's offset is the smallest (read time - step time)
// over its lines, the line least delayed by pipes.
//
// # Values over repeats
//
// The mean over repeats comes with a 95% confidence interval from
// Student's t with n-1 degrees of freedom (none for one repeat). A pair's
// normalized throughput is its co-located mean over the workload's solo
// mean on the same device type at degree 1; its interval adds the relative
// half-widths of the two means in quadrature (first-order propagation), and
// is unknown unless both have one. For a workload paired with itself each
// run gives one value, the mean of its two copies, and the pairs table one
// row. A pair none of whose runs succeeded is infeasible in pairs.arrow
// when the memory check refused it or a copy ran out of memory; any other
// failure leaves it out of pairs.arrow (no value is known), and runs.arrow
// keeps the failed runs with their errors.
//
// # Memory check
//
// Before a pair runs, the solo peak memories of its workloads (the largest
// measured in an ok solo run, else the suite's memory_gb, in GiB) plus
// 512 MiB per process for the CUDA context and allocator slack are compared
// with the device's memory. A pair that cannot fit is recorded infeasible
// and not run. With a peak or the device memory unknown (CPU) it runs.
//
// # The campaign directory
//
// DIR/manifest.json (format coloc.campaign, version 1) holds the hardware,
// versions, suite hash, settings and the whole plan. DIR/runs.jsonl is the
// journal (records of version 2; version 1 still reads): one line per
// finished run (ok, failed or infeasible), written whole by one write on a
// file opened O_APPEND and fsynced before the run counts as done. DIR/samples/<run>.arrow holds
// a run's counter samples, DIR/logs/ the workloads' stderr. The tables are
// rewritten from the journal after every run; samples.arrow, the
// concatenation of the per-run files, only when the campaign stops.
//
// Executing a campaign in a directory that holds the same campaign (suite
// hash, plan hash and settings) resumes it: finished runs are skipped and a
// run that was interrupted (it has no journal line) is redone; a last
// journal line cut short by a crash is dropped. Campaign.Retry also
// redoes the failed, the unsettled or the shared runs; the new record,
// appended later, replaces the old. Another campaign is refused
// unless Force is set, which deletes the campaign files first (Force on
// the same campaign starts it over). A directory that holds files but no
// campaign is refused always: coloc never deletes files it did not write.
//
// One process at a time executes a campaign directory: Execute holds an
// exclusive flock(2) on DIR/.coloc.lock, which holds its PID for the
// message refusing a second one. The kernel releases the lock when the
// holder dies, so a campaign killed with SIGKILL never blocks the next.
// Before the first run, the Runner's preflight checks every workload's program,
// script and (for a .py script) that its Python imports torch, and on
// CUDA that no GPU's compute mode forbids a planned run (prohibited; an
// exclusive mode under a pair sharing by time slices), so that a
// problem known in advance fails the campaign at once with its fix named,
// not every run one by one. A CUDA campaign then asks its Monitor, when it
// can tell (the NVML sampler through sampler.TenantLister), which compute
// processes already use its GPUs: none is the campaign's yet, so each is
// another tenant's, and the campaign warns as it starts; during runs the
// NVML sampler names the processes on a run's devices that are not the
// run's: another tenant's go into the record's Shared (sampler.Sharer),
// the rest into its warnings.
//
// # Shared runs (our choice)
//
// A run beside another tenant's processes stays ok: its workloads ran
// and their numbers are real, only not theirs alone. A value (a solo
// value, a pair's co-located throughput) is taken from the runs of it
// measured alone when there is one, since the tenant's load lowers a
// shared run's throughput by an amount nothing recorded can tell; when
// every run of it was shared, it is taken from those and the pairs rows
// it makes are suspect, as for unsettled runs, naming the runs.
// Retry.Shared runs them again. Peak memory, which is the workload's own,
// takes every run.
//
// # Shards and their merge
//
// A campaign directory may run one shard of the plan (Campaign.Shard,
// "i/n"; Plan.Shard deals the runs); the tables of a shard cover the runs
// it finished. Package profile/fleet runs the shards of one plan as the
// tasks of a cluster manager, each in a directory of its own, and a
// campaign refuses to run in the fleet's directory itself (it holds
// fleet.json), where a merge would drop its runs.
//
// MergeShards joins the shards' directories into one campaign: the
// journal in plan order, the sample files, the tables (buildTables, as one
// node writes them) and a manifest whose Shards say where each ran. It
// refuses, naming the shard, a shard whose manifest has another suite
// hash, plan hash, shard split or settings, or whose journal holds a run
// another shard owns, and writes nothing then. It only reads the shards
// (so it may run while they do) and rewrites everything each time (so it
// is idempotent). Runs that no shard has finished are left out, not
// fatal: the campaign so far is written.
//
// Shards on several device types (our choice). Each shard records the
// device type of its node (settings.DeviceType of its manifest; a run's
// record has it too), and buildTables keeps device types apart: solo,
// pairs and scaling rows are per device type, and a pair is normalized
// only by solo runs of its own type, since a ratio across GPU types would
// measure the GPUs, not the interference. A merge of shards that ran on
// mixed nodes therefore holds several device types (its manifest lists
// them, comma-separated) but misses pairs whose solo runs ran elsewhere (a
// warning says which).
//
// In runs.arrow, a pair run gives one row per workload with run_id
// "<run>/<label>"; the label is the workload name, "<name>#2" for the second
// copy of a workload paired with itself, and is also the workload name of
// that copy's per-process samples.
package profile
