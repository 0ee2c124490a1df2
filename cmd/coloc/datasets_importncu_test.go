package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/profile/sampler"
)

// importNCU runs `coloc profile import-ncu` through its constructor (the
// profile command that adds it lives elsewhere).
func importNCU(args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	cmd := newProfileImportNCUCmd(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SilenceUsage = true
	cmd.SilenceErrors = true
	err = cmd.Execute()
	return out.String(), errb.String(), err
}

func TestImportNCU(t *testing.T) {
	in := filepath.Join("..", "..", "profile", "sampler", "testdata", "ncu", "resnet18_h200_details.csv")
	out := filepath.Join(t.TempDir(), "kernels.arrow")
	stdout, stderr, err := importNCU(in, "-o", out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "wrote " + out + ": 3 kernels, 20 metrics (ncu details page)\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	if !strings.Contains(stderr, "warning: ") || !strings.Contains(stderr, "Function Cache Configuration has text values") {
		t.Errorf("stderr %q lacks the text-metric warning", stderr)
	}
	tab, err := sampler.ReadNCU(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Kernels) != 3 || tab.Kernels[1].Name[:10] != "sm90_xmma_" {
		t.Errorf("read back %d kernels, kernel 1 %q", len(tab.Kernels), tab.Kernels[1].Name)
	}
}

func TestImportNCUErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte(`"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"`+"\n"+`"0","k","Duration","usecond","1.2.3"`+"\n"), 0o644)
	empty := filepath.Join(dir, "empty.csv")
	os.WriteFile(empty, []byte(`"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"`+"\n"), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{bad}, `required flag(s) "out" not set`},
		{[]string{bad, "-o", filepath.Join(dir, "o.arrow")}, bad + `:2: column "Metric Value": metric Duration: "1.2.3" is not a number`},
		{[]string{empty, "-o", filepath.Join(dir, "o.arrow")}, "no kernel in the file"},
		{[]string{filepath.Join(dir, "missing.csv"), "-o", filepath.Join(dir, "o.arrow")}, "no such file"},
	}
	for _, tt := range tests {
		_, _, err := importNCU(tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("import-ncu %v: %v, want %q", tt.args, err, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "o.arrow")); err == nil {
		t.Error("a failed import left an output file")
	}
}
