package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Version is the only spec version this package reads.
const Version = 1

// Link kinds of the intra-node interconnect.
const (
	LinkNVLink   = "nvlink"
	LinkNVSwitch = "nvswitch"
	LinkPCIe     = "pcie"
)

// LinkKinds lists the accepted link kinds.
var LinkKinds = []string{LinkNVLink, LinkNVSwitch, LinkPCIe}

// Spec is a cluster spec as written: node groups, each expanded into Count
// identical nodes by Nodes.
type Spec struct {
	Version int         `yaml:"version"`
	Name    string      `yaml:"name"`
	Groups  []NodeGroup `yaml:"nodes"`
}

// NodeGroup is one entry of the spec's node list: Count identical nodes.
type NodeGroup struct {
	Name      string  `yaml:"name"`
	Count     int     `yaml:"count"` // 0 in the file means 1
	GPUType   string  `yaml:"gpu_type"`
	GPUs      int     `yaml:"gpus"`
	MemoryGB  float64 `yaml:"gpu_memory_gb"`
	Link      string  `yaml:"link"`
	LinkGBs   float64 `yaml:"link_gbytes_s"`
	NetworkGB float64 `yaml:"network_gbytes_s"`
	// Line is the line of the entry in the file (0 when built in code).
	Line int `yaml:"-"`
}

// Node is one node of an expanded spec.
type Node struct {
	Name      string
	GPUType   string
	GPUs      int
	MemoryGB  float64 // per GPU
	Link      string
	LinkGBs   float64 // intra-node bandwidth, GB/s
	NetworkGB float64 // inter-node bandwidth, GB/s
}

var groupFields = []string{"name", "count", "gpu_type", "gpus", "gpu_memory_gb", "link", "link_gbytes_s", "network_gbytes_s"}

// UnmarshalYAML decodes one node entry, refusing unknown keys and keeping
// the entry's line for error messages.
func (g *NodeGroup) UnmarshalYAML(v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a node entry must be a mapping", v.Line)
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k := v.Content[i]
		if !contains(groupFields, k.Value) {
			return fmt.Errorf("line %d: node entry: unknown field %q (want %s)", k.Line, k.Value, strings.Join(groupFields, ", "))
		}
	}
	type plain NodeGroup
	if err := v.Decode((*plain)(g)); err != nil {
		return err
	}
	g.Line = v.Line
	return nil
}

// Load reads and validates the spec at path.
func Load(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(bytes.NewReader(data), path)
}

// Parse reads and validates a spec; name is used in messages.
func Parse(r io.Reader, name string) (*Spec, error) {
	dec := yaml.NewDecoder(r)
	dec.KnownFields(true)
	var s Spec
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty cluster spec", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &s, nil
}

// Validate checks the version and every node group; the error names the
// group (by name and line when known).
func (s *Spec) Validate() error {
	if s.Version != Version {
		if s.Version == 0 {
			return fmt.Errorf("no version (want version: %d)", Version)
		}
		return fmt.Errorf("unsupported cluster spec version %d (this build reads version %d)", s.Version, Version)
	}
	if len(s.Groups) == 0 {
		return errors.New("no nodes")
	}
	seen := map[string]int{}
	for i, g := range s.Groups {
		where := fmt.Sprintf("node %d (%q)", i+1, g.Name)
		if g.Line > 0 {
			where = fmt.Sprintf("line %d: %s", g.Line, where)
		}
		if err := g.validate(); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		for _, n := range g.names() {
			if j, dup := seen[n]; dup {
				return fmt.Errorf("%s: node name %q is also used by node %d", where, n, j+1)
			}
			seen[n] = i
		}
	}
	return nil
}

func (g NodeGroup) validate() error {
	switch {
	case g.Name == "":
		return errors.New("name is required")
	case strings.ContainsAny(g.Name, " \t\n"):
		return errors.New("name must not contain white space")
	case g.Count < 0:
		return fmt.Errorf("count %d is negative", g.Count)
	case g.GPUType == "":
		return errors.New("gpu_type is required")
	case g.GPUs < 1:
		return fmt.Errorf("gpus must be at least 1, got %d", g.GPUs)
	case g.MemoryGB < 0:
		return fmt.Errorf("gpu_memory_gb %v is negative", g.MemoryGB)
	case g.Link != "" && !contains(LinkKinds, g.Link):
		return fmt.Errorf("link %q is not one of %s", g.Link, strings.Join(LinkKinds, ", "))
	case g.LinkGBs < 0:
		return fmt.Errorf("link_gbytes_s %v is negative", g.LinkGBs)
	case g.NetworkGB < 0:
		return fmt.Errorf("network_gbytes_s %v is negative", g.NetworkGB)
	}
	return nil
}

func (g NodeGroup) count() int {
	if g.Count == 0 {
		return 1
	}
	return g.Count
}

// names returns the names of the group's nodes: the group name when it has
// one node, else name-0, name-1, ...
func (g NodeGroup) names() []string {
	n := g.count()
	if n == 1 {
		return []string{g.Name}
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", g.Name, i)
	}
	return out
}

// Nodes expands the groups into nodes, in file order.
func (s *Spec) Nodes() []Node {
	var out []Node
	for _, g := range s.Groups {
		for _, name := range g.names() {
			out = append(out, Node{
				Name: name, GPUType: g.GPUType, GPUs: g.GPUs, MemoryGB: g.MemoryGB,
				Link: g.Link, LinkGBs: g.LinkGBs, NetworkGB: g.NetworkGB,
			})
		}
	}
	return out
}

// GPUs returns the number of GPUs of each type, sorted by type.
func (s *Spec) GPUs() []TypeCount {
	m := map[string]int{}
	for _, g := range s.Groups {
		m[g.GPUType] += g.count() * g.GPUs
	}
	out := make([]TypeCount, 0, len(m))
	for t, n := range m {
		out = append(out, TypeCount{GPUType: t, GPUs: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GPUType < out[j].GPUType })
	return out
}

// TypeCount is a number of GPUs of one type.
type TypeCount struct {
	GPUType string
	GPUs    int
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
