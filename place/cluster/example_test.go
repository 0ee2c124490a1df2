package cluster_test

import (
	"fmt"
	"strings"

	"github.com/coloc-dev/coloc/place/cluster"
)

func Example() {
	spec, err := cluster.Parse(strings.NewReader(`
version: 1
name: small
nodes:
  - {name: v100, count: 2, gpu_type: v100, gpus: 8, link: nvlink, link_gbytes_s: 300}
  - {name: k80, gpu_type: k80, gpus: 4, link: pcie, link_gbytes_s: 16}
`), "small.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range spec.Nodes() {
		fmt.Printf("%s: %d %s, %s %g GB/s\n", n.Name, n.GPUs, n.GPUType, n.Link, n.LinkGBs)
	}
	_, err = cluster.Parse(strings.NewReader("version: 1\nnodes:\n  - {name: a, gpu_type: v100}\n"), "bad.yaml")
	fmt.Println(err)
	// Output:
	// v100-0: 8 v100, nvlink 300 GB/s
	// v100-1: 8 v100, nvlink 300 GB/s
	// k80: 4 k80, pcie 16 GB/s
	// bad.yaml: line 3: node 1 ("a"): gpus must be at least 1, got 0
}
