package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/internal/jsonedit"
	"github.com/coloc-dev/coloc/policy"
)

const policyFixture = "../../policy/testdata/small.json"

// runPolicyValidate runs the command as `coloc policy validate` will.
func runPolicyValidate(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := newPolicyValidateCmd(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), err
}

// writePolicies writes the fixture mutated by each edit list into dir.
func writePolicies(t *testing.T, dir string, files map[string][]any) {
	t.Helper()
	data, err := os.ReadFile(policyFixture)
	if err != nil {
		t.Fatal(err)
	}
	for name, edits := range files {
		b := data
		if len(edits) > 0 {
			if b, err = jsonedit.Edit(data, edits...); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	dir := t.TempDir()
	writePolicies(t, dir, map[string][]any{
		"good.json":      nil,
		"typo.json":      {"thresholds.max_per_gpuu", 2, "decisions[0].placement[0].gpus[1]", -1},
		"content.json":   {"decisions[0].placement[0].gpus[1]", 4, "decisions[2].colocated_with", jsonedit.Delete},
		"version-5.json": {"version", 5},
	})
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{\n  \"format\": \"coloc.policy\",\n  oops\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		files []string
		ok    bool
		lines []string // each must be a line of the output
	}{
		{[]string{"good.json"}, true, []string{"DIR/good.json: ok (policy version 1: 6 decisions, 5 placed, 1 unplaceable; 31 pairs, 26 solo, 8 scaling, 4 similarity references)"}},
		{[]string{"typo.json"}, false, []string{
			"DIR/typo.json: decisions[0].placement[0].gpus[1]: minimum: got -1, want 0",
			"DIR/typo.json: thresholds: additional properties 'max_per_gpuu' not allowed",
		}},
		{[]string{"content.json"}, false, []string{
			`DIR/content.json: decisions[0].placement[0].gpus[1]: GPU 4 is out of range: node "v100-a" has GPUs 0 to 3`,
			`DIR/content.json: decisions[1].colocated_with[0]: job "rec-b" (decisions[2]) does not list "lm-a" back`,
		}},
		{[]string{"version-5.json"}, false, []string{"DIR/version-5.json: version: version 5: this reader knows versions 1 to 4"}},
		{[]string{"broken.json"}, false, []string{"DIR/broken.json:3: not JSON: invalid character 'o' looking for beginning of object key string"}},
		{[]string{"missing.json"}, false, []string{"open DIR/missing.json: no such file or directory"}},
		{[]string{"good.json", "content.json"}, false, []string{"DIR/good.json: ok (policy version 1: 6 decisions, 5 placed, 1 unplaceable; 31 pairs, 26 solo, 8 scaling, 4 similarity references)"}},
	}
	for _, tc := range tests {
		var args []string
		for _, f := range tc.files {
			args = append(args, filepath.Join(dir, f))
		}
		out, err := runPolicyValidate(t, args...)
		out = strings.ReplaceAll(out, dir, "DIR")
		if (err == nil) != tc.ok {
			t.Errorf("%v: error %v, want ok %v", tc.files, err, tc.ok)
		}
		if err != nil && exitCode(err) != 1 {
			t.Errorf("%v: exit status %d, want 1", tc.files, exitCode(err))
		}
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for _, want := range tc.lines {
			found := false
			for _, l := range got {
				found = found || l == want
			}
			if !found {
				t.Errorf("%v: no line\n  %s\nin\n%s", tc.files, want, out)
			}
		}
	}
	// The summary of a valid file agrees with the file.
	p, err := policy.Load(policyFixture)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.File.Decisions) != 6 || len(p.File.Pairs) != 31 || len(p.File.Solo) != 26 || len(p.File.Scaling) != 8 {
		t.Errorf("the fixture changed: update the expected summary")
	}
}

func TestPolicyValidateSchemaFlag(t *testing.T) {
	out, err := runPolicyValidate(t, "--schema")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(policy.Schema()) {
		t.Error("--schema does not print the embedded schema")
	}
	if _, err := runPolicyValidate(t); err == nil {
		t.Error("no file and no --schema is accepted")
	}
	if _, err := runPolicyValidate(t, "--schema", policyFixture); err == nil {
		t.Error("--schema with a file is accepted")
	}
}
