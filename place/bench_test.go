package place

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
)

// benchInput is 1,000 jobs of the Gavel workloads on 256 nodes of 8 GPUs
// (V100 with NVLink, P100 and K80 on PCIe, in thirds), with the default
// models (IASP, IAPP, similarity). The jobs ask for 1 GPU (60%), 2, 4 or
// 8 (10% each) or any of 1, 2, 4, 8 (10%), arrive a minute apart, and a
// tenth give their memory: more than the 2,048 GPUs hold alone, so the
// later ones must share or stay unplaceable.
func benchInput(b *testing.B) Input {
	b.Helper()
	m, err := LoadModels(fitGavel(b, "iasp", "iapp", "similarity"), DefaultModelNames)
	if err != nil {
		b.Fatal(err)
	}
	spec := &cluster.Spec{Version: 1, Name: "bench-256x8", Groups: []cluster.NodeGroup{
		{Name: "v100", Count: 86, GPUType: "v100", GPUs: 8, MemoryGB: 16, Link: cluster.LinkNVLink, LinkGBs: 300, NetworkGB: 3.125},
		{Name: "p100", Count: 85, GPUType: "p100", GPUs: 8, MemoryGB: 16, Link: cluster.LinkPCIe, LinkGBs: 16, NetworkGB: 1.25},
		{Name: "k80", Count: 85, GPUType: "k80", GPUs: 8, MemoryGB: 12, Link: cluster.LinkPCIe, LinkGBs: 16, NetworkGB: 1.25},
	}}
	d := gavelData(b)
	ws := d.Workloads()
	r := rand.New(rand.NewPCG(1, 2))
	l := &jobs.List{Version: jobs.Version, Name: "bench"}
	for i := range 1000 {
		var deg []int
		switch x := r.IntN(10); {
		case x < 6:
			deg = []int{1}
		case x == 6:
			deg = []int{2}
		case x == 7:
			deg = []int{4}
		case x == 8:
			deg = []int{8}
		default:
			deg = []int{1, 2, 4, 8}
		}
		j := jobs.Job{ID: fmt.Sprintf("j%04d", i), Workload: ws[r.IntN(len(ws))], Degrees: deg, Steps: 1000, ArrivalS: float64(60 * i)}
		if r.IntN(10) == 0 {
			j.MemoryGB = float64(2 + r.IntN(10))
		}
		l.Jobs = append(l.Jobs, j)
	}
	return Input{Cluster: spec, Jobs: l, Data: d, Models: m}
}

// BenchmarkExport1000Jobs256Nodes times a whole export (placement and
// tables; loading the data and models excluded):
//
//	taskset -c 0 go test -run '^$' -bench Export1000 -benchtime 3x ./place/
func BenchmarkExport1000Jobs256Nodes(b *testing.B) {
	in := benchInput(b)
	opt := ExportOptions{Thresholds: policy.DefaultThresholds, Now: fixedNow}
	var f *policy.File
	b.ResetTimer()
	for range b.N {
		var err error
		if f, err = Export(in, opt); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	placed, shared := 0, 0
	for _, d := range f.Decisions {
		if d.Status == policy.StatusPlaced {
			placed++
			if len(d.ColocatedWith) > 0 {
				shared++
			}
		}
	}
	b.ReportMetric(float64(placed), "placed")
	b.ReportMetric(float64(shared), "shared")
}

// BenchmarkPlace1000Jobs256Nodes times the placement alone (the engine,
// estimates cached across iterations as in one export).
func BenchmarkPlace1000Jobs256Nodes(b *testing.B) {
	in := benchInput(b)
	eng, err := New(in.Cluster.Nodes(), NewEstimator(in.Data, in.Models), Options{Thresholds: policy.DefaultThresholds, Unit: in.Data.Unit})
	if err != nil {
		b.Fatal(err)
	}
	var tasks []*Task
	for i := range in.Jobs.Jobs {
		tasks = append(tasks, resolve(&in.Jobs.Jobs[i], in.Data, in.Models, 3).task)
	}
	b.ResetTimer()
	for range b.N {
		eng.Reset()
		for _, t := range tasks {
			eng.Place(t)
		}
	}
}
