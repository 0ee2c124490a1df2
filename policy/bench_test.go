package policy_test

import (
	"bytes"
	"testing"

	"github.com/coloc-dev/coloc/internal/policytest"
	"github.com/coloc-dev/coloc/policy"
)

func TestBigPolicyIsValid(t *testing.T) {
	for _, jobs := range []int{1000, 1001, 1002, 1536} {
		f := policytest.Big(jobs, 256, 26)
		if _, err := policy.New(f, "big"); err != nil {
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
	data, err := policy.Encode(policytest.Big(1000, 256, 26))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := policy.Decode(bytes.NewReader(data), "big"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookup times each lookup a scheduler makes on that policy.
func BenchmarkLookup(b *testing.B) {
	p, err := policy.New(policytest.Big(1000, 256, 26), "big")
	if err != nil {
		b.Fatal(err)
	}
	f := p.File
	q := policy.Descriptor{Params: 2.5e7, FLOPsPerSample: 8e9, BatchSize: 48, Layers: map[string]int{"conv": 53}, Class: "cnn", Precision: "fp32"}
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
