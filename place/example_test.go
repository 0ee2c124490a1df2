package place_test

import (
	"fmt"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/policy"
)

// table is a tiny estimator: every job runs 10 iterations/s alone on one
// v100; "lm" and "cnn" share well, two "cnn" badly.
type table struct{}

func (table) Solo(t *place.Task, typ string, d int, spread bool) (float64, bool) {
	return 10, typ == "v100" && d == 1
}

func (table) Normalized(_ place.Level, t, p *place.Task, _ string, _ int) (float64, string, bool) {
	y := map[[2]string]float64{{"lm", "cnn"}: 0.9, {"cnn", "lm"}: 0.85, {"cnn", "cnn"}: 0.5}[[2]string{t.Workload, p.Workload}]
	return y, "table", y > 0
}

// Three one-GPU jobs on a node of two GPUs: the two CNNs interfere badly,
// so they take a GPU each, and the LM shares with the first.
func Example() {
	nodes := []cluster.Node{{Name: "n0", GPUType: "v100", GPUs: 2}}
	eng, err := place.New(nodes, table{}, place.Options{Thresholds: policy.DefaultThresholds, Unit: datasets.UnitItersPerS})
	if err != nil {
		panic(err)
	}
	for _, t := range []*place.Task{
		{ID: "a", Workload: "cnn", Degrees: []int{1}},
		{ID: "b", Workload: "cnn", Degrees: []int{1}},
		{ID: "c", Workload: "lm", Degrees: []int{1}},
		{ID: "d", Workload: "cnn", Degrees: []int{1}},
	} {
		p, why := eng.Place(t)
		if p == nil {
			fmt.Printf("%s: unplaceable: %s\n", t.ID, why)
			continue
		}
		y, _ := p.Normalized(table{}, place.NodeLevel)
		fmt.Printf("%s: %s GPU %d, %d partner(s), normalized %.2f\n", t.ID, eng.Node(p.GPUs[0].Node).Name, p.GPUs[0].Index, len(p.Partners()), y)
	}
	// Output:
	// a: n0 GPU 0, 0 partner(s), normalized 1.00
	// b: n0 GPU 1, 0 partner(s), normalized 1.00
	// c: n0 GPU 0, 1 partner(s), normalized 0.90
	// d: unplaceable: v100: no room (0 of 2 GPUs free; no co-location keeps every job at or above 0.80 predicted normalized throughput)
}
