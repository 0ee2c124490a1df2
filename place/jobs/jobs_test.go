package jobs

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const good = `version: 1
name: toy
jobs:
  - id: a
    workload: "ResNet-50 (batch size 64)"
    degrees: [4, 1, 2]
    steps: 1000
    memory_gb: 9.5
  - id: b
    model:
      class: transformer
      params: 1.1e8
      flops_per_sample: 2.2e10
      layers: {attention: 12, linear: 74}
      precision: fp32
    batch_size: 32
    duration: 90m
    arrival_s: 60
`

func TestParse(t *testing.T) {
	l, err := Parse(strings.NewReader(good), "toy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if l.Name != "toy" || l.File != "toy.yaml" || len(l.Jobs) != 2 {
		t.Fatalf("list %+v", l)
	}
	a, b := l.Jobs[0], l.Jobs[1]
	if !reflect.DeepEqual(a.Degrees, []int{1, 2, 4}) || a.Steps != 1000 || a.MemoryGB != 9.5 || a.Line != 4 || a.Model != nil {
		t.Errorf("job a %+v", a)
	}
	if !reflect.DeepEqual(b.Degrees, []int{1}) || time.Duration(b.Duration) != 90*time.Minute || b.Duration.Seconds() != 5400 || b.ArrivalS != 60 || b.Line != 9 {
		t.Errorf("job b %+v", b)
	}
	if m := b.Model; m == nil || m.Class != "transformer" || m.Params != 1.1e8 || m.FLOPs != 2.2e10 || m.Layers["linear"] != 74 || m.Precision != "fp32" {
		t.Errorf("job b model %+v", b.Model)
	}
	if b.Batch() != 32 || a.Batch() != 0 {
		t.Errorf("batch sizes %d %d", a.Batch(), b.Batch())
	}
}

func TestParseJSON(t *testing.T) {
	in := `{"version": 1, "jobs": [{"id": "x", "workload": "A3C", "steps": 5, "duration": null},
	  {"id": "y", "model": {"params": 1e6, "batch_size": 8}, "duration": "2h"}]}`
	l, err := Parse(strings.NewReader(in), "j.json")
	if err != nil {
		t.Fatal(err)
	}
	if l.Jobs[0].Workload != "A3C" || l.Jobs[1].Duration.Seconds() != 7200 || l.Jobs[1].Batch() != 8 {
		t.Errorf("%+v", l.Jobs)
	}
}

