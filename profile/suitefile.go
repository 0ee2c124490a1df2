package profile

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/internal/yamlstrict"
	"go.yaml.in/yaml/v3"
)

// fields is the YAML form of a workload and of the defaults; a nil field is
// unset.
type fields struct {
	Name      *string  `yaml:"name"`
	Class     *string  `yaml:"class"`
	Command   []string `yaml:"command"`
	BatchSize *int     `yaml:"batch_size"`
	Precision *string  `yaml:"precision"`
	Protocol  *string  `yaml:"protocol"`
	Steps     *int     `yaml:"steps"`
	MemoryGB  *float64 `yaml:"memory_gb"`
	EstStepS  *float64 `yaml:"est_step_s"`
	line      int      // of the item in the file; 0 for the defaults
}

type suiteFile struct {
	Version     int      `yaml:"version"`
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Defaults    fields   `yaml:"defaults"`
	Workloads   []fields `yaml:"workloads"`
}

// maxSuiteBytes is the largest suite file read: a suite of thousands of
// workloads is far smaller.
const maxSuiteBytes = 16 << 20

// LoadSuite reads and validates a suite file.
func LoadSuite(path string) (*Suite, error) {
	data, err := inputfile.ReadAll(path, "a suite file", maxSuiteBytes)
	if err != nil {
		return nil, err
	}
	return ParseSuite(data, path)
}

var (
	namePattern        = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	placeholderPattern = regexp.MustCompile(`\{[^{}]*\}`)
	yamlLinePattern    = regexp.MustCompile(`^\s*line (\d+): (.*)$`)
	yamlUnknownField   = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
)

// ParseSuite validates suite file content; path names the file in errors
// and gives {suite_dir}. Every error names the file and, where it can, the
// line.
func ParseSuite(data []byte, path string) (*Suite, error) {
	var head struct {
		Version any `yaml:"version"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return nil, yamlError(path, err)
	}
	switch v := head.Version.(type) {
	case nil:
		return nil, fmt.Errorf("%s: no version (want \"version: %d\")", path, suiteVersion)
	case int:
		if v != suiteVersion {
			return nil, fmt.Errorf("%s: suite version %d is not known to this coloc (it reads version %d)", path, v, suiteVersion)
		}
	default:
		return nil, fmt.Errorf("%s: suite version %v is not known to this coloc (it reads version %d)", path, v, suiteVersion)
	}

	var f suiteFile
	if err := yamlstrict.Decode(data, &f); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlError(path, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlError(path, err)
	}
	lines := workloadLines(&root)
	for i := range f.Workloads {
		if i < len(lines) {
			f.Workloads[i].line = lines[i]
		}
	}

	s := &Suite{Name: f.Name, Description: f.Description, Path: path, Dir: filepath.Dir(path)}
	if f.Name == "" {
		return nil, fmt.Errorf("%s: no suite name (want \"name: ...\")", path)
	}
	if err := CheckName("suite name", f.Name); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !utf8.ValidString(f.Description) {
		return nil, fmt.Errorf("%s: description: not UTF-8 text", path)
	}
	if f.Defaults.Name != nil {
		return nil, fmt.Errorf("%s: defaults cannot set a name", path)
	}
	if len(f.Workloads) == 0 {
		return nil, fmt.Errorf("%s: no workloads", path)
	}
	first := map[string]int{}
	for i, raw := range f.Workloads {
		where := fmt.Sprintf("%s:%d", path, raw.line)
		w, err := resolve(raw, f.Defaults)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if j, dup := first[w.Name]; dup {
			return nil, fmt.Errorf("%s: workload %q: duplicate name (first at line %d)", where, w.Name, f.Workloads[j].line)
		}
		first[w.Name] = i
		s.Workloads = append(s.Workloads, w)
	}
	return s, nil
}

// resolve applies the defaults to one workload and checks it.
func resolve(w, d fields) (workload, error) {
	out := workload{Precision: "fp32", Protocol: protocolColoc, Class: "other"}
	pick := func(v, def *string, dst *string) {
		if v != nil {
			*dst = *v
		} else if def != nil {
			*dst = *def
		}
	}
	if w.Name == nil || *w.Name == "" {
		return out, errors.New("workload without a name")
	}
	out.Name = *w.Name
	pick(w.Class, d.Class, &out.Class)
	pick(w.Precision, d.Precision, &out.Precision)
	pick(w.Protocol, d.Protocol, &out.Protocol)
	out.Command = w.Command
	if out.Command == nil {
		out.Command = d.Command
	}
	for _, p := range []struct {
		v, def *int
		dst    *int
	}{{w.BatchSize, d.BatchSize, &out.BatchSize}, {w.Steps, d.Steps, &out.Steps}} {
		if p.v != nil {
			*p.dst = *p.v
		} else if p.def != nil {
			*p.dst = *p.def
		}
	}
	for _, p := range []struct {
		v, def *float64
		dst    *float64
	}{{w.MemoryGB, d.MemoryGB, &out.MemoryGB}, {w.EstStepS, d.EstStepS, &out.EstStepS}} {
		if p.v != nil {
			*p.dst = *p.v
		} else if p.def != nil {
			*p.dst = *p.def
		}
	}
	return out, out.check()
}

// workloadLines returns the line of each item of the top-level workloads
// sequence.
func workloadLines(root *yaml.Node) []int {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return nil
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "workloads" {
			var out []int
			for _, item := range m.Content[i+1].Content {
				out = append(out, item.Line)
			}
			return out
		}
	}
	return nil
}

// yamlError rewrites the YAML library's errors as "file:line: message".
func yamlError(path string, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLinePattern.FindStringSubmatch(msg); m != nil {
			return fmt.Errorf("%s:%s: %s", path, m[1], m[2])
		}
		return fmt.Errorf("%s: %s", path, msg)
	}
	var msgs []string
	for _, e := range te.Errors {
		m := yamlLinePattern.FindStringSubmatch(e)
		if m == nil {
			msgs = append(msgs, fmt.Sprintf("%s: %s", path, e))
			continue
		}
		text := m[2]
		if u := yamlUnknownField.FindStringSubmatch(text); u != nil {
			text = fmt.Sprintf("unknown field %q", u[1])
		}
		msgs = append(msgs, fmt.Sprintf("%s:%s: %s", path, m[1], text))
	}
	return errors.New(strings.Join(msgs, "\n"))
}
