package jobs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/internal/yamlstrict"
	"go.yaml.in/yaml/v3"
)

// Version is the only job list version this package reads.
const Version = 1

// List is a job list.
type List struct {
	Version int    `yaml:"version"`
	Name    string `yaml:"name"`
	Jobs    []Job  `yaml:"jobs"`
	// File is the name the list was read from ("" when built in code).
	File string `yaml:"-"`
}

// Job is one job of a list.
type Job struct {
	ID string `yaml:"id"`
	// Workload names a workload of the data (a job type of Gavel's, a
	// workload of a coloc campaign).
	Workload string `yaml:"workload"`
	// Model describes a workload the data may not hold; nil when not given.
	Model *Model `yaml:"model"`
	// BatchSize is the per-GPU batch size; 0 when not given.
	BatchSize int `yaml:"batch_size"`
	// Degrees are the allowed numbers of GPUs, ascending; [1] when the
	// file gives none.
	Degrees []int `yaml:"degrees"`
	// Steps is the number of training iterations; 0 when Duration is given.
	Steps int64 `yaml:"steps"`
	// Duration is the run time alone; 0 when Steps is given.
	Duration Duration `yaml:"duration"`
	// ArrivalS is the arrival time, seconds from the start of the list.
	ArrivalS float64 `yaml:"arrival_s"`
	// MemoryGB is the peak memory per GPU in 10^9 bytes; 0 when unknown.
	MemoryGB float64 `yaml:"memory_gb"`
	// Line is the job's line in the file (0 when built in code).
	Line int `yaml:"-"`
}

// Model is the descriptor of a workload's model: the fields of the
// workload protocol's meta line.
type Model struct {
	Name      string         `yaml:"name"`
	Class     string         `yaml:"class"`
	Params    float64        `yaml:"params"`
	FLOPs     float64        `yaml:"flops_per_sample"`
	Layers    map[string]int `yaml:"layers"`
	BatchSize int            `yaml:"batch_size"`
	Precision string         `yaml:"precision"`
}

// Duration is a time.Duration written with its unit ("90m", "6h").
type Duration time.Duration

// UnmarshalYAML reads a Go duration string and refuses a bare number.
func (d *Duration) UnmarshalYAML(v *yaml.Node) error {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		return fmt.Errorf("line %d: duration %q has no unit: write it as a duration, e.g. 3600s, 90m or 6h", v.Line, v.Value)
	}
	x, err := time.ParseDuration(v.Value)
	if err != nil {
		return fmt.Errorf("line %d: duration %q: want a duration such as 3600s, 90m or 6h", v.Line, v.Value)
	}
	*d = Duration(x)
	return nil
}

// MarshalYAML writes the duration as a string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// Seconds returns the duration in seconds.
func (d Duration) Seconds() float64 { return time.Duration(d).Seconds() }

var (
	jobFields   = []string{"id", "workload", "model", "batch_size", "degrees", "steps", "duration", "arrival_s", "memory_gb"}
	modelFields = []string{"name", "class", "params", "flops_per_sample", "layers", "batch_size", "precision"}
)

// UnmarshalYAML decodes one job, refusing unknown keys with their line and
// keeping the job's line for error messages.
func (j *Job) UnmarshalYAML(v *yaml.Node) error {
	if err := knownKeys(v, "job", jobFields); err != nil {
		return err
	}
	type plain Job
	if err := v.Decode((*plain)(j)); err != nil {
		return err
	}
	j.Line = v.Line
	return nil
}

// UnmarshalYAML decodes a model descriptor, refusing unknown keys.
func (m *Model) UnmarshalYAML(v *yaml.Node) error {
	if err := knownKeys(v, "model", modelFields); err != nil {
		return err
	}
	type plain Model
	return v.Decode((*plain)(m))
}

func knownKeys(v *yaml.Node, what string, fields []string) error {
	if v.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a %s entry must be a mapping", v.Line, what)
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k := v.Content[i]
		if !contains(fields, k.Value) {
			return fmt.Errorf("line %d: %s entry: unknown field %q (want %s)", k.Line, what, k.Value, strings.Join(fields, ", "))
		}
	}
	return nil
}

// Load reads and validates the job list at path.
func Load(path string) (*List, error) {
	data, err := inputfile.ReadAll(path, "a job list", MaxFileBytes)
	if err != nil {
		return nil, err
	}
	return Parse(bytes.NewReader(data), path)
}

