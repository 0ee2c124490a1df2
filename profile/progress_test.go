package profile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

func TestProgress(t *testing.T) {
	tput := 123.4
	ok := &RunRecord{Status: datasets.StatusOK, Sides: []sideRecord{{Label: "a", Status: datasets.StatusOK, Throughput: &tput}}}
	bad := &RunRecord{Status: datasets.StatusFailed, Sides: []sideRecord{
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

// A campaign sharing by MPS names its daemon in mpsFile while it runs, and
// first quits the daemon a killed predecessor named there.
func TestCampaignMPSStateFile(t *testing.T) {
	log := filepath.Join(t.TempDir(), "mps.log")
	t.Setenv("FAKE_MPS_LOG", log)
	control := filepath.Join(testdata(t), "fake-mps-control.sh")
	dir := t.TempDir()
	old := t.TempDir() // the killed campaign's daemon directory
	state := filepath.Join(dir, mpsFile)
	rec := fmt.Sprintf(`{"version":1,"host":"","control":%q,"devices":"0","dir":%q}`, control, old)
	if err := os.WriteFile(state, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	s := fakeSuite(t, fake("a", "ok"))
	spy := &liveSpy{path: filepath.Join(dir, liveFile)}
	c := newCampaign(t, dir, s, planOpts("all", 1, 0, 1), spy)
	m, err := NewMPS(control, "0")
	if err != nil {
		t.Fatal(err)
	}
	c.Runner.Options.Share, c.MPS = datasets.ShareMPS, m
	var named []bool
	spy.onStart = func() {
		_, err := os.Stat(state)
		named = append(named, err == nil)
	}
	sum, err := c.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(log); string(got) != "quit\nstart 0\nquit\n" {
		t.Errorf("control saw %q, want the leftover quit, then this campaign's start and quit", got)
	}
	if !strings.Contains(strings.Join(sum.Warnings, "\n"), "left its MPS daemon running") {
		t.Errorf("warnings %q do not report the leftover daemon", sum.Warnings)
	}
	if len(named) == 0 || slices.Contains(named, false) {
		t.Errorf("state file present at each run's start: %v, want true for all", named)
	}
	for _, p := range []string{old, state} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left after the campaign", p)
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

	// With a state file: named from Start to Stop; a daemon whose campaign
	// was killed (no Stop) is quit by stopLeftoverMPS, which removes its
	// directory and the file.
	os.Remove(log)
	state := filepath.Join(t.TempDir(), mpsFile)
	m.StateFile = state
	if _, err := m.Start(); err != nil {
		t.Fatal(err)
	}
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("state file after Stop: %v, want none", err)
	}
	if _, err := m.Start(); err != nil {
		t.Fatal(err)
	}
	dir = m.dir
	if b, err := os.ReadFile(state); err != nil || !strings.Contains(string(b), dir) {
		t.Fatalf("state file %q (%v), want it to name %s", b, err, dir)
	}
	warn, err := stopLeftoverMPS(state)
	if err != nil || !strings.Contains(warn, "left its MPS daemon running (devices 2,3): quit it") {
		t.Errorf("stopLeftoverMPS: %q, %v", warn, err)
	}
	got, _ = os.ReadFile(log)
	if string(got) != "start 2,3\nquit\nstart 2,3\nquit\n" {
		t.Errorf("control saw %q, want two starts each quit", got)
	}
	for _, p := range []string{dir, state} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind after stopLeftoverMPS", p)
		}
	}
	if warn, err := stopLeftoverMPS(state); warn != "" || err != nil {
		t.Errorf("no state file: %q, %v", warn, err)
	}
	for _, bad := range []string{"{", `{"version":2}`, `{"version":1,"dir":""}`} {
		if err := os.WriteFile(state, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := stopLeftoverMPS(state); err == nil || !strings.Contains(err.Error(), state) {
			t.Errorf("state file %q: %v, want an error naming it", bad, err)
		}
		if _, err := os.Stat(state); err != nil {
			t.Errorf("state file %q was not kept: %v", bad, err)
		}
	}
}
