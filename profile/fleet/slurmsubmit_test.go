package fleet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolvePrograms(t *testing.T) {
	o := SlurmOptions{Coloc: "bin/coloc", Python: "python3"}
	if err := o.ResolvePrograms(); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if o.Coloc != filepath.Join(wd, "bin/coloc") || o.Python != "python3" {
		t.Errorf("coloc %q, python %q: want the path made absolute, the bare name kept", o.Coloc, o.Python)
	}
	o = SlurmOptions{Python: "./venv/bin/python"}
	if err := o.ResolvePrograms(); err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(o.Coloc) || o.Python != filepath.Join(wd, "venv/bin/python") {
		t.Errorf("coloc %q (want this binary), python %q", o.Coloc, o.Python)
	}
}

// Sbatch runs sbatch --parsable from the fleet directory and takes the
// job id before the cluster name; without sbatch it says how to submit.
func TestSbatch(t *testing.T) {
	bin := t.TempDir()
	fake := "#!/bin/sh\n[ \"$1\" = --parsable ] || exit 3\n[ -f \"$2\" ] || { echo \"no $2 in $(pwd)\" >&2; exit 4; }\necho '4711;gpu-cluster'\n"
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "campaign.sbatch"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	if id, err := Sbatch(dir, "campaign.sbatch"); err != nil || id != "4711" {
		t.Errorf("id %q, error %v", id, err)
	}
	if _, err := Sbatch(dir, "other.sbatch"); err == nil || !strings.Contains(err.Error(), "no other.sbatch") {
		t.Errorf("a failing sbatch: error %v, want its stderr", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Sbatch(dir, "campaign.sbatch"); err == nil || !strings.Contains(err.Error(), "sbatch not found") {
		t.Errorf("without sbatch: error %v", err)
	}
}
