package policy

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/internal/jsonedit"
)

const fixture = "testdata/small.json"

func readFixture(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// edit returns the fixture with the edits applied (path, value, ...).
func edit(t testing.TB, edits ...any) []byte {
	t.Helper()
	b, err := jsonedit.Edit(readFixture(t), edits...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFixtureIsValid(t *testing.T) {
	p, err := Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != fixture || len(p.File.Decisions) == 0 || len(p.File.Pairs) == 0 || len(p.File.Similarity.References) == 0 {
		t.Errorf("loaded %q with %d decisions, %d pairs, %d references", p.Name, len(p.File.Decisions), len(p.File.Pairs), len(p.File.Similarity.References))
	}
}

// TestRefused: a file of another format or version is refused by name,
// before its content is looked at.
func TestRefused(t *testing.T) {
	tests := []struct {
		name  string
		data  []byte
		want  error
		path  string
		inMsg string
	}{
		{"other format", edit(t, "format", "coloc.model"), ErrFormat, "format", `"coloc.model": not a coloc policy file`},
		{"no format", edit(t, "format", jsonedit.Delete), ErrFormat, "format", "no format name"},
		{"format as number", edit(t, "format", 1), ErrFormat, "format", "1 is a number, want \"coloc.policy\""},
		{"newer version", edit(t, "version", 5, "decisions", "reshaped"), ErrVersion, "version", "version 5: this reader knows versions 1 to 4"},
		{"version as text", edit(t, "version", "1"), ErrVersion, "version", `"1" is a string, want the number 4`},
		{"no version", edit(t, "version", jsonedit.Delete), ErrVersion, "version", "no version"},
		{"not an object", []byte(`[1, 2]`), ErrFormat, "", "an array, want a policy file"},
		{"empty", nil, ErrFormat, "", "empty file"},
		{"trailing data", append(readFixture(t), "{}"...), ErrFormat, "", "data after the JSON value"},
	}
	for _, tc := range tests {
		_, err := Decode(bytes.NewReader(tc.data), "p.json")
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
			continue
		}
		ps := ProblemsOf(err)
		if len(ps) != 1 || ps[0].Path != tc.path || !strings.Contains(ps[0].Msg, tc.inMsg) || ps[0].File != "p.json" {
			t.Errorf("%s: problems %v, want one at %q containing %q", tc.name, ps, tc.path, tc.inMsg)
		}
	}
}

func TestNewNil(t *testing.T) {
	if _, err := New(nil, "p"); !errors.Is(err, ErrFormat) {
		t.Errorf("New(nil): %v, want ErrFormat", err)
	}
}

func TestSyntaxErrorLine(t *testing.T) {
	data := readFixture(t)
	// Break the JSON on line 3 of the file.
	lines := bytes.SplitN(data, []byte("\n"), 4)
	lines[2] = append([]byte("  ,,"), lines[2]...)
	_, err := Decode(bytes.NewReader(bytes.Join(lines, []byte("\n"))), "p.json")
	ps := ProblemsOf(err)
	if len(ps) != 1 || ps[0].Line != 3 || !strings.Contains(ps[0].String(), "p.json:3: not JSON") {
		t.Errorf("problems %v, want one at line 3", ps)
	}
}

// TestProblems: every mutation of the valid fixture is refused with a
// problem at the JSON path of the value at fault.
func TestProblems(t *testing.T) {
	tests := []struct {
		name  string
		edits []any
		path  string // the problem's JSON path
		inMsg string // part of its message
	}{
		// Shape.
		{"unknown member", []any{"decisions[0].gpu", "v100"}, "decisions[0].gpu", "unknown member"},
		{"missing member", []any{"thresholds.max_per_gpu", jsonedit.Delete}, "thresholds", `missing required member "max_per_gpu"`},
		{"string for integer", []any{"decisions[0].degree", "2"}, "decisions[0].degree", `"2" is a string, want an integer`},
		{"fraction for integer", []any{"decisions[0].degree", 1.5}, "decisions[0].degree", "1.5 is not an integer"},
		{"null list", []any{"pairs", nil}, "pairs", "null, want an array"},
		{"object for list", []any{"solo", map[string]any{}}, "solo", "an object, want an array"},
		{"null number", []any{"similarity.lo[0]", nil}, "similarity.lo[0]", "null, want a number"},
		{"number out of range", []any{"pairs[0].normalized", jsonNumber("1e999")}, "pairs[0].normalized", "out of range"},
		// Header, thresholds, cluster.
		{"unit", []any{"throughput_unit", "samples"}, "throughput_unit", "not one of samples/s, iterations/s"},
		{"created", []any{"provenance.created", "yesterday"}, "provenance.created", "RFC 3339"},
		{"checksum", []any{"provenance.data[0].sha256", "abc"}, "provenance.data[0].sha256", "SHA-256"},
		{"max per GPU", []any{"thresholds.max_per_gpu", 0}, "thresholds.max_per_gpu", "at least 1"},
		{"min normalized", []any{"thresholds.min_normalized", 1.5}, "thresholds.min_normalized", "want 0 to 1"},
		{"scaling efficiency", []any{"thresholds.scaling_efficiency", -0.1}, "thresholds.scaling_efficiency", "want 0 to 1"},
		{"similarity k", []any{"thresholds.similarity_k", 0}, "thresholds.similarity_k", "at least 1"},
		{"no nodes", []any{"cluster.nodes", []any{}}, "cluster.nodes", "no nodes"},
		{"node name twice", []any{"cluster.nodes[1].name", "v100-a"}, "cluster.nodes[1].name", "also cluster.nodes[0]"},
		{"link", []any{"cluster.nodes[0].link", "infiniband"}, "cluster.nodes[0].link", "not one of"},
		{"node memory", []any{"cluster.nodes[1].gpu_memory_gb", -12}, "cluster.nodes[1].gpu_memory_gb", "at least 0"},
		{"GPUs of a node", []any{"cluster.nodes[1].gpus", jsonNumber("9223372036854775807")}, "cluster.nodes[1].gpus", "9223372036854775807, want 1 to 64"},
		{"node name with a newline", []any{"cluster.nodes[1].name", "k80\nx"}, "cluster.nodes[1].name", "holds a control character (U+000A)"},
		{"GPU type with an escape", []any{"cluster.nodes[1].gpu_type", "k80\u001b[2J"}, "cluster.nodes[1].gpu_type", "holds a control character (U+001B)"},
		{"job with an escape", []any{"decisions[0].job", "resnet\u001b[31m"}, "decisions[0].job", "holds a control character"},
		{"workload with a newline", []any{"pairs[0].workload", "A\nB"}, "pairs[0].workload", "holds a control character"},
		{"objective rule", []any{"version", 2, "objective", map[string]any{"rule": "bogus", "minimize": "x", "durations": "known", "order": "shortest", "min_normalized": 0}}, "objective.rule", `"bogus" is not one of decision-core, completion-time`},
		{"objective order", []any{"version", 2, "objective", map[string]any{"rule": "completion-time", "minimize": "x", "durations": "known", "order": "random", "min_normalized": 0}}, "objective.order", `"random" is not one of gittins, shortest, arrival`},
		{"objective durations", []any{"version", 2, "objective", map[string]any{"rule": "completion-time", "minimize": "x", "durations": "guessed", "order": "arrival", "min_normalized": 0}}, "objective.durations", `"guessed" is not one of attained, known`},
		{"decision core before version 4", []any{"version", 3, "objective", map[string]any{"rule": "decision-core", "minimize": "x", "durations": "attained", "order": "gittins", "min_normalized": 0}}, "objective", "need version 4"},
		{"decision core by shortest", []any{"version", 4, "objective", map[string]any{"rule": "decision-core", "minimize": "x", "durations": "attained", "order": "shortest", "min_normalized": 0}}, "objective.order", "the decision core orders by gittins"},
		{"prediction out of range", []any{"pairs[0].source", "predicted:iasp", "pairs[0].normalized", 1e6, "provenance.predictions", map[string]any{"coverage": 0.9, "decide": "expected", "range_low": 0.1, "range_high": 1.0, "predicted": 1, "clamped": 0, "unseen": 0, "uncalibrated": 0, "dropped": 0, "infeasible": 0}}, "pairs[0].normalized", "1e+06 is outside the plausible range [0.1, 1]"},
		// Decisions.
		{"job twice", []any{"decisions[1].job", "resnet-train"}, "decisions[1].job", "also decisions[0]"},
		{"assumed in version 1", []any{"decisions[1].assumed", true}, "decisions[1].assumed", "an assumed pair needs version 3"},
		{"assumed on one GPU", []any{"version", 3, "decisions[1].assumed", true}, "decisions[1].assumed", "only a placed job on two or more GPUs that shares them"},
		{"assumed alone", []any{"version", 3, "decisions[0].assumed", true}, "decisions[0].assumed", "only a placed job on two or more GPUs that shares them"},
		{"status", []any{"decisions[0].status", "running"}, "decisions[0].status", `"running" is not placed, waiting or unplaceable`},
		{"no reason", []any{"decisions[0].reason", ""}, "decisions[0].reason", "empty"},
		{"unknown node", []any{"decisions[0].placement[0].node", "v100-z"}, "decisions[0].placement[0].node", `node "v100-z" is not in the cluster`},
		{"GPU out of range", []any{"decisions[0].placement[0].gpus[1]", 4}, "decisions[0].placement[0].gpus[1]", `GPU 4 is out of range: node "v100-a" has GPUs 0 to 3`},
		{"GPU negative", []any{"decisions[0].placement[0].gpus[1]", -1}, "decisions[0].placement[0].gpus[1]", "out of range"},
		{"GPU twice", []any{"decisions[0].placement[0].gpus[1]", 0}, "decisions[0].placement[0].gpus[1]", "GPU 0 is also gpus[0]"},
		{"degree is not the GPUs placed", []any{"decisions[0].degree", 3}, "decisions[0].degree", "degree 3, but the placement has 2 GPUs"},
		{"node of another type", []any{"decisions[4].placement[0].node", "v100-a", "decisions[4].placement[0].gpus[0]", 3}, "decisions[4].placement[0].node", `node "v100-a" has v100 GPUs, the job's gpu_type is "k80"`},
		{"placed without placement", []any{"decisions[0].placement", jsonedit.Delete}, "decisions[0].placement", "a placed job has a placement"},
		{"placed without prediction", []any{"decisions[0].predicted_normalized", jsonedit.Delete}, "decisions[0].predicted_normalized", "missing"},
		{"unplaceable with placement", []any{"decisions[5].placement", []any{map[string]any{"node": "k80-a", "gpus": []any{1}}}}, "decisions[5].placement", "a job that is unplaceable has no placement"},
		{"not a reference", []any{"decisions[3].reference", "GPT-9"}, "decisions[3].reference", "not a similarity reference"},
		{"co-located with nobody known", []any{"decisions[1].colocated_with[0]", "nobody"}, "decisions[1].colocated_with[0]", `no job "nobody"`},
		{"co-located with itself", []any{"decisions[1].colocated_with[0]", "lm-a"}, "decisions[1].colocated_with[0]", "the job itself"},
		{"not listed back", []any{"decisions[2].colocated_with", jsonedit.Delete}, "decisions[1].colocated_with[0]", `job "rec-b" (decisions[2]) does not list "lm-a" back`},
		{"co-located with an unplaceable job", []any{"decisions[1].colocated_with[0]", "huge"}, "decisions[1].colocated_with[0]", "not placed"},
		{"co-located on different GPUs", []any{"decisions[1].placement[0].gpus[0]", 1, "decisions[0].colocated_with", []any{"lm-a"}, "decisions[1].colocated_with", []any{"resnet-train", "rec-b"}}, "decisions[1].colocated_with[1]", `job "rec-b" (decisions[2]) shares no GPU with it`},
		{"sharing unlisted", []any{"decisions[4].placement[0].node", "v100-a", "decisions[4].gpu_type", "v100", "decisions[4].placement[0].gpus[0]", 3}, "decisions[3].colocated_with", `job "lm-k80" (decisions[4]) shares node "v100-a" GPU 3 with it, but neither lists the other`},
		{"more than max_per_gpu", []any{"decisions[3].placement[0].gpus[0]", 2}, "decisions[3].placement[0].gpus[0]", `node "v100-a" GPU 2 holds 3 jobs ("lm-a", "rec-b", "translate-new"), more than max_per_gpu 2`},
		{"negative prediction", []any{"decisions[0].predicted_throughput", -1}, "decisions[0].predicted_throughput", "at least 0"},
		// Tables.
		{"normalized not positive", []any{"pairs[0].normalized", 0}, "pairs[0].normalized", "above 0"},
		{"pair twice", []any{"pairs[1].partner", "LM (batch size 20)"}, "pairs[1]", "duplicate of pairs[0]"},
		{"pair source", []any{"pairs[0].source", "guessed"}, "pairs[0].source", "neither measured nor predicted:<model>"},
		// Intervals and flags of predicted pairs, and their summary.
		{"measured with interval", []any{"pairs[0].low", 0.4, "pairs[0].high", 0.6}, "pairs[0]", "a measured pair has an interval"},
		{"interval misses value", []any{"pairs[0].source", "predicted:iasp", "pairs[0].low", 0.6, "pairs[0].high", 0.7}, "pairs[0].low", "does not hold normalized"},
		{"unknown flag", []any{"pairs[0].source", "predicted:iasp", "pairs[0].flags", []any{"dubious"}}, "pairs[0].flags[0]", "not one of out-of-range"},
		{"raw without flag", []any{"pairs[0].source", "predicted:iasp", "pairs[0].raw", -0.3}, "pairs[0].raw", "without the out-of-range flag"},
		{"decide", []any{"provenance.predictions", map[string]any{"coverage": 0.9, "decide": "median", "range_low": 0.1, "range_high": 1.0, "predicted": 0, "clamped": 0, "unseen": 0, "uncalibrated": 0, "dropped": 0, "infeasible": 0}}, "provenance.predictions.decide", `"median", want expected or lower`},
		{"counts", []any{"provenance.predictions", map[string]any{"coverage": 0.9, "decide": "lower", "range_low": 0.1, "range_high": 1.0, "predicted": 3, "clamped": 0, "unseen": 0, "uncalibrated": 0, "dropped": 0, "infeasible": 0}}, "provenance.predictions.predicted", "3, but the pairs table has 0"},
		{"solo throughput", []any{"solo[0].throughput", 0}, "solo[0].throughput", "above 0"},
		{"solo twice", []any{"solo[1].degree", 1}, "solo[1]", "duplicate of solo[0]"},
		{"points out of order", []any{"scaling[0].points[1].degree", 1}, "scaling[0].points[1].degree", "ascending"},
		{"efficiency", []any{"scaling[0].points[1].efficiency", 0.5}, "scaling[0].points[1].efficiency", "but the throughputs give"},
		{"chosen degree", []any{"scaling[0].chosen_degree", 4}, "scaling[0].chosen_degree", "chooses 1"},
		{"scaling twice", []any{"scaling[1].gpu_type", "k80"}, "scaling[1]", "duplicate of scaling[0]"},
		{"no points", []any{"scaling[0].points", []any{}}, "scaling[0].points", "no points"},
		// Similarity.
		{"distance", []any{"similarity.distance", "chebyshev"}, "similarity.distance", `unknown distance "chebyshev"`},
		{"minkowski without p", []any{"similarity.distance", "minkowski"}, "similarity.p", "p > 0"},
		{"numeric name", []any{"similarity.numeric[0]", "params"}, "similarity.numeric[0]", "not a numeric descriptor"},
		{"numeric twice", []any{"similarity.numeric[1]", "log10_params"}, "similarity.numeric[1]", "also numeric[0]"},
		{"categorical name", []any{"similarity.categorical[0]", "framework"}, "similarity.categorical[0]", "not a categorical descriptor"},
		{"lo not aligned", []any{"similarity.lo[0]", jsonedit.Delete}, "similarity.lo", "4 values for 5 numeric descriptors"},
		{"hi below lo", []any{"similarity.hi[3]", -1}, "similarity.hi[3]", "below lo"},
		{"num not aligned", []any{"similarity.references[0].num[0]", jsonedit.Delete}, "similarity.references[0].num", "4 values for 5"},
		{"cat not aligned", []any{"similarity.references[0].cat[0]", jsonedit.Delete}, "similarity.references[0].cat", "1 values for 2"},
		{"num outside range", []any{"similarity.references[0].num[0]", 99}, "similarity.references[0].num[0]", "outside lo..hi"},
		{"reference twice", []any{"similarity.references[1].workload", "LM (batch size 20)"}, "similarity.references[1].workload", "also references[0]"},
		{"reference degree", []any{"similarity.references[1].degree", 0}, "similarity.references[1].degree", "at least 1"},
	}
	for _, tc := range tests {
		_, err := Decode(bytes.NewReader(edit(t, tc.edits...)), "p.json")
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if errors.Is(err, ErrFormat) || errors.Is(err, ErrVersion) {
			t.Errorf("%s: refused by name: %v", tc.name, err)
		}
		found := false
		for _, p := range ProblemsOf(err) {
			if p.Path == tc.path && strings.Contains(p.Msg, tc.inMsg) && p.File == "p.json" {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no problem at %s containing %q in:\n%v", tc.name, tc.path, tc.inMsg, err)
		}
	}
}

// TestKeepsValuesAboveOne: a normalized throughput above 1 is a
// measurement, never clipped.
func TestKeepsValuesAboveOne(t *testing.T) {
	p, err := Decode(bytes.NewReader(edit(t, "pairs[0].normalized", 1.47)), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	x := p.File.Pairs[0]
	if v, ok := p.Normalized(x.GPUType, x.Degree, x.Workload, x.Partner); !ok || v != 1.47 {
		t.Errorf("normalized %v (%v), want 1.47", v, ok)
	}
}

// TestProblemLimit: a file with very many problems lists maxProblems of
// them and counts the rest.
func TestProblemLimit(t *testing.T) {
	var edits []any
	p, err := Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.File.Pairs {
		pi := elem("pairs", i)
		edits = append(edits, pi+".source", "guessed", pi+".normalized", -1, pi+".degree", 0)
	}
	for i := range p.File.Solo {
		edits = append(edits, elem("solo", i)+".throughput", -1)
	}
	_, err = Decode(bytes.NewReader(edit(t, edits...)), "p.json")
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v, want a ValidationError", err)
	}
	total := 3*len(p.File.Pairs) + len(p.File.Solo)
	if total <= maxProblems || len(ve.Problems) != maxProblems || ve.More != total-maxProblems {
		t.Errorf("%d problems listed, %d more; want %d and %d", len(ve.Problems), ve.More, maxProblems, total-maxProblems)
	}
	if ps := ProblemsOf(err); len(ps) != maxProblems+1 || !strings.Contains(ps[maxProblems].Msg, "more problems") {
		t.Errorf("ProblemsOf gives %d problems, want %d and a count", len(ps), maxProblems+1)
	}
}

func TestProblemString(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "a.json", Path: "decisions[3].placement[0].gpus[1]", Msg: "bad"}, "a.json: decisions[3].placement[0].gpus[1]: bad"},
		{Problem{File: "a.json", Line: 7, Msg: "not JSON"}, "a.json:7: not JSON"},
		{Problem{File: "a.json", Msg: "empty file"}, "a.json: empty file"},
		{Problem{Msg: "alone"}, "alone"},
	}
	for _, tc := range tests {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%#v: %q, want %q", tc.p, got, tc.want)
		}
	}
}

