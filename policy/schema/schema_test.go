package schema

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/internal/jsonedit"
	"github.com/coloc-dev/coloc/internal/policytest"
	"github.com/coloc-dev/coloc/policy"
)

func fixture(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../testdata/small.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestFixtureConforms(t *testing.T) {
	ps, err := Validate(fixture(t), "small.json")
	if err != nil || len(ps) > 0 {
		t.Fatalf("fixture: %v %v", ps, err)
	}
	// A file that went through policy.Encode conforms too.
	p, err := policy.Load("../testdata/small.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := policy.Encode(p.File)
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := Validate(b, "encoded"); err != nil || len(ps) > 0 {
		t.Errorf("encoded fixture: %v %v", ps, err)
	}
}

// TestSchemaAndReaderRefuse: each mutation of the fixture fails the schema
// at the path given (or the object holding it) and fails policy.Decode
// there too.
func TestSchemaAndReaderRefuse(t *testing.T) {
	tests := []struct {
		name  string
		edits []any
		path  string // where the reader reports it
		inMsg string // part of the schema's message
	}{
		{"other format", []any{"format", "coloc.model"}, "format", "coloc.policy"},
		{"other version", []any{"version", 5}, "version", "4"},
		{"unknown member", []any{"extra", true}, "extra", "additional properties 'extra'"},
		{"typo in a member", []any{"thresholds.max_per_gpuu", 2}, "thresholds.max_per_gpuu", "additional properties"},
		{"missing member", []any{"thresholds.max_per_gpu", jsonedit.Delete}, "thresholds", "missing property 'max_per_gpu'"},
		{"string for integer", []any{"decisions[0].degree", "2"}, "decisions[0].degree", "want integer"},
		{"null list", []any{"pairs", nil}, "pairs", "want array"},
		{"status", []any{"decisions[0].status", "running"}, "decisions[0].status", "placed"},
		{"negative GPU", []any{"decisions[0].placement[0].gpus[1]", -1}, "decisions[0].placement[0].gpus[1]", "minimum"},
		{"GPU twice", []any{"decisions[0].placement[0].gpus[1]", 0}, "decisions[0].placement[0].gpus[1]", "items at 0 and 1 are equal"},
		{"placed without GPUs", []any{"decisions[0].placement", []any{}}, "decisions[0].placement", "minItems"},
		{"placed at degree 0", []any{"decisions[0].degree", 0}, "decisions[0].degree", "minimum"},
		{"placed without prediction", []any{"decisions[0].predicted_normalized", jsonedit.Delete}, "decisions[0].predicted_normalized", "missing property 'predicted_normalized'"},
		{"unplaceable with placement", []any{"decisions[5].placement", []any{map[string]any{"node": "k80-a", "gpus": []any{1}}}}, "decisions[5].placement", "maxItems"},
		{"co-located twice", []any{"decisions[1].colocated_with", []any{"rec-b", "rec-b"}}, "decisions[1].colocated_with[1]", "equal"},
		{"normalized zero", []any{"pairs[0].normalized", 0}, "pairs[0].normalized", "exclusiveMinimum"},
		{"pair source", []any{"pairs[0].source", "guessed"}, "pairs[0].source", "does not match pattern"},
		{"solo throughput", []any{"solo[0].throughput", -1}, "solo[0].throughput", "exclusiveMinimum"},
		{"no points", []any{"scaling[0].points", []any{}}, "scaling[0].points", "minItems"},
		{"created", []any{"provenance.created", "yesterday"}, "provenance.created", "date-time"},
		{"checksum", []any{"provenance.data[0].sha256", "ABC"}, "provenance.data[0].sha256", "pattern"},
		{"unit", []any{"throughput_unit", "samples"}, "throughput_unit", "samples/s"},
		{"min normalized", []any{"thresholds.min_normalized", 1.5}, "thresholds.min_normalized", "maximum"},
		{"no nodes", []any{"cluster.nodes", []any{}}, "cluster.nodes", "minItems"},
		{"link", []any{"cluster.nodes[0].link", "infiniband"}, "cluster.nodes[0].link", "nvlink"},
		{"minkowski without p", []any{"similarity.distance", "minkowski"}, "similarity.p", "missing property 'p'"},
		{"numeric name", []any{"similarity.numeric[0]", "params"}, "similarity.numeric[0]", "pattern"},
		{"categorical name", []any{"similarity.categorical[0]", "framework"}, "similarity.categorical[0]", "class"},
		{"string for number", []any{"similarity.references[0].num[0]", "x"}, "similarity.references[0].num[0]", "want null or number"},
	}
	for _, tc := range tests {
		data, err := jsonedit.Edit(fixture(t), tc.edits...)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := Validate(data, "p.json")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		found := false
		for _, p := range ps {
			if within(tc.path, p.Path) && strings.Contains(p.Msg, tc.inMsg) && p.File == "p.json" {
				found = true
			}
		}
		// The schema names the object of a missing or unknown member, the
		// reader the member.
		if !found {
			t.Errorf("%s: no schema problem at or above %s containing %q in %v", tc.name, tc.path, tc.inMsg, ps)
		}
		_, err = policy.Decode(bytes.NewReader(data), "p.json")
		found = false
		for _, p := range policy.ProblemsOf(err) {
			found = found || p.Path == tc.path
		}
		if !found {
			t.Errorf("%s: the reader has no problem at %s: %v", tc.name, tc.path, err)
		}
	}
}

// TestBeyondTheSchema: what JSON Schema cannot state (unique keys,
// references between parts of the file, arithmetic) conforms to the
// schema and is refused by the reader.
func TestBeyondTheSchema(t *testing.T) {
	tests := []struct {
		name  string
		edits []any
		path  string
	}{
		{"job twice", []any{"decisions[1].job", "resnet-train"}, "decisions[1].job"},
		{"unknown node", []any{"decisions[0].placement[0].node", "v100-z"}, "decisions[0].placement[0].node"},
		{"GPU beyond the node", []any{"decisions[0].placement[0].gpus[1]", 4}, "decisions[0].placement[0].gpus[1]"},
		{"degree is not the GPUs placed", []any{"decisions[0].degree", 3}, "decisions[0].degree"},
		{"not listed back", []any{"decisions[2].colocated_with", jsonedit.Delete}, "decisions[1].colocated_with[0]"},
		{"more than max_per_gpu", []any{"decisions[3].placement[0].gpus[0]", 2}, "decisions[3].placement[0].gpus[0]"},
		{"pair twice", []any{"pairs[1].partner", "LM (batch size 20)"}, "pairs[1]"},
		{"efficiency", []any{"scaling[0].points[1].efficiency", 0.5}, "scaling[0].points[1].efficiency"},
		{"lo not aligned", []any{"similarity.lo[0]", jsonedit.Delete}, "similarity.lo"},
	}
	for _, tc := range tests {
		data, err := jsonedit.Edit(fixture(t), tc.edits...)
		if err != nil {
			t.Fatal(err)
		}
		if ps, err := Validate(data, "p.json"); err != nil || len(ps) > 0 {
			t.Errorf("%s: the schema refuses it (%v %v): move the case to TestSchemaAndReaderRefuse", tc.name, ps, err)
		}
		_, err = policy.Decode(bytes.NewReader(data), "p.json")
		found := false
		for _, p := range policy.ProblemsOf(err) {
			found = found || p.Path == tc.path
		}
		if !found {
			t.Errorf("%s: the reader has no problem at %s: %v", tc.name, tc.path, err)
		}
	}
}

func TestNotJSON(t *testing.T) {
	if _, err := Validate([]byte(`{"format": `), "p.json"); err == nil || !strings.Contains(err.Error(), "p.json: not JSON") {
		t.Errorf("error %v, want p.json: not JSON", err)
	}
}

func TestPathOrder(t *testing.T) {
	want := []string{"", "decisions", "decisions[2].job", "decisions[10]", "pairs[2].source", "pairs[10].source"}
	for i := range want {
		for j := range want {
			if got := pathLess(want[i], want[j]); got != (i < j) {
				t.Errorf("pathLess(%q, %q) = %v", want[i], want[j], got)
			}
		}
	}
}

// TestCheck: one pass reports the schema's problems and the reader's
// others, each fault once, in file order; the reader's content problems
// come once the shape is right; a file refused by name gets that problem
// alone; a valid file its Policy.
func TestCheck(t *testing.T) {
	tests := []struct {
		edits []any
		want  []string
	}{
		{[]any{
			"pairs[3].source", "guess", // schema and reader: once, in the schema's words
			"decisions[0].placement[0].gpus[1]", 4, // reader only
		}, []string{
			`decisions[0].placement[0].gpus[1]: GPU 4 is out of range: node "v100-a" has GPUs 0 to 3`,
			`pairs[3].source: 'guess' does not match pattern '^(measured|predicted:.+)$'`,
		}},
		{[]any{
			"pairs[3].source", "guess",
			"decisions[0].placement[0].gpus[1]", 4,
			"thresholds.max_per_gpuu", 2, // a fault of shape: the reader stops before content
		}, []string{
			`pairs[3].source: 'guess' does not match pattern '^(measured|predicted:.+)$'`,
			`thresholds: additional properties 'max_per_gpuu' not allowed`,
		}},
	}
	for _, tc := range tests {
		data, err := jsonedit.Edit(fixture(t), tc.edits...)
		if err != nil {
			t.Fatal(err)
		}
		_, ps := Check(data, "p.json")
		var got []string
		for _, p := range ps {
			got = append(got, p.Path+": "+p.Msg)
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
	v5, _ := jsonedit.Edit(fixture(t), "version", 5, "pairs", nil)
	if _, ps := Check(v5, "p.json"); len(ps) != 1 || ps[0].Path != "version" {
		t.Errorf("version 5: %v, want the refusal alone", ps)
	}
	if p, ps := Check(fixture(t), "p.json"); p == nil || len(ps) > 0 {
		t.Errorf("fixture: %v", ps)
	}
}

// BenchmarkCheck is `coloc policy validate` on a policy of 1,000 jobs on
// 256 nodes of 8 GPUs with the tables of 26 workloads on 3 GPU types.
func BenchmarkCheck(b *testing.B) {
	data, err := policy.Encode(policytest.Big(1000, 256, 26))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := compiled(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ps := Check(data, "big"); len(ps) > 0 {
			b.Fatal(ps)
		}
	}
}
