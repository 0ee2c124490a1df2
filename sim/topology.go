package sim

import (
	"fmt"
	"sort"

	"github.com/coloc-dev/coloc/place/cluster"
)

// GPU is one GPU of the simulated cluster. ID is its index in
// Topology.GPUs; Node its node's index in Topology.Nodes.
type GPU struct {
	ID    int
	Node  int
	Index int // on its node
	Type  string
}

// Node is one node of the simulated cluster.
type Node struct {
	cluster.Node
	GPUs []int // IDs of its GPUs, in order
}

// Topology is the fixed part of the cluster: nodes and GPUs. Policies read
// it; nobody changes it after NewTopology.
type Topology struct {
	Name  string
	Nodes []Node
	GPUs  []GPU
	types []string
	ofTyp map[string][]int // node indices by GPU type
}

// NewTopology expands a validated cluster spec.
func NewTopology(s *cluster.Spec) (*Topology, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	t := &Topology{Name: s.Name, ofTyp: map[string][]int{}}
	for _, n := range s.Nodes() {
		node := Node{Node: n}
		for i := 0; i < n.GPUs; i++ {
			id := len(t.GPUs)
			t.GPUs = append(t.GPUs, GPU{ID: id, Node: len(t.Nodes), Index: i, Type: n.GPUType})
			node.GPUs = append(node.GPUs, id)
		}
		if _, seen := t.ofTyp[n.GPUType]; !seen {
			t.types = append(t.types, n.GPUType)
		}
		t.ofTyp[n.GPUType] = append(t.ofTyp[n.GPUType], len(t.Nodes))
		t.Nodes = append(t.Nodes, node)
	}
	sort.Strings(t.types)
	return t, nil
}

// Types returns the GPU types of the cluster, sorted.
func (t *Topology) Types() []string { return t.types }

// NodesOf returns the indices of the nodes with GPUs of type gpuType.
func (t *Topology) NodesOf(gpuType string) []int { return t.ofTyp[gpuType] }

// Count returns the number of GPUs of type gpuType.
func (t *Topology) Count(gpuType string) int {
	n := 0
	for _, i := range t.ofTyp[gpuType] {
		n += len(t.Nodes[i].GPUs)
	}
	return n
}

// LargestNode returns the most GPUs one node of type gpuType has.
func (t *Topology) LargestNode(gpuType string) int {
	n := 0
	for _, i := range t.ofTyp[gpuType] {
		n = max(n, len(t.Nodes[i].GPUs))
	}
	return n
}

// ShapeOf returns the shape of a set of GPUs, or an error when they are
// unknown, repeated or of more than one type.
func (t *Topology) ShapeOf(gpus []int) (Shape, error) {
	if len(gpus) == 0 {
		return Shape{}, fmt.Errorf("no GPUs")
	}
	seen := map[int]bool{}
	var s Shape
	node := -1
	for _, g := range gpus {
		if g < 0 || g >= len(t.GPUs) {
			return Shape{}, fmt.Errorf("GPU %d does not exist (the cluster has %d)", g, len(t.GPUs))
		}
		if seen[g] {
			return Shape{}, fmt.Errorf("GPU %d given twice", g)
		}
		seen[g] = true
		gpu := t.GPUs[g]
		switch {
		case s.GPUType == "":
			s.GPUType, node = gpu.Type, gpu.Node
		case gpu.Type != s.GPUType:
			return Shape{}, fmt.Errorf("GPUs of two types (%s and %s)", s.GPUType, gpu.Type)
		case gpu.Node != node:
			s.Spread = true
		}
	}
	s.GPUs = len(gpus)
	return s, nil
}
