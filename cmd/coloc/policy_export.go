package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/policies"
	"github.com/spf13/cobra"
)

type policyExportFlags struct {
	cluster, jobs, models, out string
	clusterModel, nodeModel    string
	decide                     string
	assumePairs                bool
	durations, order, rule     string
	data                       []string
	th                         policy.Thresholds
}

func newPolicyExportCmd(e *env) *cobra.Command {
	f := policyExportFlags{th: policy.DefaultThresholds}
	f.th.MinNormalized = 0 // the rule needs no threshold; an optional floor
	cmd := &cobra.Command{
		Use:   "export --cluster C --jobs J --models M --data DIR[,DIR] -o policy.json",
		Short: "Place a job list on a cluster with the fitted models and write the policy file",
		Long: `Places every job of the job list J on the cluster of spec C, as if all had
arrived at once on the empty cluster, and writes the decisions with the online
tables to a policy file (JSON, format coloc.policy version 4).

The decisions are those the simulator's coloc policy takes at its first
scheduling point, from the same code (docs/placement.md). --rule
decision-core (the default) is coloc: the GPUs go to the jobs of highest value
per GPU (a Gittins-index priority times progress per GPU; with --durations
attained, the default, sizes are unknown and every job has the same
priority), two jobs share GPUs only while the jobs ask more GPUs than the
cluster has, at their predicted normalized throughputs (IAPP), and a job
left without GPUs waits. --rule completion-time is the former rule: jobs
choose in turn (--order) to run now, share or wait, whichever adds least to
the sum of the predicted completion times (--durations known: from the
jobs' steps, foresight), each decision with its rule record.
--min-normalized is an optional floor (0: off). A pair may share only where
the data hold a status-ok measurement of it (with --assume-multi-gpu-pairs,
two jobs of the same degree k > 1 whose pair was measured on one GPU only
share k GPUs at the one-GPU normalized throughputs, marked assumed); memory
is not checked. The file records the objective.

  workload  a job whose workload the data in DIR measure stands for itself;
            any other is described by its model: entry (or, without one, by
            the known descriptor of its model family) and stands for its
            nearest reference under the similarity model of M.
  steps     a job's steps, or its duration at its measured throughput (the
            degree --efficiency picks on the type where it is fastest).

A job that cannot be placed gets a decision with status unplaceable and the
reason. A job list is YAML or JSON (see examples/jobs.yaml) of at most 100,000
jobs; a Gavel trace is accepted too (one job per line, its scale factor as the
only degree), of at most 1,000,000.

The tables: measured pair values where the data hold them, the cluster
model's predictions elsewhere, bounded to its plausible range with an
interval (low, high) and flags (out-of-range: set to the nearest bound, raw
kept; unseen: a workload had no training pair on that GPU type;
uncalibrated); every pair clamped, flagged or dropped is listed in the
warnings and counted in provenance.predictions. --decide lower records that
a scheduler should decide on the intervals' lower bounds (risk-averse).

The file's provenance holds the SHA-256 of the model, data and input files,
the tool version and the creation time (SOURCE_DATE_EPOCH, when set, fixes
it); the same inputs give the same bytes otherwise. The file is written
atomically, each decision as it is taken; a summary of the decisions is
printed (the first 50, then counts).`,
		Example: `  coloc fit --data datasets/reference/gavel -o out/models
  coloc policy export --cluster examples/cluster.yaml --jobs examples/jobs-busy.yaml \
    --models out/models --data datasets/reference/gavel -o out/policy.json
  coloc policy export --cluster examples/cluster-gavel.yaml \
    --jobs examples/traces/physical_cluster/small_test.trace \
    --models out/models --data datasets/reference/gavel -o out/trace.json
  coloc policy export --cluster examples/cluster.yaml --jobs examples/jobs.yaml \
    --models out/models --data datasets/reference/gavel --rule completion-time \
    --durations known -o out/policy-rule.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPolicyExport(e, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.cluster, "cluster", "", "cluster spec (YAML, version 1)")
	fl.StringVar(&f.jobs, "jobs", "", "job list (YAML or JSON, version 1) or Gavel trace")
	fl.StringVar(&f.models, "models", "", "model directory written by 'coloc fit'")
	fl.StringSliceVar(&f.data, "data", nil, "dataset directories, comma-separated (the data the models were fit on)")
	fl.StringVarP(&f.out, "out", "o", "", "policy file to write")
	fl.IntVar(&f.th.MaxPerGPU, "max-per-gpu", f.th.MaxPerGPU, "most jobs on one GPU")
	fl.Float64Var(&f.th.MinNormalized, "min-normalized", f.th.MinNormalized, "optional floor: never share when a job is predicted below this normalized throughput (0: off)")
	fl.StringVar(&f.rule, "rule", policy.RuleDecisionCore, "decision-core (coloc) or completion-time (the former rule)")
	fl.StringVar(&f.durations, "durations", "attained", "what the decisions know of job sizes: attained (nothing yet: sizes unknown) or known (the jobs' steps: foresight)")
	fl.BoolVar(&f.assumePairs, "assume-multi-gpu-pairs", defaultAssumePairs, "let two jobs of the same degree share their GPUs where the data did not measure the pair at that degree, at the pair's normalized throughputs on one GPU (decisions marked assumed)")
	fl.StringVar(&f.order, "order", policies.OrderShortest, "--rule completion-time: order in which jobs choose: shortest (predicted remaining GPU time) or arrival")
	fl.Float64Var(&f.th.ScalingEfficiency, "efficiency", f.th.ScalingEfficiency, "lowest scaling efficiency of the degree at which a duration becomes steps, and of the scaling tables' chosen degree")
	fl.IntVar(&f.th.SimilarityK, "similarity-k", f.th.SimilarityK, "nearest references consulted for a job never profiled")
	fl.StringVar(&f.clusterModel, "cluster-model", place.DefaultModelNames.Cluster, "model of the cluster stage (CLWP) and of the pairs table")
	fl.StringVar(&f.nodeModel, "node-model", place.DefaultModelNames.Node, "model of the node stage (NLWP)")
	fl.StringVar(&f.decide, "decide", policy.DecideExpected, "decide on each predicted normalized throughput (expected) or on its interval's lower bound (lower: risk-averse); recorded in the file")
	for _, name := range []string{"cluster", "jobs", "models", "data", "out"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}

func runPolicyExport(e *env, f policyExportFlags) error {
	spec, err := cluster.Load(f.cluster)
	if err != nil {
		return err
	}
	list, err := sim.LoadJobs(f.jobs)
	if err != nil {
		return err
	}
	data, err := place.LoadData(f.data)
	if err != nil {
		return err
	}
	models, err := place.LoadModels(f.models, place.ModelNames{Cluster: f.clusterModel, Node: f.nodeModel})
	if err != nil {
		return err
	}
	if f.decide != policy.DecideExpected && f.decide != policy.DecideLower {
		return fmt.Errorf("--decide %q: want %s or %s", f.decide, policy.DecideExpected, policy.DecideLower)
	}
	models.Decide = f.decide
	decider, err := policies.ExportSettings{Rule: f.rule, Durations: f.durations, Order: f.order, MinNormalized: f.th.MinNormalized,
		MaxPerGPU: f.th.MaxPerGPU, Efficiency: f.th.ScalingEfficiency, AssumeMultiGPUPairs: f.assumePairs}.Decider()
	if err != nil {
		return err
	}
	opt := place.ExportOptions{Thresholds: f.th, Decide: decider}
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("SOURCE_DATE_EPOCH %q: want seconds since 1970", s)
		}
		opt.Now = time.Unix(sec, 0)
	}
	sum, err := place.WriteExport(f.out, place.Input{Cluster: spec, ClusterFile: f.cluster, Jobs: list, JobsFile: f.jobs, Data: data, Models: models}, opt)
	if err != nil {
		return err
	}
	e.say("warning:", sum.File.Warnings...)
	notes, err := sum.Write(e.stdout, f.out)
	e.say("note:", notes...)
	return err
}
