package sim

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
)

func TestLoadJobsReadsAGavelTrace(t *testing.T) {
	path := "../examples/traces/physical_cluster/small_test.trace"
	l, err := LoadJobs(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := LoadTrace(path)
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
	ds, err := datasets.Open(filepath.Join("..", "datasets", "reference", "gavel"))
	if err != nil {
		t.Fatal(err)
	}
	truth, _ := NewMeasured(ds.Solo, ds.Pairs)
	spec, _ := cluster.Load(filepath.Join("..", "examples", "cluster.yaml"))
	topo, _ := NewTopology(spec)
	l, err := jobs.Parse(strings.NewReader(`version: 1
jobs:
  - {id: fixed, workload: "Transformer (batch size 128)", degrees: [2], steps: 7}
  - {id: choose, workload: "ResNet-50 (batch size 64)", degrees: [1, 2, 4, 8], steps: 9, arrival_s: 5}
  - {id: timed, workload: A3C, duration: 1h}
  - {id: described, model: {class: cnn, params: 1e7}, steps: 3}
`), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
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
		r, _ := truth.Solo("A3C", Shape{GPUType: typ, GPUs: 1})
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

// A trace read as a job list (policy export) holds up to jobs.MaxJobs
// jobs, far more than the 100,000 the list once held; one more is refused
// naming the file and the line.
func TestLoadJobsLimit(t *testing.T) {
	line := "A\tcmd\t-n\t1\t5\t0\t1\n"
	path := filepath.Join(t.TempDir(), "big.trace")
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 100_001)), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := LoadJobs(path)
	if err != nil || len(l.Jobs) != 100_001 {
		t.Fatalf("a trace of 100,001 jobs: %v", err)
	}
	if testing.Short() {
		t.Skip("writes a trace of a million lines")
	}
	if err := os.WriteFile(path, []byte(strings.Repeat(line, jobs.MaxJobs+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadJobs(path)
	if want := fmt.Sprintf("%s:%d: more than the %d jobs a trace may hold", path, jobs.MaxJobs+1, jobs.MaxJobs); err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}
