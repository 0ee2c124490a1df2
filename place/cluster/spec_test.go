package cluster

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const good = `version: 1
name: toy
nodes:
  - name: v
    count: 2
    gpu_type: v100
    gpus: 4
    gpu_memory_gb: 16
    link: nvlink
    link_gbytes_s: 300
    network_gbytes_s: 3.125
  - {name: k, gpu_type: k80, gpus: 8}
`

func TestParseExpands(t *testing.T) {
	s, err := Parse(strings.NewReader(good), "toy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	nodes := s.Nodes()
	var names []string
	for _, n := range nodes {
		names = append(names, n.Name)
	}
	if want := []string{"v-0", "v-1", "k"}; !reflect.DeepEqual(names, want) {
		t.Errorf("nodes %v, want %v", names, want)
	}
	want := Node{Name: "v-1", GPUType: "v100", GPUs: 4, MemoryGB: 16, Link: LinkNVLink, LinkGBs: 300, NetworkGB: 3.125}
	if nodes[1] != want {
		t.Errorf("node 1 %+v, want %+v", nodes[1], want)
	}
	if got, want := s.GPUs(), []TypeCount{{"k80", 8}, {"v100", 8}}; !reflect.DeepEqual(got, want) {
		t.Errorf("GPUs %v, want %v", got, want)
	}
}

func TestParseErrorsNameTheNode(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"no version", "nodes: []\n", "c.yaml: no version (want version: 1)"},
		{"version", "version: 2\nnodes: []\n", "c.yaml: unsupported cluster spec version 2 (this build reads version 1)"},
		{"no nodes", "version: 1\n", "c.yaml: no nodes"},
		{"unknown top field", "version: 1\nnodez: []\n", "field nodez not found"},
		{"unknown node field", "version: 1\nnodes:\n  - name: a\n    gpu_type: v100\n    gpu: 4\n", `c.yaml: line 5: node entry: unknown field "gpu"`},
		{"gpus", "version: 1\nnodes:\n  - name: a\n    gpu_type: v100\n", `c.yaml: line 3: node 1 ("a"): gpus must be at least 1, got 0`},
		{"type", "version: 1\nnodes:\n  - {name: a, gpus: 1}\n  - {name: b, gpus: 2}\n", `c.yaml: line 3: node 1 ("a"): gpu_type is required`},
		{"second node", "version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 1}\n  - {name: b, gpu_type: x, gpus: 1, link: infiniband}\n",
			`c.yaml: line 4: node 2 ("b"): link "infiniband" is not one of nvlink, nvswitch, pcie`},
		{"count", "version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 1, count: -1}\n", `node 1 ("a"): count -1 is negative`},
		{"duplicate", "version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 1, count: 2}\n  - {name: a-1, gpu_type: x, gpus: 1}\n",
			`c.yaml: line 4: node 2 ("a-1"): node name "a-1" is also used by node 1`},
		{"bandwidth", "version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 1, network_gbytes_s: -1}\n", `c.yaml: line 3: node 1 ("a"): network_gbytes_s -1: want a number from 0 to 1e+06`},
		{"huge gpus", "version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 9223372036854775807}\n", `c.yaml: line 3: node 1 ("a"): gpus 9223372036854775807 is above the limit of 64 GPUs a node`},
		{"huge count", "version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 8, count: 9223372036854775807}\n", `count 9223372036854775807 is above the limit of 1048576`},
		{"100M GPUs", "version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 8, count: 12500000}\n", `count 12500000 is above`},
		{"total", "version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 64, count: 16384}\n  - {name: b, gpu_type: x, gpus: 1}\n",
			`c.yaml: line 4: node 2 ("b"): the cluster holds more than 1048576 GPUs`},
		{"memory nan", "version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 1, gpu_memory_gb: .nan}\n", `c.yaml: line 3: gpu_memory_gb: .nan is not a plain decimal number`},
		{"link inf", "version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 1, link_gbytes_s: .inf}\n", `link_gbytes_s: .inf is not a plain decimal number`},
		{"newline name", "version: 1\nnodes:\n  - {name: \"a\\nb\", gpu_type: x, gpus: 1}\n", `node 1 ("a\nb"): name must be UTF-8 text`},
		{"control type", "version: 1\nnodes:\n  - {name: a, gpu_type: \"x\\x1b[31m\", gpus: 1}\n", `gpu_type must be UTF-8 text`},
		{"duplicate key", "version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 1, gpus: 2}\n", `mapping key "gpus" already defined`},
		{"fraction gpus", "version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 2.5}\n", `c.yaml: line 3: gpus: 2.5 is not a whole number`},
		{"separator count", "version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 1, count: 1_0}\n", `count: 1_0 is not a plain decimal number`},
		{"second document", "version: 1\nnodes:\n  - {name: a, gpu_type: x, gpus: 1}\n---\nversion: 1\n", `c.yaml: line 4: a second YAML document`},
		{"empty", "", "c.yaml: empty cluster spec"},
		{"not yaml", "version: [\n", "c.yaml: yaml:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(c.in), "c.yaml")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// The shipped examples are valid specs.
func TestExamplesLoad(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "examples", "cluster*.yaml"))
	heldout, _ := filepath.Glob(filepath.Join("..", "..", "examples", "heldout", "cluster*.yaml"))
	if len(paths) == 0 || len(heldout) == 0 {
		t.Fatal("no examples/cluster*.yaml or examples/heldout/cluster*.yaml")
	}
	paths = append(paths, heldout...)
	for _, p := range paths {
		if _, err := Load(p); err != nil {
			t.Error(err)
		}
	}
}
