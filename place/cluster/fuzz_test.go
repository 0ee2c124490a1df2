package cluster

import (
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary text to the cluster spec reader. It must never
// panic or allocate without bound (counts are bounded before a spec is
// expanded); a spec it accepts expands to at most MaxGPUs GPUs, each node
// within MaxGPUsPerNode, with unique node names. Seeds: the test spec and
// the corpus under testdata/fuzz/FuzzParse (run by `go test`).
func FuzzParse(f *testing.F) {
	f.Add(good)
	f.Add("version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 9223372036854775807}\n")
	f.Add("version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 8, count: 100000000}\n")
	f.Add("version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 1, gpu_memory_gb: .nan}\n")
	f.Add("version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 1, gpus: 2}\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse(strings.NewReader(text), "fuzz.yaml")
		if err != nil {
			return
		}
		total, names := 0, map[string]bool{}
		for _, n := range s.Nodes() {
			if n.GPUs < 1 || n.GPUs > MaxGPUsPerNode || !(n.MemoryGB >= 0) || !(n.LinkGBs >= 0) || !(n.NetworkGB >= 0) {
				t.Fatalf("accepted node %+v", n)
			}
			if names[n.Name] {
				t.Fatalf("node name %q twice", n.Name)
			}
			names[n.Name] = true
			total += n.GPUs
		}
		sum := 0
		for _, c := range s.GPUs() {
			sum += c.GPUs
		}
		if total > MaxGPUs || total != sum {
			t.Fatalf("%d GPUs in the nodes, %d by type (limit %d)", total, sum, MaxGPUs)
		}
	})
}
