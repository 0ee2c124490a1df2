package policy

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// bigPolicy returns a valid policy of the size: jobs on nodes of
// 8 GPUs (v100, p100, k80 in turn), six jobs a node (one of 4 GPUs, two
// sharing 2 GPUs, one alone on a GPU, two sharing one), with the tables of
// workloads workloads on the three GPU types. Numbers are drawn with a
// fixed seed: the file's size and shape matter, not its values.
func bigPolicy(jobs, nodes, workloads int) *File {
	r := rand.New(rand.NewPCG(1, 2))
	types := []string{"v100", "p100", "k80"}
	f := &File{
		Format: Format, Version: Version,
		Provenance:     Provenance{Tool: "bench", Created: "2026-01-01T00:00:00Z"},
		Thresholds:     DefaultThresholds,
		ThroughputUnit: "samples/s",
		Cluster:        Cluster{Name: "bench"},
		Similarity: Similarity{Distance: "gower",
			Numeric: []string{"log10_params", "log10_flops_per_sample", "log10_batch_size", "layers_conv", "layers_lstm"},
			Lo:      []float64{5, 6, 0, 0, 0}, Hi: []float64{9, 12, 4, 60, 4},
			Categorical: []string{"class", "precision"}},
	}
	names := make([]string, workloads)
	for i := range names {
		names[i] = fmt.Sprintf("workload-%02d", i)
		v := []float64{5 + 4*r.Float64(), 6 + 6*r.Float64(), 4 * r.Float64(), float64(r.IntN(61)), float64(r.IntN(5))}
		ref := Reference{Workload: names[i], Cat: []string{[]string{"cnn", "rnn", "transformer"}[i%3], "fp32"}, GPUType: types[i%3], Degree: 1 << r.IntN(4)}
		for k := range v {
			ref.Num = append(ref.Num, &v[k])
		}
		f.Similarity.References = append(f.Similarity.References, ref)
	}
	for _, typ := range types {
		for _, a := range names {
			for _, b := range names {
				f.Pairs = append(f.Pairs, Pair{GPUType: typ, Degree: 1, Workload: a, Partner: b, Normalized: 0.3 + 0.8*r.Float64(), Source: "measured"})
			}
			var pts []ScalingPoint
			t1 := 10 + 100*r.Float64()
			for d := 1; d <= 8; d *= 2 {
				t := t1 * float64(d) * (1 - 0.1*float64(d-1)*r.Float64()/7)
				f.Solo = append(f.Solo, Solo{Workload: a, GPUType: typ, Degree: d, Throughput: t})
				pts = append(pts, ScalingPoint{Degree: d, Throughput: t})
			}
			pts = ScalingPoints(pts)
			best, _ := ChooseDegree(pts, f.Thresholds.ScalingEfficiency, 0)
			f.Scaling = append(f.Scaling, Scaling{Workload: a, GPUType: typ, Points: pts, Chosen: best.Degree, Source: "bench"})
		}
	}
	shapes := []struct {
		gpus []int
		with int // index in the node's shapes of the job sharing the GPUs, -1 none
	}{{[]int{0, 1, 2, 3}, -1}, {[]int{4, 5}, 2}, {[]int{4, 5}, 1}, {[]int{6}, -1}, {[]int{7}, 5}, {[]int{7}, 4}}
	for n := 0; n < nodes; n++ {
		node := Node{Name: fmt.Sprintf("node-%03d", n), GPUType: types[n%3], GPUs: 8, MemoryGB: 32, Link: "nvlink", LinkGBs: 300, NetworkGB: 3.125}
		f.Cluster.Nodes = append(f.Cluster.Nodes, node)
		for s, sh := range shapes {
			if len(f.Decisions) == jobs {
				break
			}
			d := Decision{Job: fmt.Sprintf("job-%03d-%d", n, s), Workload: names[r.IntN(workloads)], Status: StatusPlaced,
				GPUType: node.GPUType, Degree: len(sh.gpus), Placement: []NodeGPUs{{Node: node.Name, GPUs: sh.gpus}},
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

func TestBigPolicyIsValid(t *testing.T) {
	for _, jobs := range []int{1000, 1001, 1002, 1536} {
		f := bigPolicy(jobs, 256, 26)
		if _, err := New(f, "big"); err != nil {
			t.Fatalf("%d jobs: %v", jobs, err)
		}
		if len(f.Decisions) != jobs || len(f.Cluster.Nodes) != 256 || len(f.Pairs) != 3*26*26 {
			t.Errorf("%d decisions, %d nodes, %d pairs", len(f.Decisions), len(f.Cluster.Nodes), len(f.Pairs))
		}
	}
}

// BenchmarkDecode reads, validates and indexes a policy of 1,000 jobs on
// 256 nodes of 8 GPUs with the tables of 26 workloads on 3 GPU types.
func BenchmarkDecode(b *testing.B) {
	data, err := Encode(bigPolicy(1000, 256, 26))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(bytes.NewReader(data), "big"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookup times each lookup a scheduler makes on that policy.
func BenchmarkLookup(b *testing.B) {
	p, err := New(bigPolicy(1000, 256, 26), "big")
	if err != nil {
		b.Fatal(err)
	}
	f := p.File
	q := Descriptor{Params: 2.5e7, FLOPsPerSample: 8e9, BatchSize: 48, Layers: map[string]int{"conv": 53}, Class: "cnn", Precision: "fp32"}
	var sink int
	benches := []struct {
		name string
		fn   func(i int)
	}{
		{"Decision", func(i int) {
			d, _ := p.Decision(f.Decisions[i%len(f.Decisions)].Job)
			sink += d.Degree
		}},
		{"Normalized", func(i int) {
			x := f.Pairs[i%len(f.Pairs)]
			if v, ok := p.Normalized(x.GPUType, x.Degree, x.Workload, x.Partner); ok && v > 0 {
				sink++
			}
		}},
		{"Colocate", func(i int) {
			x := f.Pairs[i%len(f.Pairs)]
			if ok, _ := p.Colocate(x.GPUType, x.Degree, x.Workload, x.Partner); ok {
				sink++
			}
		}},
		{"ChooseDegree", func(i int) {
			x := f.Scaling[i%len(f.Scaling)]
			pt, _ := p.ChooseDegree(x.Workload, x.GPUType, 1+i%8)
			sink += pt.Degree
		}},
		{"Nearest3", func(i int) {
			sink += len(p.Nearest(q, 3))
		}},
	}
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				bb.fn(i)
				i++
			}
		})
	}
	if sink == 0 {
		b.Fatal("no lookup found anything")
	}
}
