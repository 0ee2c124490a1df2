package policies

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim"
)

// exportSettings are the decision settings the stream tests export with:
// the default (the core, sizes unknown), the core with foresight, the
// completion-time rule, and assumed multi-GPU pairs.
var exportSettings = []ExportSettings{
	{Rule: policy.RuleDecisionCore, Durations: "attained"},
	{Rule: policy.RuleDecisionCore, Durations: "known", AssumeMultiGPUPairs: true},
	{Rule: policy.RuleCompletionTime, Durations: "known", Order: OrderShortest},
	{Rule: policy.RuleCompletionTime, Durations: "attained", Order: OrderArrival, AssumeMultiGPUPairs: true},
}

// place.WriteExport, which writes each decision as the decider takes it,
// writes the bytes of the former path (place.Export, the whole file in
// memory, then policy.WriteFile) and the same summary, on every shipped
// job list and trace: the examples on their cluster, Gavel's traces on
// Gavel's cluster and the results' 16-GPU cuts on theirs, under each
// decision setting.
func TestWriteExportIsExport(t *testing.T) {
	if testing.Short() {
		t.Skip("fits IASP, IAPP and the similarity model, and exports 148 times (seconds)")
	}
	models, data := gavelPlaceInputs(t)
	inputs := shippedExportInputs(t)
	dir := t.TempDir()
	th := policy.DefaultThresholds
	th.MinNormalized = 0
	exports := 0
	for _, in := range inputs {
		spec, list := in.spec, in.list
		for k, s := range exportSettings {
			s.MaxPerGPU, s.Efficiency = th.MaxPerGPU, th.ScalingEfficiency
			d, err := s.Decider()
			if err != nil {
				t.Fatal(err)
			}
			pin := place.Input{Cluster: spec, ClusterFile: in.cluster, Jobs: list, JobsFile: in.jobs, Data: data, Models: models}
			opt := place.ExportOptions{Thresholds: th, Decide: d, Now: time.Unix(1, 0)}
			name := fmt.Sprintf("%s with %+v", filepath.Base(in.jobs), s)
			former := filepath.Join(dir, "former.json")
			pf, err := place.Export(pin, opt)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := place.WriteFile(former, pf); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var want bytes.Buffer
			if _, err := place.WriteSummary(&want, "OUT", pf); err != nil {
				t.Fatal(err)
			}
			streamed := filepath.Join(dir, fmt.Sprintf("streamed-%d.json", k))
			sum, err := place.WriteExport(streamed, pin, opt)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var got bytes.Buffer
			if _, err := sum.Write(&got, "OUT"); err != nil {
				t.Fatal(err)
			}
			a, _ := os.ReadFile(former)
			b, _ := os.ReadFile(streamed)
			if !bytes.Equal(a, b) || len(a) == 0 {
				t.Errorf("%s: the streamed file differs from the former path's (%d and %d bytes)", name, len(b), len(a))
			}
			if got.String() != want.String() {
				t.Errorf("%s: summary\n%s\nwant\n%s", name, got.String(), want.String())
			}
			if !slices.Equal(sum.File.Warnings, pf.Warnings) {
				t.Errorf("%s: warnings %q, want %q", name, sum.File.Warnings, pf.Warnings)
			}
			exports++
		}
	}
	t.Logf("%d exports byte for byte the same", exports)
}

// exportInput is a job list and the cluster it is exported on, read.
type exportInput struct {
	cluster, jobs string
	spec          *cluster.Spec
	list          *jobs.List
}

