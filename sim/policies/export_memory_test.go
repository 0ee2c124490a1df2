package policies

import (
	"testing"

	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
)

// Two jobs on one GPU share it when their memory is unknown or fits; when
// their memory_gb together exceed the GPU's, one waits; a job larger than
// the GPU is not placed on it at all.
func TestCoreExportChecksMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("fits IASP, IAPP and the similarity model (seconds)")
	}
	models, data := gavelPlaceInputs(t)
	spec := &cluster.Spec{Version: cluster.Version, Name: "one", Groups: []cluster.NodeGroup{{Name: "v", GPUType: "v100", GPUs: 1, MemoryGB: 16}}}
	th := policy.DefaultThresholds
	th.MinNormalized = 0
	cx := CoreExport{MaxPerGPU: 2, Efficiency: th.ScalingEfficiency}
	export := func(memA, memB float64) []policy.Decision {
		t.Helper()
		list := &jobs.List{Version: jobs.Version, Jobs: []jobs.Job{
			{ID: "a", Workload: "A3C", Degrees: []int{1}, Steps: 1000, MemoryGB: memA},
			{ID: "b", Workload: "Transformer (batch size 16)", Degrees: []int{1}, Steps: 1000, MemoryGB: memB},
		}}
		f, err := place.Export(place.Input{Cluster: spec, Jobs: list, Data: data, Models: models}, place.ExportOptions{Thresholds: th, Decide: cx.Decider(), DecisionsOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		return f.Decisions
	}
	status := func(ds []policy.Decision) string {
		s := ""
		for _, d := range ds {
			s += d.Job + ":" + d.Status + " "
		}
		return s
	}
	if got := status(export(0, 0)); got != "a:placed b:placed " {
		t.Fatalf("memory unknown: %s, want both placed, sharing the GPU (the premise of the test)", got)
	}
	if got := status(export(6, 9)); got != "a:placed b:placed " {
		t.Errorf("6 + 9 GB on 16 GB: %s, want both placed", got)
	}
	if got := status(export(8, 9)); got == "a:placed b:placed " {
		t.Errorf("8 + 9 GB on 16 GB: %s, want one waiting", got)
	}
	for _, d := range export(20, 0) {
		if d.Job == "a" && d.Status == policy.StatusPlaced {
			t.Errorf("a 20 GB job placed on a 16 GB GPU: %+v", d)
		}
	}
}
