package yamlstrict

import (
	"errors"
	"io"
	"strings"
	"testing"
)

type node struct {
	Name string  `yaml:"name"`
	GPUs int     `yaml:"gpus"`
	Mem  float64 `yaml:"gpu_memory_gb"`
}

type spec struct {
	Version int            `yaml:"version"`
	Nodes   []node         `yaml:"nodes"`
	Degrees []int          `yaml:"degrees"`
	Layers  map[string]int `yaml:"layers"`
	Any     any            `yaml:"any"`
}

func TestDecode(t *testing.T) {
	var s spec
	ok := "version: 1\nnodes:\n  - name: a\n    gpus: 8\n    gpu_memory_gb: 80.5\ndegrees: [1, 2]\nlayers: {conv: 3}\nany: 1.5e3\n"
	if err := Decode([]byte(ok), &s); err != nil || s.Nodes[0].GPUs != 8 || s.Nodes[0].Mem != 80.5 || s.Layers["conv"] != 3 {
		t.Fatalf("%+v, %v", s, err)
	}
	for _, c := range []struct{ in, want string }{
		{"version: 1\nnodes:\n  - gpus: 2.5\n", "line 3: gpus: 2.5 is not a whole number"},
		{"degrees: [1.5]\n", "line 1: degrees: 1.5 is not a whole number"},
		{"version: 1.0\n", "line 1: version: 1.0 is not a whole number"},
		{"layers: {conv: 2e1}\n", "line 1: conv: 2e1 is not a whole number"},
		{"nodes:\n  - gpus: 1_000\n", "line 2: gpus: 1_000 is not a plain decimal number"},
		{"nodes:\n  - gpus: 0x10\n", "gpus: 0x10 is not a plain decimal number"},
		{"nodes:\n  - gpu_memory_gb: .inf\n", "gpu_memory_gb: .inf is not a plain decimal number"},
		{"any: 0o17\n", "any: 0o17 is not a plain decimal number"},
		{"version: 1\n---\nversion: 2\n", "line 2: a second YAML document"},
		{"version: 1\nbogus: 2\n", "field bogus not found"},
		{"a: &x 1\nversion: *x\n", "aliases (*name) are not read"},
	} {
		var s spec
		err := Decode([]byte(c.in), &s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	if err := Decode([]byte("# nothing\n"), &s); !errors.Is(err, io.EOF) {
		t.Errorf("empty: %v, want io.EOF", err)
	}
}
