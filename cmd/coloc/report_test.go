package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/internal/version"
)

// The flags of coloc report reach the report: a missing stage file is
// refused before any step, within a second even on a loaded machine (the
// check opens no table), naming the flag, and nothing is written.
func TestReportFlagsChecked(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	start := time.Now()
	_, stderr, err := runCmd(t, "report", "--data", gavelDir, "--out", out, "--sim", "../../examples/cluster-gavel.yaml,nope.json")
	if err == nil || !strings.Contains(err.Error(), "--sim: stat nope.json") {
		t.Errorf("error %v, want the missing replay file", err)
	}
	if stderr != "" {
		t.Errorf("progress before the error:\n%s", stderr)
	}
	t.Logf("refused in %v", time.Since(start))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--data", gavelDir, "--out", out, "--eval", "nope.arrow"}, "--eval: stat nope.arrow"},
		{[]string{"report", "--data", gavelDir, "--out", out, "--predictions", gavelDir}, "--predictions: " + gavelDir + " is a directory"},
		{[]string{"report", "--data", gavelDir, "--out", out, "--active", "nope.json"}, "--active: stat nope.json"},
		{[]string{"report", "--out", out, "--models", gavelDir}, "--models: drawing the models' predictions needs the measured pairs"},
	} {
		if _, _, err := runCmd(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args[1:], err, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused report left %s behind", out)
	}
}

// Flag values complete (cobra's __complete is what the shell scripts of
// `coloc completion` call), and a mistyped flag names the nearest.
func TestCompletionAndSuggestions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
		not  string
	}{
		{[]string{"simulate", "--policy", "fifo,gr"}, []string{"fifo,greedy-pack"}, "fifo,fifo"},
		{[]string{"simulate", "--policy", "co"}, []string{"coloc"}, "fifo"},
		{[]string{"fit", "--models", "ia"}, []string{"iapp", "iasp"}, "mean"},
		{[]string{"eval", "--protocol", ""}, []string{"pairs", "new-job", "cross-device", "all"}, ""},
		{[]string{"eval", "--data", gavelDir, "--device", "k80,v"}, []string{"k80,v100"}, "k80,k80"},
		{[]string{"datasets", "export", "--format", ""}, []string{"csv", "parquet"}, ""},
		{[]string{"profile", "run", "--device", ""}, []string{"cuda", "cpu"}, ""},
	} {
		out, _ := mustRun(t, append([]string{"__complete"}, c.args...)...)
		lines := strings.Split(out, "\n")
		for _, w := range c.want {
			if !contains(lines, w) {
				t.Errorf("completing %v: %q lacks %q", c.args, out, w)
			}
		}
		if c.not != "" && contains(lines, c.not) {
			t.Errorf("completing %v offers %q", c.args, c.not)
		}
	}
	_, _, err := runCmd(t, "simulate", "--polcy", "fifo")
	if err == nil || !strings.Contains(err.Error(), "did you mean --policy?") {
		t.Errorf("mistyped flag: %v", err)
	}
	_, _, err = runCmd(t, "simulate", "--zzzzzz")
	if err == nil || !strings.Contains(err.Error(), "see coloc simulate --help") {
		t.Errorf("unknown flag far from any: %v", err)
	}
	_, _, err = runCmd(t, "reprot")
	if err == nil || !strings.Contains(err.Error(), "Did you mean this?\n\treport") {
		t.Errorf("mistyped command: %v", err)
	}
}

func contains(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}

// predict with a mistyped job names the nearest known ones.
func TestPredictUnknownJob(t *testing.T) {
	models := filepath.Join(t.TempDir(), "models")
	mustRun(t, "fit", "--data", gavelDir, "-o", models, "--models", "mean")
	_, _, err := runCmd(t, "predict", "--models", models, "--device", "k80", "A3c", "CycleGAN")
	if err == nil || !strings.Contains(err.Error(), `did you mean "A3C"?`) {
		t.Errorf("mistyped job: %v", err)
	}
	out, _ := mustRun(t, "__complete", "predict", "--models", models, "--device", "k8")
	if !strings.Contains(out, "k80\n") {
		t.Errorf("device completion from the models: %q", out)
	}
}

// coloc version prints the version the files it writes record, with the
// toolchain that built it.
func TestVersionCommand(t *testing.T) {
	out, _ := mustRun(t, "version")
	if want := "coloc " + version.String() + " (go"; !strings.HasPrefix(out, want) {
		t.Errorf("coloc version: %q, want it to start with %q", out, want)
	}
}
