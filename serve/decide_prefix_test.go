package serve

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/policies"
)

// On the recorded trace prefix on which sim/policies'
// TestExportIsOnlineOnATracePrefix checks that the export takes the
// simulator's coloc's first decisions (msr trace 103959's first 24 jobs
// on Gavel's 16 GPUs, their degrees up to the trace's scale factor),
// /v1/decide answers the export's decisions: the simulator, the export
// and the service decide alike on one state.
func TestDecideOnTheTracePrefix(t *testing.T) {
	s := newServer(t, Options{})
	tr, err := sim.LoadTrace("../examples/traces/msr/103959.trace")
	if err != nil {
		t.Fatal(err)
	}
	list := &jobs.List{Version: jobs.Version, Name: "prefix"}
	var items []string
	for i, j := range tr.Jobs[:24] {
		var ds []int
		for d := 1; d <= j.Scale; d *= 2 {
			ds = append(ds, d)
		}
		job := jobs.Job{ID: fmt.Sprintf("t%d", i), Workload: j.Workload, Degrees: ds, Steps: j.Steps}
		list.Jobs = append(list.Jobs, job)
		w, _ := json.Marshal(job.Workload)
		d, _ := json.Marshal(ds)
		items = append(items, fmt.Sprintf(`{"id": %q, "workload": %s, "degrees": %s, "steps": %d}`, job.ID, w, d, job.Steps))
	}
	clusterYAML, err := os.ReadFile("../examples/cluster-gavel-16.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cv any
	if err := yaml.Unmarshal(clusterYAML, &cv); err != nil {
		t.Fatal(err)
	}
	cj, _ := json.Marshal(cv)
	body := `{"cluster": ` + string(cj) + `, "jobs": {"version": 1, "name": "prefix", "jobs": [` + strings.Join(items, ", ") + `]}}`
	got := postDecide(t, s.Handler(), body)

	spec, err := cluster.Load("../examples/cluster-gavel-16.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f := coreExport(t, spec, list)
	a, _ := json.Marshal(got.Decisions)
	b, _ := json.Marshal(f.Decisions)
	if string(a) != string(b) {
		t.Errorf("served %s\nexport  %s", a, b)
	}
	placed, shared := 0, 0
	for _, d := range got.Decisions {
		if d.Status == policy.StatusPlaced {
			placed++
		}
		shared += len(d.ColocatedWith)
	}
	if len(got.Decisions) != 24 || placed == 0 || shared == 0 {
		t.Errorf("%d decisions, %d placed, %d sharing: want 24, jobs placed and some sharing", len(got.Decisions), placed, shared)
	}
}

// coreExport is `coloc policy export`'s default on the list: the decision
// core's decisions, durations unknown, up to two jobs a GPU, with the
// models and data the test server serves.
func coreExport(t *testing.T, spec *cluster.Spec, list *jobs.List) *policy.File {
	t.Helper()
	data, err := place.LoadData([]string{refData})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := place.LoadModels(fitted(t), place.DefaultModelNames)
	if err != nil {
		t.Fatal(err)
	}
	th := policy.DefaultThresholds
	th.MinNormalized = 0
	d, err := policies.ExportSettings{Rule: policy.RuleDecisionCore, Durations: "attained", MaxPerGPU: th.MaxPerGPU, Efficiency: th.ScalingEfficiency}.Decider()
	if err != nil {
		t.Fatal(err)
	}
	f, err := place.Export(place.Input{Cluster: spec, Jobs: list, Data: data, Models: ms}, place.ExportOptions{Thresholds: th, Decide: d})
	if err != nil {
		t.Fatal(err)
	}
	return f
}
