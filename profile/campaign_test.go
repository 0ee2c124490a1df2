package profile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// newCampaign is a campaign of suite s on the fake CPU device in dir.
func newCampaign(t *testing.T, dir string, s *Suite, po PlanOptions, mon Monitor) *Campaign {
	t.Helper()
	plan, err := NewPlan(s, po)
	if err != nil {
		t.Fatal(err)
	}
	o := fakeOptions(t)
	return &Campaign{
		Dir: dir, Suite: s, Plan: plan,
		Runner:   &Runner{Suite: s, Options: o, Monitor: mon},
		Hardware: Hardware{Host: "test", Devices: o.Devices},
	}
}

func readJournal(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, journalName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("journal line %q: %v", sc.Text(), err)
		}
		ids = append(ids, r.RunID)
	}
	return ids
}

func TestCampaignTables(t *testing.T) {
	dir := t.TempDir()
	s := fakeSuite(t, fake("a", "ok", "--warm", "3"), fake("b", "ok", "--dt", "0.1", "--steps", "20"), fake("bad", "crash"))
	mon := &fakeMonitor{}
	c := newCampaign(t, dir, s, planOpts("all", 2, 0, 1), mon)
	sum, err := c.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// 3 solo + 6 pairs, twice; every run with bad fails.
	if sum.Planned != 18 || sum.Ran != 18 || sum.OK != 10 || sum.Failed != 8 {
		t.Errorf("summary %+v", sum)
	}
	ds, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ds.SamplesPath == "" || ds.Runs == nil || ds.Solo == nil || ds.Pairs == nil {
		t.Fatalf("dataset %+v lacks tables", ds)
	}
	// runs: 6 solo rows, 12 pair runs × 2 rows.
	if n := len(ds.Runs.Rows); n != 6+24 {
		t.Errorf("%d runs rows, want 30", n)
	}
	for _, r := range ds.Runs.Rows {
		if r.Campaign != filepath.Base(dir) || r.DeviceType != "cpu" {
			t.Errorf("run row %+v", r)
		}
		if (r.Workload == "bad" || r.Partner == "bad") != (r.Status == datasets.StatusFailed) {
			t.Errorf("run %s status %s", r.RunID, r.Status)
		}
	}
	if len(ds.Solo.Rows) != 2 {
		t.Fatalf("solo rows %+v, want a and b", ds.Solo.Rows)
	}
	for _, r := range ds.Solo.Rows {
		want := map[string]float64{"a": 80, "b": 40}[r.Workload]
		if math.Abs(r.Throughput-want) > 1e-6 || r.Repeats != 2 || r.Source != "coloc:"+filepath.Base(dir) {
			t.Errorf("solo %+v, want throughput %v over 2 repeats", r, want)
		}
	}
	// pairs: a|a, a|b, b|a, b|b; the pairs with bad failed and are absent.
	got := map[string]datasets.Pair{}
	for _, p := range ds.Pairs.Rows {
		got[p.Workload+"|"+p.Partner] = p
	}
	if len(got) != 4 {
		t.Errorf("pairs %v, want a|a a|b b|a b|b", keys(got))
	}
	for _, k := range []string{"a|a", "a|b", "b|a", "b|b"} {
		p, ok := got[k]
		if !ok || p.Status != datasets.StatusOK || p.Repeats != 2 || math.Abs(p.Normalized-1) > 1e-6 {
			// the fakes report the same synthetic steps alone and paired
			t.Errorf("pair %s = %+v, want ok, normalized 1 over 2 repeats", k, p)
		}
	}
	// samples: every run's rows gathered, one device row + one per process.
	st, err := datasets.Read(ds.SamplesPath)
	if err != nil {
		t.Fatal(err)
	}
	if st.Len() != 6*2+12*3 {
		t.Errorf("%d sample rows, want 48", st.Len())
	}
	man, err := ReadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if man.Torch != "0.0-fake" || man.Suite.Hash != s.Hash() || len(man.Plan.Runs) != 18 || man.Progress.Finished != 18 || man.Workloads["a"] == nil {
		t.Errorf("manifest %+v", man)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCampaignResumeAfterKill(t *testing.T) {
	dir := t.TempDir()
	s := fakeSuite(t, fake("a", "ok"), fake("b", "ok"))
	po := planOpts("all", 1, 0, 1) // solo a, solo b, a+a, a+b, b+b
	first := &fakeMonitor{}
	if _, err := newCampaign(t, dir, s, po, first).Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Simulate a kill during the fourth run's journal write: keep three
	// records and half of the fourth, drop the last; the tables are gone.
	path := filepath.Join(dir, journalName)
	data, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(data, []byte("\n"))
	cut := append(bytes.Join(lines[:3], nil), lines[3][:len(lines[3])/2]...)
	if err := os.WriteFile(path, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "pairs.arrow"))

	again := &fakeMonitor{}
	sum, err := newCampaign(t, dir, s, po, again).Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 3 || sum.Ran != 2 || !strings.Contains(strings.Join(sum.Warnings, "\n"), "unfinished last record") {
		t.Errorf("summary %+v: want 3 skipped, 2 redone, a warning about the cut record", sum)
	}
	if want := []string{"pair.a+b.r0", "pair.b+b.r0"}; strings.Join(again.started, ",") != strings.Join(want, ",") {
		t.Errorf("rerun ran %v, want %v", again.started, want)
	}
	ids := readJournal(t, dir)
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Errorf("run %s twice in the journal", id)
		}
		seen[id] = true
	}
	if len(ids) != 5 {
		t.Errorf("journal %v, want 5 runs", ids)
	}
	ds, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Pairs.Rows) != 4 || len(ds.Runs.Rows) != 2+6 {
		t.Errorf("%d pairs rows, %d runs rows after resume; want 4, 8", len(ds.Pairs.Rows), len(ds.Runs.Rows))
	}

	// Nothing left: a third execution runs nothing.
	third := &fakeMonitor{}
	if sum, err := newCampaign(t, dir, s, po, third).Execute(context.Background()); err != nil || sum.Ran != 0 || len(third.started) != 0 {
		t.Errorf("third execution ran %v (%v)", third.started, err)
	}
}

