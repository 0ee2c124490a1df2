package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/internal/yamlstrict"
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

// MaxFileBytes is the largest spec file read; a spec of thousands of node
// groups is far smaller.
const MaxFileBytes = 16 << 20

// Load reads and validates the spec at path.
func Load(path string) (*Spec, error) {
	data, err := inputfile.ReadAll(path, "a cluster spec", MaxFileBytes)
	if err != nil {
		return nil, err
	}
	return Parse(bytes.NewReader(data), path)
}

// Parse reads and validates a spec (one YAML document, numbers in plain
// decimals, whole numbers for counts: internal/yamlstrict); name is used
// in messages.
func Parse(r io.Reader, name string) (*Spec, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s: more than the %d MiB a cluster spec may hold", name, MaxFileBytes>>20)
	}
	var s Spec
	if err := yamlstrict.Decode(data, &s); err != nil {
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

// Limits of a spec. They are far above real clusters (the largest GPU
// nodes hold 8 to 16 GPUs) and keep a spec's expansion small: every GPU is
// a few words of the placement engine's memory, and counts stay far from
// integer overflow.
const (
	MaxGPUsPerNode = 64      // gpus of one node
	MaxGPUs        = 1 << 20 // GPUs of the whole cluster (count x gpus, summed)
	MaxMemoryGB    = 1 << 16 // gpu_memory_gb
	MaxBandwidth   = 1e6     // link_gbytes_s and network_gbytes_s, GB/s
	MaxNameLen     = 253     // bytes of a node or GPU type name
)

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
	if !utf8.ValidString(s.Name) {
		return errors.New("name: not UTF-8 text")
	}
	seen := map[string]int{}
	total := 0
	for i, g := range s.Groups {
		where := fmt.Sprintf("node %d (%q)", i+1, g.Name)
		if g.Line > 0 {
			where = fmt.Sprintf("line %d: %s", g.Line, where)
		}
		if err := g.validate(); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		// Both factors are bounded by validate, so the product cannot
		// overflow.
		if total += g.count() * g.GPUs; total > MaxGPUs {
			return fmt.Errorf("%s: the cluster holds more than %d GPUs (the limit of a spec)", where, MaxGPUs)
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
	case !plainName(g.Name):
		return fmt.Errorf("name must be UTF-8 text of at most %d bytes without white space or control characters", MaxNameLen)
	case g.Count < 0:
		return fmt.Errorf("count %d is negative", g.Count)
	case g.Count > MaxGPUs:
		return fmt.Errorf("count %d is above the limit of %d GPUs a cluster", g.Count, MaxGPUs)
	case g.GPUType == "":
		return errors.New("gpu_type is required")
	case !plainName(g.GPUType):
		return fmt.Errorf("gpu_type must be UTF-8 text of at most %d bytes without white space or control characters", MaxNameLen)
	case g.GPUs < 1:
		return fmt.Errorf("gpus must be at least 1, got %d", g.GPUs)
	case g.GPUs > MaxGPUsPerNode:
		return fmt.Errorf("gpus %d is above the limit of %d GPUs a node", g.GPUs, MaxGPUsPerNode)
	case !inRange(g.MemoryGB, MaxMemoryGB):
		return fmt.Errorf("gpu_memory_gb %v: want a number from 0 to %d", g.MemoryGB, MaxMemoryGB)
	case g.Link != "" && !contains(LinkKinds, g.Link):
		return fmt.Errorf("link %q is not one of %s", g.Link, strings.Join(LinkKinds, ", "))
	case !inRange(g.LinkGBs, MaxBandwidth):
		return fmt.Errorf("link_gbytes_s %v: want a number from 0 to %g", g.LinkGBs, MaxBandwidth)
	case !inRange(g.NetworkGB, MaxBandwidth):
		return fmt.Errorf("network_gbytes_s %v: want a number from 0 to %g", g.NetworkGB, MaxBandwidth)
	}
	return nil
}

// inRange reports whether x is a number from 0 to hi (NaN is not).
func inRange(x, hi float64) bool { return x >= 0 && x <= hi }

// plainName reports whether s is UTF-8 text of at most MaxNameLen bytes
// without white space or control characters.
func plainName(s string) bool {
	if len(s) > MaxNameLen || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return false
		}
	}
	return true
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
