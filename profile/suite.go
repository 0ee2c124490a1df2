package profile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// suiteVersion is the only suite file version this build reads.
const suiteVersion = 1

// Workload classes, precisions and protocols a suite may name.
var (
	classes    = []string{"cnn", "rnn", "recommender", "other"}
	precisions = []string{"fp32", "amp"}
	protocols  = []string{protocolColoc, protocolNone}
)

// Protocols of a workload command.
const (
	// protocolColoc commands print the JSON lines of the coloc protocol.
	protocolColoc = "coloc"
	// protocolNone commands are measured by wall time over Steps steps.
	protocolNone = "none"
)

// Placeholders a command may use; the harness substitutes them.
const (
	placeholderPython   = "{python}"
	placeholderSuiteDir = "{suite_dir}"
)

// Suite is a validated suite file: the workloads a campaign runs.
type Suite struct {
	Name        string
	Description string
	// Path is the file the suite was read from; Dir its directory, which
	// replaces {suite_dir} in commands.
	Path string
	Dir  string
	// Workloads are in file order, every default applied.
	Workloads []workload
}

// workload is one training command of a suite.
type workload struct {
	Name      string   `json:"name"`
	Class     string   `json:"class"`
	Command   []string `json:"command"`
	BatchSize int      `json:"batch_size"`
	Precision string   `json:"precision"`
	Protocol  string   `json:"protocol"`
	Steps     int      `json:"steps,omitempty"`
	MemoryGB  float64  `json:"memory_gb,omitempty"`
	EstStepS  float64  `json:"est_step_s,omitempty"`
}

// workloadNamed returns the named workload, or false.
func (s *Suite) workloadNamed(name string) (workload, bool) {
	for _, w := range s.Workloads {
		if w.Name == name {
			return w, true
		}
	}
	return workload{}, false
}

// Limits of a suite's numbers and names. They are far above any real
// workload and keep every later computation finite: plan estimates are
// time.Durations (at most about 292 years), and names reach file names,
// Slurm scripts and Kubernetes manifests.
const (
	maxNameLen   = 100       // bytes of a suite or workload name
	maxBatchSize = 1 << 20   // batch_size
	maxSteps     = 1 << 31   // steps of a protocol none workload
	maxMemoryGB  = 1 << 16   // memory_gb (64 TB a GPU)
	maxEstStepS  = 24 * 3600 // est_step_s: one day a step
)

// CheckName reports whether s may name a suite or a workload: 1 to
// maxNameLen letters, digits, '.', '_' and '-', starting with a letter or a
// digit. Such a name needs no quoting in a file name, a shell script or a
// YAML manifest, so package profile/fleet holds a fleet's name to the same
// rule; what names it is used in messages.
func CheckName(what, s string) error {
	if !namePattern.MatchString(s) || len(s) > maxNameLen {
		return fmt.Errorf("%s %q: a name is letters, digits, '.', '_' and '-', starting with a letter or digit, at most %d bytes", what, s, maxNameLen)
	}
	return nil
}

func (w workload) check() error {
	name := fmt.Sprintf("workload %q", w.Name)
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if err := CheckName("workload", w.Name); err != nil {
		return err
	}
	switch {
	case !oneOf(w.Class, classes):
		return fmt.Errorf("%s: class %q (want one of %s)", name, w.Class, strings.Join(classes, ", "))
	case !oneOf(w.Precision, precisions):
		return fmt.Errorf("%s: precision %q (want one of %s)", name, w.Precision, strings.Join(precisions, ", "))
	case !oneOf(w.Protocol, protocols):
		return fmt.Errorf("%s: protocol %q (want one of %s)", name, w.Protocol, strings.Join(protocols, ", "))
	case len(w.Command) == 0:
		return fmt.Errorf("%s: no command", name)
	case w.BatchSize <= 0:
		return fmt.Errorf("%s: batch_size must be positive, got %d", name, w.BatchSize)
	case w.BatchSize > maxBatchSize:
		return fmt.Errorf("%s: batch_size %d is above the limit of %d", name, w.BatchSize, maxBatchSize)
	case w.Steps < 0:
		return fmt.Errorf("%s: steps must not be negative, got %d", name, w.Steps)
	case w.Steps > maxSteps:
		return fmt.Errorf("%s: steps %d is above the limit of %d", name, w.Steps, maxSteps)
	case w.Protocol == protocolNone && w.Steps == 0:
		return fmt.Errorf("%s: protocol none needs steps (the number of steps the command runs)", name)
	case w.Protocol == protocolColoc && w.Steps != 0:
		return fmt.Errorf("%s: steps is for protocol none only (a coloc workload reports its steps)", name)
	case !finite(w.MemoryGB) || w.MemoryGB < 0 || w.MemoryGB > maxMemoryGB:
		return fmt.Errorf("%s: memory_gb %v: want a number from 0 to %d", name, w.MemoryGB, maxMemoryGB)
	case !finite(w.EstStepS) || w.EstStepS < 0 || w.EstStepS > maxEstStepS:
		return fmt.Errorf("%s: est_step_s %v: want a number of seconds from 0 to %d", name, w.EstStepS, maxEstStepS)
	}
	for i, arg := range w.Command {
		if !utf8.ValidString(arg) || strings.ContainsRune(arg, 0) {
			return fmt.Errorf("%s: command word %d %q: want UTF-8 text without NUL bytes", name, i+1, arg)
		}
		for _, ph := range placeholderPattern.FindAllString(arg, -1) {
			if ph != placeholderPython && ph != placeholderSuiteDir {
				return fmt.Errorf("%s: unknown placeholder %s in command (known: %s, %s)", name, ph, placeholderPython, placeholderSuiteDir)
			}
		}
	}
	return nil
}

func oneOf(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

// Hash is the SHA-256 of the suite's canonical content: its name and every
// workload with the defaults applied, as JSON. Comments, layout, the order of
// keys, the description and the file's location do not change it; anything
// that changes what runs does.
func (s *Suite) Hash() string {
	canon := struct {
		Version   int        `json:"version"`
		Name      string     `json:"name"`
		Workloads []workload `json:"workloads"`
	}{suiteVersion, s.Name, s.Workloads}
	b, err := json.Marshal(canon)
	if err != nil {
		// Only a non-finite number fails to marshal; LoadSuite refuses
		// those, but a suite built in code may hold one. Its Go syntax
		// still names its content exactly.
		b = fmt.Appendf(nil, "%#v", canon)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
