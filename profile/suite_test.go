package profile

import (
	"math"
	"strings"
	"testing"
)

const goodSuite = `version: 1
name: tiny
description: one of each
defaults:
  precision: amp
  batch_size: 8
workloads:
  - name: cnn-a
    class: cnn
    command: ["{python}", "{suite_dir}/../workloads/cnn.py", "--model", "a"]
    batch_size: 32
    memory_gb: 2.5
  - name: rnn-b
    class: rnn
    command: ["{python}", "{suite_dir}/../workloads/rnn.py"]
    precision: fp32
  - name: plain
    class: other
    command: ["/bin/true"]
    protocol: none
    steps: 100
`

func TestParseSuite(t *testing.T) {
	s, err := ParseSuite([]byte(goodSuite), "suites/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "tiny" || s.Dir != "suites" || len(s.Workloads) != 3 {
		t.Fatalf("got name %q dir %q %d workloads", s.Name, s.Dir, len(s.Workloads))
	}
	want := []struct {
		name, precision, protocol string
		batch                     int
	}{
		{"cnn-a", "amp", protocolColoc, 32},
		{"rnn-b", "fp32", protocolColoc, 8},
		{"plain", "amp", protocolNone, 8},
	}
	for i, w := range want {
		g := s.Workloads[i]
		if g.Name != w.name || g.Precision != w.precision || g.Protocol != w.protocol || g.BatchSize != w.batch {
			t.Errorf("workload %d = %+v, want %+v", i, g, w)
		}
	}
	if s.Workloads[0].MemoryGB != 2.5 {
		t.Errorf("memory_gb = %v", s.Workloads[0].MemoryGB)
	}
}