// Parse reads and validates a job list (one YAML document, numbers in
// plain decimals, whole numbers for counts: internal/yamlstrict); name is
// used in messages.
func Parse(r io.Reader, name string) (*List, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s: more than the %d MiB a job list may hold", name, MaxFileBytes>>20)
	}
	var l List
	if err := yamlstrict.Decode(data, &l); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty job list", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	l.File = name
	if len(l.Jobs) > MaxFileJobs {
		return nil, fmt.Errorf("%s: %d jobs, more than the %d a YAML or JSON job list may hold (its parser holds every job at once); give a longer list as a Gavel trace (at most %d jobs)",
			name, len(l.Jobs), MaxFileJobs, MaxJobs)
	}
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &l, nil
}

// Validate checks the version and every job, fills the default degrees
// and sorts them. The error names the job, by id and line when known.
func (l *List) Validate() error {
	if l.Version != Version {
		if l.Version == 0 {
			return fmt.Errorf("no version (want version: %d)", Version)
		}
		return fmt.Errorf("unsupported job list version %d (this build reads version %d)", l.Version, Version)
	}
	if len(l.Jobs) == 0 {
		return errors.New("no jobs")
	}
	if len(l.Jobs) > MaxJobs {
		return fmt.Errorf("%d jobs, more than the %d a job list may hold", len(l.Jobs), MaxJobs)
	}
	if !plainText(l.Name) {
		return fmt.Errorf("name: want UTF-8 text of at most %d bytes without control characters", MaxTextLen)
	}
	seen := map[string]int{}
	for i := range l.Jobs {
		j := &l.Jobs[i]
		if err := j.validate(); err != nil {
			return fmt.Errorf("%s: %w", j.where(i), err)
		}
		if k, dup := seen[j.ID]; dup {
			return fmt.Errorf("%s: id %q is also used by job %d", j.where(i), j.ID, k+1)
		}
		seen[j.ID] = i
	}
	return nil
}

func (j *Job) where(i int) string {
	w := fmt.Sprintf("job %d (%q)", i+1, j.ID)
	if j.Line > 0 {
		w = fmt.Sprintf("line %d: %s", j.Line, w)
	}
	return w
}

// Limits of a job list. They are far above real jobs and keep every later
// computation finite: a job's run time in steps or seconds stays within a
// time.Duration (about 292 years), a degree within the largest cluster a
// spec may describe (place/cluster.MaxGPUs).
const (
	MaxDegree    = 1 << 20 // GPUs of one job
	MaxBatchSize = 1 << 20 // batch_size
	MaxSteps     = 1e12    // steps
	MaxArrivalS  = 1e9     // arrival_s, about 31 years
	MaxMemoryGB  = 1 << 16 // memory_gb
	MaxLayers    = 1 << 20 // a count of model.layers
	MaxTextLen   = 1024    // bytes of an id, a workload or a model's name, class or precision
	// MaxJobs is the most jobs of one list: a snapshot of a queue, placed
	// at once. It is the most jobs of a Gavel trace (package sim), which
	// `coloc policy export` reads as a job list. A policy file holds a
	// decision of about 250 bytes for each job left waiting (a few hundred
	// for a placed one, whose number the cluster bounds): 10^6 decisions
	// are about 255 MB, within the 1 GiB a policy reader loads
	// (policy.MaxFileBytes).
	MaxJobs = 1_000_000
	// MaxFileJobs is the most jobs of a YAML or JSON job list file (Load,
	// Parse): its parser holds the whole document as a tree of nodes,
	// some 3 KB a job (reading a list of 10^6 jobs took 3.4 GB and 33 s of
	// CPU; 100,000 take 0.34 GB). A longer list is given as a Gavel trace,
	// read a line at a time.
	MaxFileJobs = 100_000
	// MaxFileBytes is the largest job list file read.
	MaxFileBytes = 256 << 20
)

// Classes are the model classes a descriptor may name: those of the
// workload protocol (docs/workloads.md) and of the descriptors of the
// shipped data. Another class would match no reference by class, and be
// matched to one all the same by its other descriptors.
var Classes = []string{"cnn", "rnn", "transformer", "recommender", "gan", "rl", "other"}