func TestCampaignRefusesAnotherCampaign(t *testing.T) {
	dir := t.TempDir()
	s := fakeSuite(t, fake("a", "ok"))
	if _, err := newCampaign(t, dir, s, planOpts("none", 1, 0, 1), nil).Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	changed := fakeSuite(t, fake("a", "ok", "--steps", "50"))
	_, err := newCampaign(t, dir, changed, planOpts("none", 1, 0, 1), nil).Execute(context.Background())
	if err == nil || !strings.Contains(err.Error(), "holds another campaign: suite fake changed") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("error %v, want a refusal naming the suite and --force", err)
	}
	_, err = newCampaign(t, dir, s, planOpts("none", 2, 0, 1), nil).Execute(context.Background())
	if err == nil || !strings.Contains(err.Error(), "plan changed (1 runs, now 2") {
		t.Fatalf("error %v, want a refusal naming the plan", err)
	}
	c := newCampaign(t, dir, changed, planOpts("none", 1, 0, 1), nil)
	c.Force = true
	sum, err := c.Execute(context.Background())
	if err != nil || sum.Ran != 1 || sum.Skipped != 0 {
		t.Fatalf("--force: %+v, %v; want the run redone", sum, err)
	}
	if ids := readJournal(t, dir); len(ids) != 1 {
		t.Errorf("journal after --force %v, want one run", ids)
	}
}