// jsonNumber is a number written as is, for values encoding/json would
// not write (1e999).
type jsonNumber string

func (n jsonNumber) MarshalJSON() ([]byte, error) { return []byte(n), nil }

// TestDuplicateMembersAndUTF8: a member named twice in one object, or text
// that is not UTF-8, is refused with its path and line (encoding/json would
// keep the last member and replace the bytes).
func TestDuplicateMembersAndUTF8(t *testing.T) {
	data := readFixture(t)
	i := bytes.Index(data, []byte(`"job": `))
	if i < 0 {
		t.Fatal("test bug: no job in the fixture")
	}
	line := 1 + bytes.Count(data[:i], []byte("\n"))
	twice := bytes.Join([][]byte{data[:i], []byte(`"job": "x", `), data[i:]}, nil)
	notUTF8 := bytes.Join([][]byte{data[:i+len(`"job": "`)], []byte("\xff"), data[i+len(`"job": "`):]}, nil)
	for _, tc := range []struct {
		name, data, want string
	}{
		{"member twice", string(twice), `p.json:` + strconv.Itoa(line) + `: decisions[0].job: member "job" appears twice in one object`},
		{"not UTF-8", string(notUTF8), `p.json:` + strconv.Itoa(line) + `: decisions[0].job: not UTF-8 text`},
	} {
		_, err := Decode(strings.NewReader(tc.data), "p.json")
		ps := ProblemsOf(err)
		if len(ps) != 1 || ps[0].String() != tc.want {
			t.Errorf("%s: problems %v, want %q", tc.name, ps, tc.want)
		}
	}
}
