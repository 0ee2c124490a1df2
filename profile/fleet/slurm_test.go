package fleet

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/profile"
)

// update rewrites the golden files under testdata: go test ./profile/fleet -update.
var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

// gpuFleet is a fleet of profile's testdata/fake.yaml for 2 GPUs a shard,
// in 3 shards, with the Slurm settings of a GPU cluster.
func gpuFleet(t *testing.T) *Fleet {
	t.Helper()
	s, err := profile.LoadSuite("../testdata/fake.yaml")
	if err != nil {
		t.Fatal(err)
	}
	po := planOpts("all", 1, 2, 1, 2)
	po.Duration = 10 * time.Second
	plan, err := profile.NewPlan(s, po)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--device", "cuda", "--gpus", "2", "--pairs", "all", "--degrees", "1,2", "--duration", "10s",
		"--repeats", "1", "--seed", "1", "--warmup", "5s", "--interval", "100ms", "--share", "timeslice"}
	f, err := New("h200", s, plan, 3, Settings{Device: "cuda", GPUs: 2, DurationS: 10, WarmupS: 5, Share: "timeslice"}, args)
	if err != nil {
		t.Fatal(err)
	}
	f.Slurm = &SlurmOptions{JobName: "coloc-h200", Partition: "gpu", Constraint: "h200", CPUsPerTask: 16, Time: "12:00:00",
		Coloc: "/opt/coloc/bin/coloc", Suite: "/shared/coloc/profile/testdata/fake.yaml", Python: "/usr/bin/python3"}
	return f
}

func TestSlurmScriptGolden(t *testing.T) {
	script, err := SlurmScript("/shared/camp/h200", gpuFleet(t))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/campaign.sbatch.golden", script)
}

// TestSlurmScriptRuns runs the script as Slurm would run array task 2,
// with a fake coloc that prints its arguments, in a directory whose name
// needs quoting.
func TestSlurmScriptRuns(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	tmp := t.TempDir()
	coloc := filepath.Join(tmp, "coloc")
	if err := os.WriteFile(coloc, []byte("#!/bin/sh\nfor a; do echo \"$a\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "it's")
	f := gpuFleet(t)
	f.Slurm.Coloc = coloc
	script, err := SlurmScript(dir, f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(tmp, "campaign.sbatch")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", path)
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=2")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := append(append([]string{"profile", "run", "--suite", f.Slurm.Suite, "--python", "/usr/bin/python3"}, f.Args...),
		"--out", filepath.Join(dir, "shards", "2"), "--shard", "2/3")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("task 2 ran coloc with\n%q\nwant\n%q", got, want)
	}
	// sbatch reads quotes in #SBATCH lines as grouping: the one in the
	// directory's name is escaped.
	if !strings.Contains(script, "#SBATCH --output="+strings.ReplaceAll(dir, "'", `\'`)+"/shards/%a/slurm-%A_%a.out\n") {
		t.Errorf("script lacks the log path in %s:\n%s", dir, script)
	}

	// Outside an array task it refuses to run.
	cmd = exec.Command("bash", path)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "run this script with sbatch") {
		t.Errorf("without SLURM_ARRAY_TASK_ID: %v: %s", err, out)
	}
}

func TestSlurmScriptRefuses(t *testing.T) {
	tests := []struct {
		dir  string
		edit func(o *SlurmOptions)
		want string
	}{
		{"camp", func(*SlurmOptions) {}, "absolute path"},
		{"/shared/my camp", func(*SlurmOptions) {}, "without white space"},
		{"/c", func(o *SlurmOptions) { o.Time = "12 hours" }, "cannot hold white space"},
		{"/c", func(o *SlurmOptions) { o.Time = "1h" }, "Slurm's format"},
		{"/c", func(o *SlurmOptions) { o.Partition = "gpu\n#SBATCH --x" }, "--partition"},
		{"/c", func(o *SlurmOptions) { o.CPUsPerTask = -1 }, "--cpus-per-task -1"},
	}
	for _, tc := range tests {
		f := gpuFleet(t)
		tc.edit(f.Slurm)
		if _, err := SlurmScript(tc.dir, f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %+v: %v, want %q", tc.dir, f.Slurm, err, tc.want)
		}
	}
	for _, ok := range []string{"30", "1:30", "12:00:00", "2-00", "2-12:00", "1-00:00:00", "UNLIMITED"} {
		f := gpuFleet(t)
		f.Slurm.Time = ok
		if _, err := SlurmScript("/c", f); err != nil {
			t.Errorf("--time %s: %v", ok, err)
		}
	}
}

func TestSbatchValue(t *testing.T) {
	for in, want := range map[string]string{
		"/shared/camp":   "/shared/camp",
		"/x/it's":        `/x/it\'s`,
		`/x/a"b\c`:       `/x/a\"b\\c`,
		"/x/100%/shards": "/x/100%%/shards",
	} {
		if got := sbatchValue(in); got != want {
			t.Errorf("sbatchValue(%q) = %q, want %q", in, got, want)
		}
	}
}