func TestCampaignInfeasiblePairs(t *testing.T) {
	dir := t.TempDir()
	const gib = "1073741824"
	big := fake("big", "ok", "--peak", "6"+strings.Repeat("0", 9)) // 6 GB measured
	guess := fake("guess", "ok")                                   // no measured peak (CPU) ...
	guess.MemoryGB = 9                                             // ... but the suite says 9 GiB
	small := fake("small", "ok", "--peak", gib)
	s := fakeSuite(t, big, guess, small)
	mon := &fakeMonitor{}
	c := newCampaign(t, dir, s, planOpts("all", 1, 0, 1), mon)
	c.Runner.Options.Devices[0].MemoryBytes = 10 << 30
	c.Runner.Options.ProcessOverhead = 0.5 * bytesPerGiB
	if _, err := c.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	// big+big 12.2 GiB, big+guess 15.1, guess+guess 19: infeasible;
	// big+small 7.6, guess+small 11 (infeasible), small+small 3: run.
	infeasible := map[string]bool{"big|big": true, "big|guess": true, "guess|big": true, "guess|guess": true, "guess|small": true, "small|guess": true}
	ds, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Pairs.Rows) != 9 {
		t.Errorf("%d pair rows, want 9", len(ds.Pairs.Rows))
	}
	for _, p := range ds.Pairs.Rows {
		k := p.Workload + "|" + p.Partner
		want := datasets.StatusOK
		if infeasible[k] {
			want = datasets.StatusInfeasible
		}
		if p.Status != want {
			t.Errorf("pair %s: %s, want %s", k, p.Status, want)
		}
	}
	for _, id := range mon.started {
		if id == "pair.big+big.r0" || id == "pair.guess+small.r0" {
			t.Errorf("infeasible pair %s was run", id)
		}
	}
	for _, r := range ds.Runs.Rows {
		if r.RunID == "pair.big+guess.r0/big" && (r.Status != datasets.StatusInfeasible || !strings.Contains(r.Error, "big 5.6 GiB measured + guess 9.0 GiB from the suite's memory_gb")) {
			t.Errorf("run row %+v", r)
		}
	}
}

func TestCampaignOOMPairIsInfeasible(t *testing.T) {
	dir := t.TempDir()
	s := fakeSuite(t, fake("a", "ok"), fake("oom", "oom"))
	c := newCampaign(t, dir, s, planOpts("a+oom", 1, 0, 1), nil)
	if _, err := c.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Pairs.Rows) != 2 {
		for _, r := range ds.Runs.Rows {
			t.Logf("run %+v", r)
		}
		t.Fatalf("pairs %+v, want a|oom and oom|a", ds.Pairs.Rows)
	}
	for _, p := range ds.Pairs.Rows {
		if p.Status != datasets.StatusInfeasible || !math.IsNaN(p.Normalized) {
			t.Errorf("pair %+v, want infeasible without a value", p)
		}
	}
}

// cancelAt cancels the campaign when the named run starts.
type cancelAt struct {
	nopProgress
	id     string
	cancel context.CancelFunc
}

func (c *cancelAt) Start(_ int, r PlannedRun) {
	if r.ID == c.id {
		c.cancel()
	}
}

func TestCampaignCancel(t *testing.T) {
	dir := t.TempDir()
	s := fakeSuite(t, fake("a", "ok"), fake("sleepy", "stubborn"))
	mon := &fakeMonitor{}
	c := newCampaign(t, dir, s, planOpts("none", 1, 0, 1), mon)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.Progress = &cancelAt{id: "solo.sleepy.r0", cancel: cancel}
	sum, err := c.Execute(ctx)
	if !errors.Is(err, errInterrupted) || !strings.Contains(err.Error(), "rerun the same command to resume") {
		t.Fatalf("error %v, want ErrInterrupted", err)
	}
	if sum.Ran != 1 {
		t.Errorf("summary %+v, want the one finished run", sum)
	}
	if ids := readJournal(t, dir); len(ids) != 1 || ids[0] != "solo.a.r0" {
		t.Errorf("journal %v, want solo.a.r0 only", ids)
	}
	for _, pids := range mon.pids() {
		if !groupGone(pids[0]) {
			t.Errorf("process group %d survived the cancel", pids[0])
		}
	}
	ds, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Runs.Rows) != 1 || len(ds.Solo.Rows) != 1 {
		t.Errorf("tables after cancel: %d runs, %d solo rows; want 1, 1", len(ds.Runs.Rows), len(ds.Solo.Rows))
	}

	// The rerun redoes the interrupted run (which now times out) only.
	again := &fakeMonitor{}
	c = newCampaign(t, dir, s, planOpts("none", 1, 0, 1), again)
	c.Runner.Options.Timeout = 300 * time.Millisecond
	sum, err = c.Execute(context.Background())
	if err != nil || sum.Skipped != 1 || sum.Ran != 1 || strings.Join(again.started, ",") != "solo.sleepy.r0" {
		t.Errorf("rerun: %+v, %v, ran %v; want solo.sleepy.r0 redone", sum, err, again.started)
	}
}
