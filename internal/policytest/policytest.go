// Package policytest makes policy files for tests and benchmarks of the
// packages that read or write them.
package policytest

import (
	"fmt"
	"math/rand/v2"

	"github.com/coloc-dev/coloc/policy"
)

// Big returns a valid policy of a large cluster's size: jobs on nodes of
// 8 GPUs (v100, p100, k80 in turn), six jobs a node (one of 4 GPUs, two
// sharing 2 GPUs, one alone on a GPU, two sharing one), with the tables of
// workloads workloads on the three GPU types. Numbers are drawn with a
// fixed seed: the file's size and shape matter, not its values.
func Big(jobs, nodes, workloads int) *policy.File {
	r := rand.New(rand.NewPCG(1, 2))
	types := []string{"v100", "p100", "k80"}
	f := &policy.File{
		Format: policy.Format, Version: policy.Version,
		Provenance:     policy.Provenance{Tool: "bench", Created: "2026-01-01T00:00:00Z"},
		Thresholds:     policy.DefaultThresholds,
		ThroughputUnit: "samples/s",
		Cluster:        policy.Cluster{Name: "bench"},
		Similarity: policy.Similarity{Distance: "gower",
			Numeric: []string{"log10_params", "log10_flops_per_sample", "log10_batch_size", "layers_conv", "layers_lstm"},
			Lo:      []float64{5, 6, 0, 0, 0}, Hi: []float64{9, 12, 4, 60, 4},
			Categorical: []string{"class", "precision"}},
	}
	names := make([]string, workloads)
	for i := range names {
		names[i] = fmt.Sprintf("workload-%02d", i)
		v := []float64{5 + 4*r.Float64(), 6 + 6*r.Float64(), 4 * r.Float64(), float64(r.IntN(61)), float64(r.IntN(5))}
		ref := policy.Reference{Workload: names[i], Cat: []string{[]string{"cnn", "rnn", "transformer"}[i%3], "fp32"}, GPUType: types[i%3], Degree: 1 << r.IntN(4)}
		for k := range v {
			ref.Num = append(ref.Num, &v[k])
		}
		f.Similarity.References = append(f.Similarity.References, ref)
	}
	for _, typ := range types {
		for _, a := range names {
			for _, b := range names {
				f.Pairs = append(f.Pairs, policy.Pair{GPUType: typ, Degree: 1, Workload: a, Partner: b, Normalized: 0.3 + 0.8*r.Float64(), Source: "measured"})
			}
			var pts []policy.ScalingPoint
			t1 := 10 + 100*r.Float64()
			for d := 1; d <= 8; d *= 2 {
				t := t1 * float64(d) * (1 - 0.1*float64(d-1)*r.Float64()/7)
				f.Solo = append(f.Solo, policy.Solo{Workload: a, GPUType: typ, Degree: d, Throughput: t})
				pts = append(pts, policy.ScalingPoint{Degree: d, Throughput: t})
			}
			pts = policy.ScalingPoints(pts)
			best, _ := policy.ChooseDegree(pts, f.Thresholds.ScalingEfficiency, 0)
			f.Scaling = append(f.Scaling, policy.Scaling{Workload: a, GPUType: typ, Points: pts, Chosen: best.Degree, Source: "bench"})
		}
	}
	shapes := []struct {
		gpus []int
		with int // index in the node's shapes of the job sharing the GPUs, -1 none
	}{{[]int{0, 1, 2, 3}, -1}, {[]int{4, 5}, 2}, {[]int{4, 5}, 1}, {[]int{6}, -1}, {[]int{7}, 5}, {[]int{7}, 4}}
	for n := 0; n < nodes; n++ {
		node := policy.Node{Name: fmt.Sprintf("node-%03d", n), GPUType: types[n%3], GPUs: 8, MemoryGB: 32, Link: "nvlink", LinkGBs: 300, NetworkGB: 3.125}
		f.Cluster.Nodes = append(f.Cluster.Nodes, node)
		for s, sh := range shapes {
			if len(f.Decisions) == jobs {
				break
			}
			d := policy.Decision{Job: fmt.Sprintf("job-%03d-%d", n, s), Workload: names[r.IntN(workloads)], Status: policy.StatusPlaced,
				GPUType: node.GPUType, Degree: len(sh.gpus), Placement: []policy.NodeGPUs{{Node: node.Name, GPUs: sh.gpus}},
				PredictedNormalized: 1, Reason: "bench"}
			if sh.with >= 0 {
				d.ColocatedWith = []string{fmt.Sprintf("job-%03d-%d", n, sh.with)}
				d.PredictedNormalized = 0.9
			}
			f.Decisions = append(f.Decisions, d)
		}
	}
	// The partner of a node's last job may be beyond the job count.
	placed := map[string]bool{}
	for _, d := range f.Decisions {
		placed[d.Job] = true
	}
	for i := range f.Decisions {
		if d := &f.Decisions[i]; len(d.ColocatedWith) > 0 && !placed[d.ColocatedWith[0]] {
			d.ColocatedWith, d.PredictedNormalized = nil, 1
		}
	}
	return f
}
