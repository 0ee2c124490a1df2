package place

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim"
)

func TestLoadJobsReadsAGavelTrace(t *testing.T) {
	path := "../examples/traces/physical_cluster/small_test.trace"
	l, err := LoadJobs(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := sim.LoadTrace(path)
	if len(l.Jobs) != len(tr.Jobs) || l.Validate() != nil {
		t.Fatalf("%d jobs from %d trace lines", len(l.Jobs), len(tr.Jobs))
	}
	for i, j := range l.Jobs {
		tj := tr.Jobs[i]
		if j.ID != strings.TrimSpace(j.ID) || j.Workload != tj.Workload || !reflect.DeepEqual(j.Degrees, []int{tj.Scale}) || j.Steps != tj.Steps || j.ArrivalS != tj.Arrival || j.Line != tj.Line {
			t.Errorf("job %d %+v from %+v", i, j, tj)
		}
	}
	if l.Jobs[3].ID != "3" {
		t.Errorf("ids are trace indices: %q", l.Jobs[3].ID)
	}
	if _, err := LoadJobs("../examples/traces/none.trace"); err == nil {
		t.Error("a missing trace loaded")
	}
	if !IsJobList("x.YAML") || !IsJobList("a/b.json") || IsJobList("x.trace") {
		t.Error("IsJobList")
	}
}

func TestTraceJobs(t *testing.T) {
	ds, err := datasets.Open(gavelDir)
	if err != nil {
		t.Fatal(err)
	}
	truth, _ := sim.NewMeasured(ds.Solo, ds.Pairs)
	spec, _ := cluster.Load(exampleSpec)
	topo, _ := sim.NewTopology(spec)
	l := jobList(t, `version: 1
jobs:
  - {id: fixed, workload: "Transformer (batch size 128)", degrees: [2], steps: 7}
  - {id: choose, workload: "ResNet-50 (batch size 64)", degrees: [1, 2, 4, 8], steps: 9, arrival_s: 5}
  - {id: timed, workload: A3C, duration: 1h}
  - {id: described, model: {class: cnn, params: 1e7}, steps: 3}
`)
	tjs, warns := TraceJobs(l, topo, truth, policy.DefaultThresholds.ScalingEfficiency)
	if len(tjs) != 4 {
		t.Fatalf("%d jobs", len(tjs))
	}
	if j := tjs[0]; j.Scale != 2 || j.Steps != 7 || j.Workload != "Transformer (batch size 128)" {
		t.Errorf("fixed: %+v", j)
	}
	// As in the export on an empty cluster: P100 at 4 GPUs.
	if j := tjs[1]; j.Scale != 4 || j.Arrival != 5 {
		t.Errorf("choose: %+v", j)
	}
	// One hour at A3C's fastest measured one-GPU rate of the cluster's types.
	best := 0.0
	for _, typ := range []string{"k80", "p100", "v100"} {
		r, _ := truth.Solo("A3C", sim.Shape{GPUType: typ, GPUs: 1})
		best = math.Max(best, r)
	}
	if j := tjs[2]; j.Steps != int64(math.Ceil(3600*best)) || j.Scale != 1 {
		t.Errorf("timed: %+v, want %d steps", j, int64(math.Ceil(3600*best)))
	}
	if j := tjs[3]; j.Workload != "described" || j.Steps != 3 {
		t.Errorf("described: %+v", j)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "job described has no workload of the data") {
		t.Errorf("warnings %q", warns)
	}
}

func TestExportAGavelTrace(t *testing.T) {
	in := loadInput(t, "../examples/cluster-gavel.yaml", "../examples/traces/physical_cluster/small_test.trace", fastModels(t))
	f := export(t, in)
	if len(f.Decisions) != 20 {
		t.Fatalf("%d decisions", len(f.Decisions))
	}
	for i, d := range f.Decisions {
		j := in.Jobs.Jobs[i]
		if d.Status != policy.StatusPlaced || d.Degree != j.Degrees[0] || d.Workload != j.Workload {
			t.Errorf("job %s (%s x%d): %+v", j.ID, j.Workload, j.Degrees[0], d)
		}
	}
}

// A job of a known model family at a batch size never measured is matched
// by similarity from its family's known descriptor.
func TestResolveKnownFamily(t *testing.T) {
	d, m := gavelData(t), fastModels(t)
	l := jobList(t, "version: 1\njobs:\n  - {id: r48, workload: \"ResNet-50 (batch size 48)\", steps: 1}\n")
	r := resolve(&l.Jobs[0], d, m, 3)
	if r.task == nil || r.reference == "" || !d.Knows(r.reference) || r.task.Workload != r.reference {
		t.Fatalf("resolved %+v", r)
	}
	if want := features.KnownModels["ResNet-50"].Params; r.task.Params != want {
		t.Errorf("params %v, want ResNet-50's known %v", r.task.Params, want)
	}
	t.Logf("ResNet-50 (batch size 48) stands for %s (distance %.3f)", r.reference, r.distance)
}
