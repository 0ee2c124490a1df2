package experiment

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim"
)

// Inputs are the files an experiment reads.
type Inputs struct {
	// Trace is a Gavel job trace, or a job list (.yaml, .yml or .json, as
	// `coloc policy export` reads).
	Trace string
	// Cluster is a cluster spec (YAML, version 1).
	Cluster string
	// Data is a dataset directory whose solo and pairs tables are the
	// simulator's ground truth.
	Data string
	// Extrapolate runs jobs beyond the measured degrees on solo rates
	// extrapolated with the last measured efficiency.
	Extrapolate bool
	// AssumeMultiGPUPairs lets two jobs of the same degree k > 1 share
	// their GPUs where the data did not measure the pair at k, at the
	// one-GPU pair's normalized throughputs (sim.Measured.AssumedPairs).
	AssumeMultiGPUPairs bool
	// HideMultiGPUPairs drops the pairs measured on more than one GPU
	// (sim.Measured.WithoutMultiGPUPairs): the data as if pairs were
	// measured on one GPU only, to test the assumption against them.
	HideMultiGPUPairs bool
	// FreeSpread rates a placement spread over nodes as the same GPUs on
	// one node (sim.Measured.FreeSpread; Gavel's settings).
	FreeSpread bool
}

// Load reads in into x (Jobs, Topology, Truth) and returns the trace the
// jobs come from, with the warnings of turning a job list into jobs. A
// job list's job runs at its one allowed degree, or, when it allows
// several, at the degree the export would choose on an empty cluster.
func (x *Experiment) Load(in Inputs) (*sim.Trace, []string, error) {
	var tr *sim.Trace
	var list *jobs.List
	var err error
	if sim.IsJobList(in.Trace) {
		list, err = jobs.Load(in.Trace)
	} else {
		tr, err = sim.LoadTrace(in.Trace)
	}
	if err != nil {
		return nil, nil, err
	}
	topo, err := LoadTopology(in.Cluster)
	if err != nil {
		return nil, nil, err
	}
	truth, err := LoadTruth(in.Data)
	if err != nil {
		return nil, nil, err
	}
	if in.HideMultiGPUPairs {
		truth = truth.WithoutMultiGPUPairs()
	}
	if in.Extrapolate {
		truth = truth.Extrapolated()
	}
	if in.AssumeMultiGPUPairs {
		truth = truth.AssumedPairs()
	}
	if in.FreeSpread {
		truth = truth.FreeSpread()
	}
	var warns []string
	if list != nil {
		var tjs []sim.TraceJob
		tjs, warns = sim.TraceJobs(list, topo, truth, policy.DefaultThresholds.ScalingEfficiency)
		tr = &sim.Trace{Name: list.File, Format: "job list", Jobs: tjs}
	}
	x.Jobs, x.Topology, x.Truth = tr.Jobs, topo, truth
	return tr, warns, nil
}

// LoadTopology reads a cluster spec into the simulator's topology.
func LoadTopology(path string) (*sim.Topology, error) {
	spec, err := cluster.Load(path)
	if err != nil {
		return nil, err
	}
	topo, err := sim.NewTopology(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return topo, nil
}

// LoadTruth reads the measured rates of the dataset in dir (its solo and
// pairs tables), the simulator's ground truth.
func LoadTruth(dir string) (*sim.Measured, error) {
	ds, err := datasets.Open(dir)
	if err != nil {
		return nil, err
	}
	truth, err := sim.NewMeasured(ds.Solo, ds.Pairs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return truth, nil
}

// Warnings are the warnings of results, each once, in the order first
// raised.
func Warnings(results []*sim.Result) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range results {
		for _, w := range r.Warnings {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// WriteTable writes results of trace tr on topo as `coloc simulate`
// prints them: a line naming trace and cluster, then a row per policy
// with jobs, average and p95 JCT and makespan in hours, GPU utilisation
// overall and per GPU type, effective utilisation likewise, and the jobs
// that shared GPUs.
func WriteTable(w io.Writer, tr *sim.Trace, topo *sim.Topology, results []*sim.Result) error {
	var gpus []string
	for _, t := range topo.Types() {
		gpus = append(gpus, fmt.Sprintf("%d %s", topo.Count(t), t))
	}
	fmt.Fprintf(w, "trace %s (%s, %d jobs) on %s (%s GPUs)\n\n", tr.Name, tr.Format, len(tr.Jobs), topo.Name, strings.Join(gpus, ", "))
	// Two tables, each within 100 columns: the outcomes, then the
	// utilisation by GPU type (busy, and effective: work relative to solo).
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tjobs\tunrunnable\tavg JCT (h)\tp95 JCT (h)\tmakespan (h)\tGPU util\teffective\tshared\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.3f\t%.3f\t%d\t\n", r.Policy, r.Completed, r.Unrunnable,
			r.AvgJCT/3600, r.P95JCT/3600, r.Makespan/3600, r.GPUUtil, r.EffectiveUtil, r.Shared)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nGPU util by type (busy / effective)\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "policy"
	for _, t := range topo.Types() {
		head += "\t" + t
	}
	fmt.Fprintln(tw, head+"\t")
	for _, r := range results {
		line := r.Policy
		for _, u := range r.Util {
			line += fmt.Sprintf("\t%.3f / %.3f", u.Util, u.Effective)
		}
		fmt.Fprintln(tw, line+"\t")
	}
	return tw.Flush()
}
