package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/experiment"
	"github.com/coloc-dev/coloc/sim/peers"
	"github.com/coloc-dev/coloc/sim/policies"
	"github.com/spf13/cobra"
)

type simulateFlags struct {
	trace, cluster, data, models string
	policies                     []string
	seed                         uint64
	round, penalty               time.Duration
	maxPerGPU                    int
	minNormalized, oracleNoise   float64
	estMedian, estSigma          float64
	maxJobs                      int    // simulate sweep --max-jobs
	title                        string // simulate sweep --title
	durations, degree, order     string
	decide                       string
	maxDegree                    int
	extrapolate                  bool
	assumePairs, hidePairs       bool
	json                         bool
	output                       string // simulate -o: the replay file
	settings                     string
	// roundSet and penaltySet say that --round and --restart-penalty
	// were given, so that they win over --settings.
	roundSet, penaltySet bool
}

func newSimulateCmd(e *env) *cobra.Command {
	var f simulateFlags
	var names []string
	for _, p := range experiment.All(policies.Config{}) {
		names = append(names, fmt.Sprintf("  %-17s %s", p.Name, p.Doc))
	}
	cmd := &cobra.Command{
		Use:   "simulate --trace T --cluster C --data DIR --policy P[,P...]",
		Short: "Replay a job trace on a simulated cluster under several policies",
		Long: `Replays a Gavel job trace (msr or physical_cluster layout), or a job list
(.yaml, .yml or .json, as 'coloc policy export' reads), on the cluster of a
spec file and reports, per policy, job completion time (JCT), makespan and
GPU utilisation. A job of a list runs at its one allowed degree, or, when it
allows several, at the degree the export would choose on an empty cluster;
a duration becomes steps at that measured rate.

Jobs progress at the rates measured in DIR (solo.arrow and pairs.arrow, in
iterations/s; samples/s, as coloc profile writes, are divided by each
workload's per-GPU batch size from solo.arrow): their solo rate at their number of GPUs on the GPU type they
run on, or, while two jobs share the same GPUs, the pair's measured
co-located rate. A pair without a status-ok measurement never shares GPUs,
except, with --assume-multi-gpu-pairs, two jobs of the same degree k > 1
measured together on one GPU: they share at those normalized throughputs
times their solo rates at k (labelled assumed; docs/simulation.md). A
job whose GPUs span nodes runs at its type's spread rate. Jobs that no
GPU type of the cluster can run (unknown type, no rate at their number of
GPUs) are counted as unrunnable and left out of the metrics.

Policies decide with estimates only: the baselines with measured solo rates,
never with co-located rates, and none knows how long a job will run unless
it says so (srtf-known, --durations known). coloc decides with the measured
solo rates, the predictions of the models in --models (IAPP) and the sizes
of the jobs completed so far: a Gittins-index priority per workload, learned
online (--durations attained, the default), or a user's estimate off by a
log-normal factor (--durations estimate: median --estimate-median, log-space
spread --estimate-sigma), or the truth (known: foresight, a reference). It
may pause, move, shrink or pair running jobs whenever that is worth the
restart (docs/simulation.md). oracle decides as coloc does with the
measured pair rates (--oracle-noise 0.01 moves each by up to 1%, drawn per
pair from --seed, to show how much of a difference is luck). coloc-rule and
oracle-rule are the former greedy rule, which never preempts (--order,
--decide lower, --min-normalized: a floor below which no job shares).

Policies:
` + strings.Join(names, "\n") + `

The cluster spec is YAML, version 1: see examples/cluster-gavel.yaml.

A GPU is busy while it holds at least one job; GPU util is busy GPU time
over available GPU time (GPUs x makespan). --json prints one JSON object per
policy, one a line. -o FILE also writes every policy's result with every job
to FILE (JSON, format coloc.replay version 1), which 'coloc report --sim'
draws. A replay that runs longer than 5 seconds says on stderr,
every 10 seconds, how many jobs have completed and about how long is left
at its pace so far.`,
		Example: `  coloc simulate --trace examples/traces/msr/103959.trace \
    --cluster examples/cluster-gavel.yaml --data datasets/reference/gavel \
    --policy fifo,random-pack,greedy-pack
  coloc simulate --trace examples/traces/physical_cluster/small_test.trace \
    --cluster examples/cluster-gavel.yaml --data datasets/reference/gavel --json
  coloc fit --data datasets/reference/gavel -o out/models
  coloc simulate --trace examples/traces/msr/ed69ec.trace \
    --cluster examples/cluster-gavel-48.yaml --data datasets/reference/gavel \
    --models out/models --policy fifo,greedy-pack,coloc,oracle
  coloc simulate --trace examples/jobs.yaml --cluster examples/cluster.yaml \
    --data datasets/reference/gavel --models out/models --policy fifo,coloc`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.roundSet, f.penaltySet = cmd.Flags().Changed("round"), cmd.Flags().Changed("restart-penalty")
			return runSimulate(e, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.trace, "trace", "", "Gavel job trace file, or job list (.yaml, .yml, .json)")
	fl.StringVar(&f.cluster, "cluster", "", "cluster spec (YAML, version 1)")
	fl.StringVar(&f.data, "data", "", "dataset directory with solo.arrow and pairs.arrow (iterations/s, or samples/s with batch sizes)")
	fl.StringVar(&f.models, "models", "", "fitted models, for the policies that use them")
	fl.StringSliceVar(&f.policies, "policy", []string{"fifo", "random-pack", "greedy-pack"}, "policies to compare, comma-separated")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the randomised policies")
	fl.DurationVar(&f.round, "round", time.Duration(sim.DefaultOptions.Round*float64(time.Second)), "round length at which policies may revise decisions (0: no rounds)")
	fl.DurationVar(&f.penalty, "restart-penalty", time.Duration(sim.DefaultOptions.RestartPenalty*float64(time.Second)), "time without progress after a job is moved or resumed")
	fl.IntVar(&f.maxPerGPU, "max-per-gpu", sim.DefaultOptions.MaxPerGPU, "most jobs on one GPU (1 or 2)")
	fl.Float64Var(&f.minNormalized, "min-normalized", 0, "coloc and oracle: optional floor, never share when a job is estimated below this normalized throughput (0: off)")
	fl.StringVar(&f.durations, "durations", "attained", "what coloc and oracle know of job sizes: attained (the service a job had, and the sizes of completed jobs), estimate (a user's, log-normal error) or known (foresight)")
	fl.Float64Var(&f.estMedian, "estimate-median", sim.DefaultEstimateMedian, "--durations estimate: median of the estimate over the true size")
	fl.Float64Var(&f.estSigma, "estimate-sigma", sim.DefaultEstimateSigma, "--durations estimate: log-space standard deviation of that factor")
	fl.StringVar(&f.order, "order", policies.OrderShortest, "coloc-rule and oracle-rule: order in which waiting jobs choose: shortest (predicted remaining GPU time) or arrival")
	fl.StringVar(&f.decide, "decide", policy.DecideExpected, "coloc: decide on each predicted normalized throughput (expected) or on its interval's lower bound (lower: risk-averse), as 'coloc policy export --decide'")
	fl.Float64Var(&f.oracleNoise, "oracle-noise", 0, "oracle: decide on measured normalized throughputs each multiplied by 1+a*u, u uniform in [-1, 1] drawn per pair from --seed; jobs still run at the measured rates (0: off; shows how much of a difference from the oracle is luck)")
	fl.StringVar(&f.degree, "degree", sim.DegreeTrace, "who picks a job's number of GPUs: trace (its scale factor) or policy (a measured degree up to the request; baselines take the largest)")
	fl.IntVar(&f.maxDegree, "max-degree", 0, "with --degree policy: the most GPUs a job may get (0: its request)")
	fl.BoolVar(&f.extrapolate, "extrapolate", false, "run jobs beyond the measured degrees on solo rates extrapolated with the last measured efficiency (labelled in the result)")
	fl.BoolVar(&f.json, "json", false, "print one JSON object per policy")
	fl.StringVarP(&f.output, "output", "o", "", "also write every policy's result with every job to this file (JSON, format coloc.replay version 1)")
	fl.StringVar(&f.settings, "settings", experiment.SettingsColoc, "simulator settings: coloc (decide at every event, moves cost --restart-penalty, spread jobs at measured spread rates) or gavel (Gavel's simulator: decide in 360 s rounds, moves free, spread free, fifo as Gavel's; --round and --restart-penalty still win when given)")
	addAssumeFlags(fl, &f.assumePairs, &f.hidePairs)
	for _, name := range []string{"trace", "cluster", "data"} {
		cmd.MarkFlagRequired(name)
	}
	completeValues(cmd, "policy", policyNames())
	cmd.AddCommand(newSimulateSweepCmd(e), newSimulateGenerateCmd(e), newSimulateAssumptionCmd(e), newSimulateBudgetCmd(e))
	return cmd
}

func newSimulateSweepCmd(e *env) *cobra.Command {
	var f simulateFlags
	var traces, clusters, degrees []string
	var markdown string
	var parallel int
	cmd := &cobra.Command{
		Use:   "sweep --traces T[,T...] --clusters C[,C...] --data DIR --models M --markdown FILE",
		Short: "Replay many traces on many clusters and write the results page",
		Long: `Replays every trace on every cluster under the policies (the same replay as
'coloc simulate') and writes a Markdown page: per cluster and over all, the
geometric mean over cases of the reference policy's (coloc's) average and p95
JCT, makespan and both utilisations relative to each other policy, the worst
makespan ratio, then every case and the unrunnable jobs by reason.`,
		Example: `  coloc simulate sweep --traces examples/traces/msr/103959.trace,examples/traces/msr/ed69ec.trace \
    --clusters examples/cluster-gavel-16.yaml,examples/cluster-gavel-48.yaml \
    --data datasets/reference/gavel --models out/models --markdown docs/results/traces.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s := experiment.Sweep{Traces: traces, Clusters: clusters, Data: f.data, Policies: f.policies, Reference: "coloc", Degrees: degrees, Progress: e.stderr,
				Peers: peers.Published, MaxJobs: f.maxJobs, Parallel: parallel, Title: f.title,
				Options: sim.DefaultOptions, Env: sim.Env{Seed: f.seed}, Config: f.config()}
			cases, err := s.Run()
			if err != nil {
				return err
			}
			experiment.WriteCaseWarnings(e.stderr, cases)
			w := e.stdout
			if markdown != "-" {
				var buf strings.Builder
				if err := s.WriteMarkdown(&buf, cases, sweepCommand(traces, clusters, degrees, f)); err != nil {
					return err
				}
				return writeAtomic(markdown, []byte(buf.String()), 0o644)
			}
			return s.WriteMarkdown(w, cases, sweepCommand(traces, clusters, degrees, f))
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&traces, "traces", nil, "Gavel trace files, comma-separated")
	fl.StringSliceVar(&clusters, "clusters", nil, "cluster specs, comma-separated")
	fl.StringVar(&f.data, "data", "", "dataset directory with solo.arrow and pairs.arrow (iterations/s, or samples/s with batch sizes)")
	fl.StringVar(&f.models, "models", "", "fitted models, for the policies that use them")
	fl.StringSliceVar(&f.policies, "policy", []string{"fifo", "backfill", "gavel-las", "gavel-las-packed", "tiresias", "srtf-known", "coloc", "coloc-no-sharing", "coloc-estimate", "coloc-known", "oracle"}, "policies; must include coloc (the page leads with each over the strongest of gavel-las, gavel-las-packed and tiresias)")
	fl.IntVar(&f.maxJobs, "max-jobs", 0, "replay the first N jobs of each trace (0: all)")
	fl.IntVar(&parallel, "parallel", 1, "cases replayed at once")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the randomised policies")
	fl.Float64Var(&f.minNormalized, "min-normalized", 0, "coloc and oracle: optional floor (0: off)")
	fl.Float64Var(&f.oracleNoise, "oracle-noise", 0, "oracle: decide on measured normalized throughputs each perturbed by up to this fraction, drawn per pair from --seed (0: off; how much of a difference from the oracle is luck)")
	fl.StringVar(&f.durations, "durations", "attained", "coloc and oracle: attained, estimate or known (foresight)")
	fl.Float64Var(&f.estMedian, "estimate-median", sim.DefaultEstimateMedian, "coloc-estimate (and --durations estimate): median of the users' estimate over the true size")
	fl.Float64Var(&f.estSigma, "estimate-sigma", sim.DefaultEstimateSigma, "coloc-estimate (and --durations estimate): log-space standard deviation of that factor")
	fl.StringVar(&f.order, "order", policies.OrderShortest, "coloc-rule and oracle-rule: shortest or arrival")
	fl.StringVar(&f.decide, "decide", policy.DecideExpected, "coloc: expected or lower (risk-averse)")
	fl.StringVar(&markdown, "markdown", "-", "write the page to this file (-: stdout)")
	fl.StringVar(&f.title, "title", "", "the page's title (default \"Simulation results\")")
	fl.StringSliceVar(&degrees, "degree", []string{sim.DegreeTrace, sim.DegreePolicy}, "degree modes to run, comma-separated")
	for _, name := range []string{"traces", "clusters", "data"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}

// sweepCommand is the command line the page says it was generated by,
// with the file lists as given.
func sweepCommand(traces, clusters, degrees []string, f simulateFlags) string {
	line := fmt.Sprintf("coloc simulate sweep --traces %s --clusters %s --data %s --models M --policy %s --durations %s --order %s --degree %s --estimate-median %g --estimate-sigma %g",
		strings.Join(traces, ","), strings.Join(clusters, ","), f.data, strings.Join(f.policies, ","), f.durations, f.order, strings.Join(degrees, ","), f.estMedian, f.estSigma)
	if f.maxJobs > 0 {
		line += fmt.Sprintf(" --max-jobs %d", f.maxJobs)
	}
	if f.title != "" {
		line += fmt.Sprintf(" --title %q", f.title)
	}
	if f.decide != "" && f.decide != policy.DecideExpected {
		line += " --decide " + f.decide
	}
	if f.oracleNoise > 0 {
		line += fmt.Sprintf(" --oracle-noise %v --seed %d", f.oracleNoise, f.seed)
	}
	return line
}

// config is the model-driven policies' knobs as the flags give them
// (Config.Check validates them).
func (f simulateFlags) config() policies.Config {
	return policies.Config{Models: f.models, MinNormalized: f.minNormalized, Durations: f.durations, Order: f.order, Decide: f.decide,
		EstimateMedian: f.estMedian, EstimateSigma: f.estSigma, OracleNoise: f.oracleNoise}
}

func runSimulate(e *env, f simulateFlags) error {
	x := experiment.Experiment{Policies: f.policies, Options: sim.DefaultOptions,
		Env: sim.Env{Seed: f.seed}, Config: f.config(), Progress: e.stderr}
	in := experiment.Inputs{Trace: f.trace, Cluster: f.cluster, Data: f.data, Extrapolate: f.extrapolate,
		AssumeMultiGPUPairs: f.assumePairs, HideMultiGPUPairs: f.hidePairs}
	explicit := experiment.Explicit{Round: experiment.NotGiven, RestartPenalty: experiment.NotGiven}
	if f.roundSet {
		explicit.Round = f.round.Seconds()
	}
	if f.penaltySet {
		explicit.RestartPenalty = f.penalty.Seconds()
	}
	if err := experiment.ApplySettings(f.settings, &x, &in, explicit); err != nil {
		return fmt.Errorf("--settings: %w", err)
	}
	x.Options.MaxPerGPU = f.maxPerGPU
	x.Options.Degree, x.Options.MaxDegree = f.degree, f.maxDegree
	if _, err := x.CheckNames(); err != nil {
		return err
	}
	tr, warns, err := x.Load(in)
	if err != nil {
		return err
	}
	e.say("warning:", warns...)
	results, err := x.Run()
	if err != nil {
		return fmt.Errorf("%s: %w", f.trace, err)
	}
	e.say("warning:", experiment.Warnings(results)...)
	if f.json {
		enc := json.NewEncoder(e.stdout)
		for _, r := range results {
			if err := enc.Encode(r.Summary()); err != nil {
				return err
			}
		}
	} else if err := experiment.WriteTable(e.stdout, tr, x.Topology, results); err != nil {
		return err
	}
	if f.output == "" {
		return nil
	}
	replay, err := experiment.NewReplay(in, tr, &x, results)
	if err != nil {
		return err
	}
	return experiment.WriteReplay(f.output, replay)
}

func newSimulateGenerateCmd(e *env) *cobra.Command {
	var data, out, ref string
	var n int
	var seed uint64
	var gap float64
	cmd := &cobra.Command{
		Use:   "generate --data DIR --jobs N -o FILE",
		Short: "Write a seeded Gavel-format (msr) trace of the data's job types",
		Long: `Draws a trace after the recipe of Gavel's generator (job types uniform;
scale 1, 2, 4, 8 with probabilities 0.7, 0.1, 0.15, 0.05; 10^x minutes on the
reference GPU type, x uniform in [1.5, 3] for 80% of the jobs, [3, 4] for
the rest; Poisson arrivals) and writes it in the msr layout. The same seed
gives the same trace.`,
		Example: `  coloc simulate generate --data datasets/reference/gavel --jobs 100000 --seed 1 -o /tmp/100k.trace`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			truth, err := experiment.LoadTruth(data)
			if err != nil {
				return err
			}
			jobs, err := sim.Generate(sim.GenOptions{Jobs: n, Seed: seed, Workloads: truth.Workloads(), Rates: truth, RefType: ref, MeanGap: gap})
			if err != nil {
				return err
			}
			var buf strings.Builder
			if err := sim.WriteTrace(&buf, jobs); err != nil {
				return err
			}
			return writeAtomic(out, []byte(buf.String()), 0o644)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&data, "data", "", "dataset directory (its job types and solo rates)")
	fl.IntVar(&n, "jobs", 10000, "number of jobs")
	fl.Uint64Var(&seed, "seed", 1, "seed")
	fl.Float64Var(&gap, "mean-gap", 150, "mean seconds between arrivals (Poisson)")
	fl.StringVar(&ref, "ref-type", "v100", "GPU type whose rates turn durations into steps")
	fl.StringVarP(&out, "output", "o", "", "trace file to write")
	for _, name := range []string{"data", "output"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}

// policyNames are the names of the policies coloc simulate runs, in its
// order, for completion.
func policyNames() []string {
	var out []string
	for _, p := range experiment.All(policies.Config{}) {
		out = append(out, p.Name)
	}
	return out
}
