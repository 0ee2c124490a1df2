package policy_test

import (
	"fmt"

	"github.com/coloc-dev/coloc/policy"
)

// A scheduler reads the policy once, then asks it: where a job of the job
// list goes, which reference a new job resembles (and so its GPU type and
// degree), and whether two jobs may share a GPU. The fixture holds Gavel's
// measured throughputs of four workloads on K80 and V100 GPUs.
func Example() {
	p, err := policy.Load("testdata/small.json")
	if err != nil {
		fmt.Println(err)
		return
	}

	// A job of the job list.
	d, _ := p.Decision("lm-a")
	fmt.Printf("%s: %s on %s GPU %v with %v, at %.2f of its solo throughput\n",
		d.Job, d.Status, d.Placement[0].Node, d.Placement[0].GPUs, d.ColocatedWith, d.PredictedNormalized)

	// A job that was never profiled: a CNN of 22 M parameters.
	job := policy.Descriptor{Params: 2.2e7, FLOPsPerSample: 7.5e9, BatchSize: 48,
		Layers: map[string]int{"conv": 49, "linear": 1}, Class: "cnn", Precision: "fp32"}
	nb := p.Nearest(job, 1)[0]
	ref := nb.Reference
	fmt.Printf("new job resembles %s (distance %.3f): %s, %d GPUs\n", ref.Workload, nb.Distance, ref.GPUType, ref.Degree)

	// Its degree when only 1, or 4, GPUs of that type are free.
	for _, free := range []int{1, 4} {
		pt, _ := p.ChooseDegree(ref.Workload, ref.GPUType, free)
		fmt.Printf("  %d free: degree %d (%.2f iterations/s, efficiency %.2f)\n", free, pt.Degree, pt.Throughput, pt.Efficiency)
	}

	// May two workloads share a V100? Both must keep MinNormalized.
	const lm, tr = "LM (batch size 20)", "Transformer (batch size 64)"
	a, _ := p.Normalized("v100", 1, lm, tr)
	b, _ := p.Normalized("v100", 1, tr, lm)
	ok, _ := p.Colocate("v100", 1, lm, tr)
	fmt.Printf("%s with %s: %.2f and %.2f, threshold %.2f: co-locate %v\n", lm, tr, a, b, p.File.Thresholds.MinNormalized, ok)
	// Output:
	// lm-a: placed on v100-a GPU [2] with [rec-b], at 0.86 of its solo throughput
	// new job resembles ResNet-50 (batch size 64) (distance 0.033): v100, 2 GPUs
	//   1 free: degree 1 (4.39 iterations/s, efficiency 1.00)
	//   4 free: degree 2 (7.92 iterations/s, efficiency 0.90)
	// LM (batch size 20) with Transformer (batch size 64): 0.81 and 0.75, threshold 0.80: co-locate false
}
