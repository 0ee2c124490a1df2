package nvmlfake_test

import (
	"fmt"

	"github.com/coloc-dev/coloc/profile/sampler"
	"github.com/coloc-dev/coloc/profile/sampler/nvml"
	"github.com/coloc-dev/coloc/profile/sampler/nvml/nvmlfake"
)

// A scripted H200 behind coloc's NVML sampler: one tick, then the next.
func Example() {
	f := nvmlfake.NewH200(1)
	s, err := nvml.Open(f.Server, nvml.DefaultOptions)
	if err != nil {
		panic(err)
	}
	defer s.Close()
	col := map[string]int{}
	for i, c := range s.Counters() {
		col[c.Name] = i
	}
	target := sampler.Target{Devices: []int{0}, Procs: map[string][]int{"a": {nvmlfake.PIDA}}}
	for tick := 0; tick < 2; tick++ {
		rs, err := s.Sample(target)
		if err != nil {
			panic(err)
		}
		fmt.Printf("tick %d: gpu_util %v %%, workload a uses %v %% of the SMs\n", tick, rs[0].Values[col["gpu_util"]], rs[1].Values[col["proc_sm_util"]])
		f.Advance()
	}
	fmt.Println(s.Devices()[0].Type, s.Devices()[0].GPM)
	// Output:
	// tick 0: gpu_util 50 %, workload a uses NaN % of the SMs
	// tick 1: gpu_util 51 %, workload a uses 60 % of the SMs
	// h200 true
}
