package decide_test

import (
	"fmt"

	"github.com/coloc-dev/coloc/place/decide"
)

// rates is what a scheduler knows: solo throughput per workload and GPU
// type, and the normalized throughput of a workload next to a partner.
type rates struct{}

func (rates) Solo(w, gpuType string, gpus int, spread bool) (float64, bool) {
	per := map[string]float64{"v100": 3, "k80": 1}[gpuType]
	return per * float64(gpus), per > 0
}

func (rates) Pair(w, partner, gpuType string, gpus int) (float64, bool) {
	return map[string]float64{"train|infer": 0.8, "infer|train": 0.7}[w+"|"+partner], true
}

// Score ranks the nodes an arriving job could go to: a free V100 first,
// then sharing a V100 with a tenant the pair is worth it with (0.8 + 0.7
// > 1), ahead of a free K80, which is three times slower; a node whose
// GPUs cannot be split offers only free GPUs.
func ExampleScore() {
	job := decide.Job{Workload: "train", Degrees: []int{1}}
	nodes := []decide.Node{
		{Name: "k80-a", Type: "k80", GPUs: 2},
		{Name: "v100-busy", Type: "v100", GPUs: 1, Tenants: []decide.Tenant{{Workload: "infer", GPUs: []int{0}}}},
		{Name: "v100-free", Type: "v100", GPUs: 2, Tenants: []decide.Tenant{{Workload: "infer", GPUs: []int{0}}}},
		{Name: "v100-whole", Type: "v100", GPUs: 1, Tenants: []decide.Tenant{{Workload: "infer", GPUs: []int{0}}}, Exclusive: true},
	}
	for _, o := range decide.Score(rates{}, 2, job, nodes) {
		fmt.Printf("%-10s GPUs %v partner %-5q score %.2f\n", o.Node, o.GPUs, o.Partner, o.Score)
	}
	// Output:
	// v100-free  GPUs [1] partner ""    score 1.00
	// v100-busy  GPUs [0] partner "infer" score 0.50
	// k80-a      GPUs [0] partner ""    score 0.33
	// v100-whole GPUs [] partner ""    score 0.00
}
