package profile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// SuiteVersion is the only suite file version this build reads.
const SuiteVersion = 1

// Workload classes, precisions and protocols a suite may name.
var (
	Classes    = []string{"cnn", "rnn", "recommender", "other"}
	Precisions = []string{"fp32", "amp"}
	Protocols  = []string{ProtocolColoc, ProtocolNone}
)

// Protocols of a workload command.
const (
	// ProtocolColoc commands print the JSON lines of the coloc protocol.
	ProtocolColoc = "coloc"
	// ProtocolNone commands are measured by wall time over Steps steps.
	ProtocolNone = "none"
)

// Placeholders a command may use; the harness substitutes them.
const (
	PlaceholderPython   = "{python}"
	PlaceholderSuiteDir = "{suite_dir}"
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
	Workloads []Workload
}

// Workload is one training command of a suite.
type Workload struct {
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

// Workload returns the named workload, or false.
func (s *Suite) Workload(name string) (Workload, bool) {
	for _, w := range s.Workloads {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

func (w Workload) check() error {
	name := fmt.Sprintf("workload %q", w.Name)
	switch {
	case !namePattern.MatchString(w.Name):
		return fmt.Errorf("%s: a name is letters, digits, '.', '_' and '-', starting with a letter or digit", name)
	case !oneOf(w.Class, Classes):
		return fmt.Errorf("%s: class %q (want one of %s)", name, w.Class, strings.Join(Classes, ", "))
	case !oneOf(w.Precision, Precisions):
		return fmt.Errorf("%s: precision %q (want one of %s)", name, w.Precision, strings.Join(Precisions, ", "))
	case !oneOf(w.Protocol, Protocols):
		return fmt.Errorf("%s: protocol %q (want one of %s)", name, w.Protocol, strings.Join(Protocols, ", "))
	case len(w.Command) == 0:
		return fmt.Errorf("%s: no command", name)
	case w.BatchSize <= 0:
		return fmt.Errorf("%s: batch_size must be positive, got %d", name, w.BatchSize)
	case w.Steps < 0:
		return fmt.Errorf("%s: steps must not be negative, got %d", name, w.Steps)
	case w.Protocol == ProtocolNone && w.Steps == 0:
		return fmt.Errorf("%s: protocol none needs steps (the number of steps the command runs)", name)
	case w.Protocol == ProtocolColoc && w.Steps != 0:
		return fmt.Errorf("%s: steps is for protocol none only (a coloc workload reports its steps)", name)
	case w.MemoryGB < 0 || w.EstStepS < 0:
		return fmt.Errorf("%s: memory_gb and est_step_s must not be negative", name)
	}
	for _, arg := range w.Command {
		for _, ph := range placeholderPattern.FindAllString(arg, -1) {
			if ph != PlaceholderPython && ph != PlaceholderSuiteDir {
				return fmt.Errorf("%s: unknown placeholder %s in command (known: %s, %s)", name, ph, PlaceholderPython, PlaceholderSuiteDir)
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
		Workloads []Workload `json:"workloads"`
	}{SuiteVersion, s.Name, s.Workloads}
	b, err := json.Marshal(canon)
	if err != nil {
		panic(err) // plain structs always marshal
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