// shippedExportInputs are every shipped job list and trace: the examples
// on their cluster, Gavel's traces on Gavel's cluster and the results'
// 16-GPU cuts on theirs.
func shippedExportInputs(t *testing.T) []exportInput {
	var inputs []exportInput
	for _, j := range []string{"jobs.yaml", "jobs-busy.yaml"} {
		inputs = append(inputs, exportInput{cluster: "../../examples/cluster.yaml", jobs: "../../examples/" + j})
	}
	traces, _ := filepath.Glob("../../examples/traces/*/*.trace")
	for _, tr := range traces {
		inputs = append(inputs, exportInput{cluster: "../../examples/cluster-gavel.yaml", jobs: tr})
	}
	cuts, _ := filepath.Glob("../../sim/experiment/testdata/gavel/traces/*-gavel-16.trace")
	for _, tr := range cuts {
		inputs = append(inputs, exportInput{cluster: "../../examples/cluster-gavel-16.yaml", jobs: tr})
	}
	if len(traces) < 20 || len(cuts) < 10 {
		t.Fatalf("%d traces and %d cuts: the shipped inputs moved", len(traces), len(cuts))
	}
	for i := range inputs {
		in := &inputs[i]
		var err error
		if in.spec, err = cluster.Load(in.cluster); err != nil {
			t.Fatal(err)
		}
		if in.list, err = sim.LoadJobs(in.jobs); err != nil {
			t.Fatal(err)
		}
	}
	return inputs
}

// A job list of more jobs than the 100,000 a list once held, read from a
// Gavel trace the test writes and exported on a cluster of 16 GPUs,
// gets exactly one decision for each job, in the list's order, in a file
// the policy reader loads and validates: at most two jobs a GPU placed,
// the others waiting, the jobs of a workload the data do not hold
// unplaceable, and a job never profiled standing for its reference.
func TestExportAbove100kJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("fits IASP, IAPP and the similarity model and exports 120,003 jobs (seconds)")
	}
	models, data := gavelPlaceInputs(t)
	const n = 120_000
	dir := t.TempDir()
	ws := data.Workloads()
	var b strings.Builder
	for i := range n {
		w, scale := ws[i%len(ws)], []int{1, 1, 1, 2, 1, 4, 1, 8}[i%8]
		if i%1000 == 999 {
			w = "Unheard-Of (batch size 3)"
		}
		fmt.Fprintf(&b, "%s\tcmd\t-n\t0\t%d\t%d\t%d\n", w, 1000+i%5000, i, scale)
	}
	trace := filepath.Join(dir, "big.trace")
	if err := os.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := sim.LoadJobs(trace)
	if err != nil {
		t.Fatal(err)
	}
	list.Jobs = append(list.Jobs,
		jobs.Job{ID: "new-bert", Model: &jobs.Model{Class: "transformer", Params: 1.1e8, FLOPs: 2.2e10, Layers: map[string]int{"attention": 12, "linear": 74}}, BatchSize: 32, Degrees: []int{1}, Steps: 5000},
		jobs.Job{ID: "elastic", Workload: ws[0], Degrees: []int{1, 2, 4}, Steps: 5000},
		jobs.Job{ID: "timed", Workload: ws[1], Duration: jobs.Duration(time.Hour)})
	spec, th, d := defaultExport(t, "cluster-gavel-16.yaml")
	out := filepath.Join(dir, "policy.json")
	sum, err := place.WriteExport(out, place.Input{Cluster: spec, Jobs: list, JobsFile: trace, Data: data, Models: models}, place.ExportOptions{Thresholds: th, Decide: d})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Load(out)
	if err != nil {
		t.Fatalf("the reader refuses the file: %v", err)
	}
	ds := p.File.Decisions
	if len(ds) != len(list.Jobs) || len(list.Jobs) != n+3 {
		t.Fatalf("%d decisions for %d jobs", len(ds), len(list.Jobs))
	}
	count := map[string]int{}
	gpus := 0
	for _, node := range spec.Nodes() {
		gpus += node.GPUs
	}
	for i, dec := range ds {
		j := list.Jobs[i]
		if dec.Job != j.ID {
			t.Fatalf("decisions[%d] is job %q, want %q: one decision a job, in the list's order", i, dec.Job, j.ID)
		}
		count[dec.Status]++
		unknown := j.Workload == "Unheard-Of (batch size 3)"
		switch {
		case unknown && dec.Status != policy.StatusUnplaceable:
			t.Errorf("job %s of a workload the data do not hold: %s", j.ID, dec.Status)
		case !unknown && dec.Status == policy.StatusUnplaceable && (slices.Equal(j.Degrees, []int{1}) || !strings.Contains(dec.Reason, "at an allowed degree")):
			t.Errorf("job %s of %s on %v GPUs: unplaceable (%s)", j.ID, j.Workload, j.Degrees, dec.Reason)
		}
	}
	if got := ds[n].Reference; got == "" || ds[n].Status == policy.StatusUnplaceable {
		t.Errorf("the job never profiled: %s, reference %q", ds[n].Status, got)
	}
	if count[policy.StatusUnplaceable] < n/1000 || count[policy.StatusPlaced] < gpus/2 || count[policy.StatusPlaced] > th.MaxPerGPU*gpus ||
		count[policy.StatusWaiting] != len(ds)-count[policy.StatusPlaced]-count[policy.StatusUnplaceable] {
		t.Errorf("statuses %v on %d GPUs", count, gpus)
	}
	var text bytes.Buffer
	if _, err := sum.Write(&text, "OUT"); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("wrote OUT: %d of %d jobs placed", count[policy.StatusPlaced], len(ds)); !strings.Contains(text.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, text.String())
	}
	t.Logf("%d jobs: %v", len(ds), count)
}

