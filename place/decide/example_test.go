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

// Assign decides for a whole cluster at once: here two V100s and a K80 on
// two nodes, and three jobs waiting. The answer lists the jobs placed, in
// the state's order, each with its GPUs; a job left out would wait.
// Nothing is known of sizes yet, so a job's priority is per GPU-second of
// its reference placement: job 8 may run on two GPUs, which makes it the
// larger job, so jobs 7 and 9 take the V100s and job 8 the K80.
func ExampleCore_Assign() {
	core, err := decide.New(rates{}, decide.Options{RestartPenalty: 30, Round: 360, MaxPerGPU: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	st := &decide.State{
		GPUs: []decide.GPU{{Node: 0, Type: "v100"}, {Node: 0, Type: "v100"}, {Node: 1, Type: "k80"}},
		Jobs: []decide.Job{
			{ID: 7, Workload: "train", Arrival: 0, Degrees: []int{1}},
			{ID: 8, Workload: "infer", Arrival: 5, Degrees: []int{1, 2}},
			{ID: 9, Workload: "train", Arrival: 9, Degrees: []int{1}},
		},
	}
	for _, p := range core.Assign(st) {
		fmt.Printf("job %d on GPUs %v\n", st.Jobs[p.Job].ID, p.GPUs)
	}
	// Output:
	// job 7 on GPUs [0]
	// job 8 on GPUs [2]
	// job 9 on GPUs [1]
}