func TestParseErrorsNameTheJob(t *testing.T) {
	head := "version: 1\njobs:\n"
	cases := []struct {
		name, in, want string
	}{
		{"empty", "", "j.yaml: empty job list"},
		{"no version", "jobs: []\n", "j.yaml: no version (want version: 1)"},
		{"version", "version: 2\njobs: []\n", "j.yaml: unsupported job list version 2 (this build reads version 1)"},
		{"no jobs", "version: 1\n", "j.yaml: no jobs"},
		{"unknown top field", "version: 1\njob: []\n", "field job not found"},
		{"unknown job field", head + "  - id: a\n    workload: A3C\n    steps: 1\n    gpus: 4\n", `j.yaml: line 6: job entry: unknown field "gpus"`},
		{"unknown model field", head + "  - id: a\n    model:\n      parameters: 4\n    steps: 1\n", `j.yaml: line 5: model entry: unknown field "parameters"`},
		{"no id", head + "  - workload: A3C\n    steps: 1\n", `j.yaml: line 3: job 1 (""): id is required`},
		{"neither", head + "  - id: a\n    steps: 1\n", `line 3: job 1 ("a"): give a workload of the data, or a model descriptor`},
		{"no steps", head + "  - {id: a, workload: A3C}\n", `job 1 ("a"): give steps (iterations) or duration`},
		{"both", head + "  - {id: a, workload: A3C, steps: 3, duration: 1h}\n", `job 1 ("a"): give steps or duration, not both`},
		{"bare duration", head + "  - {id: a, workload: A3C, duration: 3600}\n", `line 3: duration "3600" has no unit`},
		{"bad duration", head + "  - {id: a, workload: A3C, duration: soon}\n", `duration "soon": want a duration`},
		{"degree", head + "  - {id: a, workload: A3C, steps: 1}\n  - {id: b, workload: A3C, steps: 1, degrees: [2, 0]}\n", `j.yaml: line 4: job 2 ("b"): degrees: 0 is not a positive number of GPUs`},
		{"degree twice", head + "  - {id: a, workload: A3C, steps: 1, degrees: [2, 2]}\n", `degrees: 2 is listed twice`},
		{"duplicate id", head + "  - {id: a, workload: A3C, steps: 1}\n  - {id: a, workload: LM, steps: 1}\n", `line 4: job 2 ("a"): id "a" is also used by job 1`},
		{"arrival", head + "  - {id: a, workload: A3C, steps: 1, arrival_s: -1}\n", `arrival_s -1`},
		{"memory", head + "  - {id: a, workload: A3C, steps: 1, memory_gb: -2}\n", `memory_gb -2`},
		{"batch", head + "  - {id: a, workload: A3C, steps: 1, batch_size: -2}\n", `batch_size -2 is negative`},
		{"empty model", head + "  - {id: a, model: {precision: fp16}, steps: 1}\n", `the descriptor says nothing`},
		{"bad params", head + "  - {id: a, model: {params: -1}, steps: 1}\n", `model: params -1`},
		{"not a mapping", head + "  - just a string\n", `line 3: a job entry must be a mapping`},
		{"malformed yaml", head + "  - {id: a, workload: [\n", "j.yaml: yaml:"},
		{"white space id", head + "  - {id: ' a', workload: A3C, steps: 1}\n", "must not start or end with white space"},
		{"huge degree", head + "  - {id: a, workload: A3C, steps: 1, degrees: [9223372036854775807]}\n", `j.yaml: line 3: job 1 ("a"): degrees: 9223372036854775807 is above the limit of 1048576 GPUs`},
		{"huge steps", head + "  - {id: a, workload: A3C, steps: 9223372036854775807}\n", `steps 9223372036854775807 is above the limit of 1e+12`},
		{"huge batch", head + "  - {id: a, workload: A3C, steps: 1, batch_size: 9223372036854775807}\n", `batch_size 9223372036854775807 is above the limit`},
		{"arrival nan", head + "  - {id: a, workload: A3C, steps: 1, arrival_s: .nan}\n", `j.yaml: line 3: arrival_s: .nan is not a plain decimal number`},
		{"arrival inf", head + "  - {id: a, workload: A3C, steps: 1, arrival_s: .inf}\n", `arrival_s: .inf is not a plain decimal number`},
		{"memory nan", head + "  - {id: a, workload: A3C, steps: 1, memory_gb: .nan}\n", `memory_gb: .nan is not a plain decimal number`},
		{"layers huge", head + "  - {id: a, model: {layers: {conv: 9223372036854775807}}, steps: 1}\n", `layers: conv count 9223372036854775807 is above the limit`},
		{"control workload", head + "  - {id: a, workload: \"A3C\\x1b[2J\", steps: 1}\n", `workload "A3C\x1b[2J": want UTF-8 text`},
		{"list name", "version: 1\nname: \"a\\x07\"\njobs:\n  - {id: a, workload: A3C, steps: 1}\n", "j.yaml: name: want UTF-8 text"},
		{"duplicate key", head + "  - {id: a, workload: A3C, steps: 1, steps: 2}\n", `mapping key "steps" already defined`},
		{"fraction degree", head + "  - {id: a, workload: A3C, steps: 1, degrees: [1.5]}\n", `j.yaml: line 3: degrees: 1.5 is not a whole number`},
		{"fraction batch", head + "  - {id: a, workload: A3C, steps: 1, batch_size: 1.5}\n", `batch_size: 1.5 is not a whole number`},
		{"separator steps", head + "  - {id: a, workload: A3C, steps: 1_000}\n", `steps: 1_000 is not a plain decimal number`},
		{"hex steps", head + "  - {id: a, workload: A3C, steps: 0x10}\n", `steps: 0x10 is not a plain decimal number`},
		{"second document", head + "  - {id: a, workload: A3C, steps: 1}\n---\n" + head + "  - {id: b, workload: A3C, steps: 1}\n", `line 4: a second YAML document`},
		{"unknown class", head + "  - {id: a, model: {class: quantum, params: 1}, steps: 1}\n", `model: class "quantum" is not one of cnn, rnn, transformer, recommender, gan, rl, other`},
		{"duplicate JSON key", `{"version": 1, "jobs": [{"id": "a", "id": "b", "workload": "A3C", "steps": 1}]}`, `mapping key "id" already defined`},
	}
	for _, c := range cases {
		_, err := Parse(strings.NewReader(c.in), "j.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "none.yaml"))
	if err == nil || !strings.Contains(err.Error(), "none.yaml") {
		t.Errorf("error %v", err)
	}
}

func TestExampleJobsParse(t *testing.T) {
	l, err := Load("../../examples/jobs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Jobs) < 5 {
		t.Errorf("examples/jobs.yaml has %d jobs", len(l.Jobs))
	}
}

// A list of more jobs than MaxJobs is refused by count, naming the limit.
func TestTooManyJobs(t *testing.T) {
	l := &List{Version: Version, Jobs: make([]Job, MaxJobs+1)}
	for i := range l.Jobs {
		l.Jobs[i] = Job{ID: fmt.Sprint(i), Workload: "A3C", Steps: 1}
	}
	if err := l.Validate(); err == nil || !strings.Contains(err.Error(), "1000001 jobs, more than the 1000000 a job list may hold") {
		t.Fatalf("error %v", err)
	}
}

// A YAML or JSON list of more than MaxFileJobs jobs is refused by count,
// naming the file, the limit and the way to give more (a trace).
func TestTooManyJobsInAFile(t *testing.T) {
	if testing.Short() {
		t.Skip("parses a list of 100,001 jobs")
	}
	var b strings.Builder
	b.WriteString("version: 1\njobs:\n")
	for i := range MaxFileJobs + 1 {
		fmt.Fprintf(&b, "  - {id: j%d, workload: A3C, steps: 1}\n", i)
	}
	_, err := Parse(strings.NewReader(b.String()), "big.yaml")
	if want := "big.yaml: 100001 jobs, more than the 100000 a YAML or JSON job list may hold (its parser holds every job at once); give a longer list as a Gavel trace (at most 1000000 jobs)"; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}