// BenchmarkWriteExport exports generated Gavel-format traces (sim.Generate,
// seed 1, as `coloc simulate generate --seed 1` writes them) of 10^5 and
// 10^6 jobs on examples/cluster-1024.yaml with the decision core (the
// command's default), read from a file as the command reads them, and
// reports jobs/s; -short leaves out 10^6. Models as BenchmarkSimulate:
// $COLOC_MODELS, else fitted first. Peak resident memory is the
// command's: docs/performance.md ("Policy export at scale").
func BenchmarkWriteExport(b *testing.B) {
	_, truth := gavelModel(b)
	dir := os.Getenv("COLOC_MODELS")
	if dir == "" {
		dir = benchModels(b)
	}
	models, err := place.LoadModels(dir, place.DefaultModelNames)
	if err != nil {
		b.Fatal(err)
	}
	data, err := place.LoadData([]string{"../../datasets/reference/gavel"})
	if err != nil {
		b.Fatal(err)
	}
	spec, th, d := defaultExport(b, "cluster-1024.yaml")
	sizes := []int{100_000, 1_000_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			gen, err := sim.Generate(sim.GenOptions{Jobs: n, Seed: 1, Workloads: truth.Workloads(), Rates: truth, RefType: "v100", MeanGap: 150})
			if err != nil {
				b.Fatal(err)
			}
			var text bytes.Buffer
			if err := sim.WriteTrace(&text, gen); err != nil {
				b.Fatal(err)
			}
			trace, out := filepath.Join(b.TempDir(), "jobs.trace"), filepath.Join(b.TempDir(), "policy.json")
			if err := os.WriteFile(trace, text.Bytes(), 0o644); err != nil {
				b.Fatal(err)
			}
			gen, text = nil, bytes.Buffer{}
			for b.Loop() {
				list, err := sim.LoadJobs(trace)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := place.WriteExport(out, place.Input{Cluster: spec, Jobs: list, JobsFile: trace, Data: data, Models: models}, place.ExportOptions{Thresholds: th, Decide: d}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}

// defaultExport loads the example cluster spec name and returns it with
// what `coloc policy export` decides with by default: its thresholds (no
// floor) and the decision core, sizes unknown.
func defaultExport(t testing.TB, name string) (*cluster.Spec, policy.Thresholds, place.Decider) {
	t.Helper()
	spec, err := cluster.Load(filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	th := policy.DefaultThresholds
	th.MinNormalized = 0
	d, err := ExportSettings{Rule: policy.RuleDecisionCore, Durations: "attained", MaxPerGPU: th.MaxPerGPU, Efficiency: th.ScalingEfficiency}.Decider()
	if err != nil {
		t.Fatal(err)
	}
	return spec, th, d
}