// plainText reports whether s is UTF-8 text of at most MaxTextLen bytes
// without control characters.
func plainText(s string) bool {
	if len(s) > MaxTextLen || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

func (j *Job) validate() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case j.ID == "":
		return errors.New("id is required")
	case strings.TrimSpace(j.ID) != j.ID || strings.ContainsAny(j.ID, "\t\n"):
		return errors.New("id must not start or end with white space or hold tabs or newlines")
	case !plainText(j.ID):
		return fmt.Errorf("id must be UTF-8 text of at most %d bytes without control characters", MaxTextLen)
	case !plainText(j.Workload):
		return fmt.Errorf("workload %q: want UTF-8 text of at most %d bytes without control characters", j.Workload, MaxTextLen)
	case j.Workload == "" && j.Model == nil:
		return errors.New("give a workload of the data, or a model descriptor for a workload never profiled")
	case j.BatchSize < 0:
		return fmt.Errorf("batch_size %d is negative", j.BatchSize)
	case j.BatchSize > MaxBatchSize:
		return fmt.Errorf("batch_size %d is above the limit of %d", j.BatchSize, MaxBatchSize)
	case j.Steps < 0:
		return fmt.Errorf("steps %d is negative", j.Steps)
	case j.Steps > MaxSteps:
		return fmt.Errorf("steps %d is above the limit of %g", j.Steps, float64(MaxSteps))
	case j.Duration < 0:
		return fmt.Errorf("duration %v is negative", time.Duration(j.Duration))
	case j.Steps == 0 && j.Duration == 0:
		return errors.New("give steps (iterations) or duration (run time alone, e.g. 6h)")
	case j.Steps > 0 && j.Duration > 0:
		return errors.New("give steps or duration, not both")
	case j.ArrivalS < 0 || !finite(j.ArrivalS) || j.ArrivalS > MaxArrivalS:
		return fmt.Errorf("arrival_s %v: want a number of seconds from 0 to %g", j.ArrivalS, float64(MaxArrivalS))
	case j.MemoryGB < 0 || !finite(j.MemoryGB) || j.MemoryGB > MaxMemoryGB:
		return fmt.Errorf("memory_gb %v: want a number from 0 to %d", j.MemoryGB, MaxMemoryGB)
	}
	if len(j.Degrees) == 0 {
		j.Degrees = []int{1}
	}
	for _, d := range j.Degrees {
		if d < 1 {
			return fmt.Errorf("degrees: %d is not a positive number of GPUs", d)
		}
		if d > MaxDegree {
			return fmt.Errorf("degrees: %d is above the limit of %d GPUs", d, MaxDegree)
		}
	}
	sort.Ints(j.Degrees)
	for i := 1; i < len(j.Degrees); i++ {
		if j.Degrees[i] == j.Degrees[i-1] {
			return fmt.Errorf("degrees: %d is listed twice", j.Degrees[i])
		}
	}
	if m := j.Model; m != nil {
		switch {
		case !(m.Params >= 0) || !finite(m.Params):
			return fmt.Errorf("model: params %v: want a finite number >= 0", m.Params)
		case !(m.FLOPs >= 0) || !finite(m.FLOPs):
			return fmt.Errorf("model: flops_per_sample %v: want a finite number >= 0", m.FLOPs)
		case m.BatchSize < 0 || m.BatchSize > MaxBatchSize:
			return fmt.Errorf("model: batch_size %d: want 0 to %d", m.BatchSize, MaxBatchSize)
		case !plainText(m.Name) || !plainText(m.Class) || !plainText(m.Precision):
			return fmt.Errorf("model: name, class and precision must be UTF-8 text of at most %d bytes without control characters", MaxTextLen)
		case m.Class != "" && !contains(Classes, m.Class):
			return fmt.Errorf("model: class %q is not one of %s", m.Class, strings.Join(Classes, ", "))
		}
		for _, k := range sortedKeys(m.Layers) {
			switch n := m.Layers[k]; {
			case n < 0:
				return fmt.Errorf("model: layers: %s has a negative count %d", k, n)
			case n > MaxLayers:
				return fmt.Errorf("model: layers: %s count %d is above the limit of %d", k, n, MaxLayers)
			case !plainText(k):
				return fmt.Errorf("model: layers: kind %q: want UTF-8 text without control characters", k)
			}
		}
		if m.Params == 0 && m.FLOPs == 0 && len(m.Layers) == 0 && m.Class == "" && m.BatchSize == 0 && j.BatchSize == 0 {
			return errors.New("model: the descriptor says nothing (give params, flops_per_sample, layers, class or batch_size)")
		}
	}
	return nil
}

// Batch returns the job's per-GPU batch size: batch_size, else the model
// descriptor's, else 0.
func (j *Job) Batch() int {
	if j.BatchSize > 0 {
		return j.BatchSize
	}
	if j.Model != nil {
		return j.Model.BatchSize
	}
	return 0
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