func TestParseSuiteErrors(t *testing.T) {
	replace := func(old, new string) string {
		if !strings.Contains(goodSuite, old) {
			t.Fatalf("test bug: %q not in the suite", old)
		}
		return strings.Replace(goodSuite, old, new, 1)
	}
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown version", replace("version: 1", "version: 2"), "tiny.yaml: suite version 2 is not known to this coloc (it reads version 1)"},
		{"text version", replace("version: 1", "version: one"), "suite version one is not known"},
		{"no version", replace("version: 1\n", ""), "tiny.yaml: no version"},
		{"unknown field", replace("    memory_gb: 2.5", "    memory_gib: 2.5"), `tiny.yaml:12: unknown field "memory_gib"`},
		{"unknown top field", replace("description:", "descr:"), `tiny.yaml:3: unknown field "descr"`},
		{"duplicate", replace("name: rnn-b", "name: cnn-a"), `tiny.yaml:13: workload "cnn-a": duplicate name (first at line 8)`},
		{"placeholder", replace("{suite_dir}/../workloads/rnn.py", "{suitedir}/rnn.py"), "tiny.yaml:13: workload \"rnn-b\": unknown placeholder {suitedir}"},
		{"none without steps", replace("    steps: 100\n", ""), "protocol none needs steps"},
		{"class", replace("class: rnn", "class: transformer"), `class "transformer" (want one of cnn, rnn, recommender, other)`},
		{"precision", replace("precision: fp32", "precision: bf16"), `precision "bf16"`},
		{"bad name", replace("name: plain", "name: a+b"), `workload "a+b": a name is letters`},
		{"long name", replace("name: plain", "name: "+strings.Repeat("x", maxNameLen+1)), "at most 100 bytes"},
		{"suite name newline", replace("name: tiny", `name: "tiny\ntouch /tmp/x"`), `tiny.yaml: suite name "tiny\ntouch /tmp/x": a name is letters`},
		{"suite name subshell", replace("name: tiny", `name: "t$(id)"`), `suite name "t$(id)"`},
		{"suite name quote", replace("name: tiny", `name: "t'; id; '"`), `suite name "t'; id; '"`},
		{"suite name backtick", replace("name: tiny", "name: t`id`"), "suite name \"t`id`\""},
		{"workload name semicolon", replace("name: plain", `name: "p;id"`), `workload "p;id": a name is letters`},
		{"memory nan", replace("memory_gb: 2.5", "memory_gb: .nan"), `tiny.yaml:12: memory_gb: .nan is not a plain decimal number`},
		{"memory inf", replace("memory_gb: 2.5", "memory_gb: .inf"), `memory_gb: .inf is not a plain decimal number`},
		{"memory huge", replace("memory_gb: 2.5", "memory_gb: 1e300"), `memory_gb 1e+300`},
		{"est nan", replace("memory_gb: 2.5", "est_step_s: .NaN"), `est_step_s: .NaN is not a plain decimal number`},
		{"est huge", replace("memory_gb: 2.5", "est_step_s: 1e12"), `est_step_s 1e+12`},
		{"batch huge", replace("batch_size: 32", "batch_size: 9223372036854775807"), "batch_size 9223372036854775807 is above the limit of 1048576"},
		{"steps huge", replace("steps: 100", "steps: 9223372036854775807"), "steps 9223372036854775807 is above the limit of 2147483648"},
		{"nul in command", replace(`["/bin/true"]`, `["/bin/true", "a\0b"]`), `command word 2 "a\x00b": want UTF-8 text without NUL bytes`},
		{"batch", replace("batch_size: 32", "batch_size: 0"), "batch_size must be positive"},
		{"fraction batch", replace("batch_size: 32", "batch_size: 1.5"), "batch_size: 1.5 is not a whole number"},
		{"separator steps", replace("steps: 100", "steps: 1_00"), "steps: 1_00 is not a plain decimal number"},
		{"second document", goodSuite + "---\n" + goodSuite, "a second YAML document"},
		{"no command", replace(`    command: ["/bin/true"]`+"\n", ""), `workload "plain": no command`},
		{"syntax", replace("workloads:", "workloads: ["), "tiny.yaml:"},
		{"no name", replace("  - name: plain\n    class: other", "  - class: other"), "tiny.yaml:17: workload without a name"},
		{"no workloads", goodSuite[:strings.Index(goodSuite, "workloads:")], "tiny.yaml: no workloads"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSuite([]byte(tc.yaml), "suites/tiny.yaml")
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestSuiteHashOfNonFiniteNumbers(t *testing.T) {
	// LoadSuite refuses these; a suite built in code still hashes, and
	// the hash tells NaN from a number.
	nan := &Suite{Name: "s", Workloads: []workload{{Name: "w", MemoryGB: math.NaN()}}}
	one := &Suite{Name: "s", Workloads: []workload{{Name: "w", MemoryGB: 1}}}
	if h := nan.Hash(); !strings.HasPrefix(h, "sha256:") || h == one.Hash() {
		t.Errorf("hash of a NaN suite %q, of a finite one %q", h, one.Hash())
	}
}

func TestSuiteHash(t *testing.T) {
	base, err := ParseSuite([]byte(goodSuite), "a/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	same := strings.Replace(goodSuite, "description: one of each", "description: reworded # and a comment", 1)
	same = strings.Replace(same, "    class: cnn\n    command:", "    command:", 1)
	same = strings.Replace(same, "    batch_size: 32\n", "    batch_size: 32\n    class: cnn\n", 1)
	changed := strings.Replace(goodSuite, "batch_size: 32", "batch_size: 64", 1)
	viaDefault := strings.Replace(goodSuite, "    precision: fp32\n", "", 1) // rnn-b now amp
	tests := []struct {
		name string
		yaml string
		path string
		same bool
	}{
		{"description, comments, key order, location", same, "elsewhere/tiny.yaml", true},
		{"batch size", changed, "a/tiny.yaml", false},
		{"a default now applies", viaDefault, "a/tiny.yaml", false},
	}
	for _, tc := range tests {
		s, err := ParseSuite([]byte(tc.yaml), tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := s.Hash() == base.Hash(); got != tc.same {
			t.Errorf("%s: same hash = %v, want %v", tc.name, got, tc.same)
		}
	}
	if !strings.HasPrefix(base.Hash(), "sha256:") || len(base.Hash()) != len("sha256:")+64 {
		t.Errorf("hash %q is not sha256:<64 hex>", base.Hash())
	}
}
