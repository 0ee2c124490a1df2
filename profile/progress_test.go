package profile

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

func TestProgress(t *testing.T) {
	tput := 123.4
	ok := &RunRecord{Status: datasets.StatusOK, Sides: []SideRecord{{Label: "a", Status: datasets.StatusOK, Throughput: &tput}}}
	bad := &RunRecord{Status: datasets.StatusFailed, Sides: []SideRecord{
		{Label: "b", Status: datasets.StatusFailed, Error: "partner a failed"},
		{Label: "a", Status: datasets.StatusFailed, Log: "camp/logs/solo.b.r0.a.stderr",
			Error: "exit status 1; stderr:\nTraceback (most recent call last):\n  File \"x.py\", line 1\nModuleNotFoundError: No module named 'torch'\n\n"}}}
	bad.settle()
	runs := []PlannedRun{{ID: "solo.a.r0", Est: 10 * time.Second}, {ID: "solo.b.r0", Est: 10 * time.Second}}
	for _, terminal := range []bool{false, true} {
		var buf bytes.Buffer
		p := NewProgress(&buf, terminal).(*progress)
		var now time.Time
		at := func(s int) { now = time.Unix(int64(s), 0) }
		p.now = func() time.Time { return now }
		at(0)
		p.Warn("stopped a leftover")
		p.Begin(runs, 3)
		p.Start(0, runs[0])
		p.Warn("mid-run")
		at(10)
		p.Done(0, runs[0], ok)
		p.Start(1, runs[1])
		at(25)
		p.Done(1, runs[1], bad)
		p.End(&Summary{Planned: 5, Skipped: 3, OK: 4, Failed: 1})
		out := buf.String()
		for _, want := range []string{
			"warning: stopped a leftover\n",
			"warning: mid-run\n",
			"resuming: 3 runs already finished, 2 to go\n",
			"2 runs to do, estimated 20s\n",
			"[1/2] solo.a.r0: ok, a 123.4 samples/s (10s)\n",
			"[2/2] solo.b.r0: failed: a: exit status 1: ModuleNotFoundError: No module named 'torch' (log: camp/logs/solo.b.r0.a.stderr) (15s)\n",
			"5 runs: 4 ok, 1 failed, 0 infeasible, 3 skipped (done before); took 25s\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("terminal=%v: output lacks %q:\n%s", terminal, want, out)
			}
		}
		// As the second run starts: its estimate is 10 s and the first run
		// took as long as estimated, so the ETA is 10 s.
		if bar := strings.Contains(out, "\r\033[K[===============               ] 1/2 ETA 10s  solo.b.r0 0s"); bar != terminal {
			t.Errorf("terminal=%v: bar drawn = %v:\n%q", terminal, bar, out)
		}
	}
}

// fakeSharer records the campaign's MPS calls.
type fakeSharer struct{ calls []string }

func (f *fakeSharer) Start() ([]string, error) {
	f.calls = append(f.calls, "start")
	return []string{"CUDA_MPS_PIPE_DIRECTORY=/nonexistent/pipe"}, nil
}

func (f *fakeSharer) Stop() error {
	f.calls = append(f.calls, "stop")
	return nil
}

func TestCampaignMPS(t *testing.T) {
	s := fakeSuite(t, fake("a", "ok"))
	c := newCampaign(t, t.TempDir(), s, planOpts("all", 1, 0, 1), nil)
	c.Runner.Options.Share = datasets.ShareMPS
	if _, err := c.Execute(context.Background()); err == nil || !strings.Contains(err.Error(), "--share mps") {
		t.Fatalf("mps without an MPS control: %v", err)
	}
	sh := &fakeSharer{}
	c = newCampaign(t, t.TempDir(), s, planOpts("all", 1, 0, 1), nil)
	c.Runner.Options.Share, c.MPS = datasets.ShareMPS, sh
	sum, err := c.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sh.calls, ",") != "start,stop" || !strings.Contains(strings.Join(c.Runner.Env, " "), "CUDA_MPS_PIPE_DIRECTORY") {
		t.Errorf("MPS calls %v, runner env %v", sh.calls, c.Runner.Env)
	}
	for _, r := range sum.Tables.Runs.Rows {
		want := map[string]string{datasets.ModeSolo: datasets.ShareExclusive, datasets.ModePair: datasets.ShareMPS}[r.Mode]
		if r.ShareMode != want {
			t.Errorf("run %s share mode %s, want %s", r.RunID, r.ShareMode, want)
		}
	}
}

func TestMPSControl(t *testing.T) {
	if _, err := NewMPS("no-such-mps-control", "0"); err == nil || !strings.Contains(err.Error(), "not found in PATH") {
		t.Errorf("absent control: %v", err)
	}
	log := filepath.Join(t.TempDir(), "mps.log")
	t.Setenv("FAKE_MPS_LOG", log)
	m, err := NewMPS(filepath.Join(testdata(t), "fake-mps-control.sh"), "2,3")
	if err != nil {
		t.Fatal(err)
	}
	env, err := m.Start()
	if err != nil {
		t.Fatal(err)
	}
	dir := m.dir
	if len(env) != 2 || !strings.HasPrefix(env[0], "CUDA_MPS_PIPE_DIRECTORY="+dir) {
		t.Errorf("env %v", env)
	}
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(log)
	if string(got) != "start 2,3\nquit\n" {
		t.Errorf("control saw %q, want start on devices 2,3 then quit", got)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("MPS directory %s left behind", dir)
	}
}
