package sim_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim"
)

// A Gavel trace read as a job list (sim.LoadJobs) exports: one placed
// decision per trace job, at its scale factor.
func TestExportAGavelTrace(t *testing.T) {
	gavel := filepath.Join("..", "datasets", "reference", "gavel")
	d, err := model.LoadData(gavel)
	if err != nil {
		t.Fatal(err)
	}
	// The cheap models: the decisions of this trace rest on free GPUs.
	fitted, err := model.FitAll(d, []string{"bias", "linear", "similarity"}, model.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := model.WriteDir(dir, d, fitted); err != nil {
		t.Fatal(err)
	}
	m, err := place.LoadModels(dir, place.ModelNames{Cluster: "bias", Node: "linear"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := place.LoadData([]string{gavel})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := cluster.Load(filepath.Join("..", "examples", "cluster-gavel.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := sim.LoadJobs(filepath.Join("..", "examples", "traces", "physical_cluster", "small_test.trace"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := place.Export(place.Input{Cluster: spec, Jobs: list, Data: data, Models: m},
		place.ExportOptions{Thresholds: policy.DefaultThresholds, Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Decisions) != 20 {
		t.Fatalf("%d decisions", len(f.Decisions))
	}
	for i, dec := range f.Decisions {
		j := list.Jobs[i]
		if dec.Status != policy.StatusPlaced || dec.Degree != j.Degrees[0] || dec.Workload != j.Workload {
			t.Errorf("job %s (%s x%d): %+v", j.ID, j.Workload, j.Degrees[0], dec)
		}
	}
}
