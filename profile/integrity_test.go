package profile

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// A second campaign on a directory in use is refused naming the holder's
// PID; the lock file a holder leaves behind when it is killed does not
// block.
func TestCampaignLock(t *testing.T) {
	dir := t.TempDir()
	s := fakeSuite(t, fake("a", "ok"))
	unlock, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = newCampaign(t, dir, s, planOpts("none", 1, 0, 1), nil).Execute(context.Background())
	if !errors.Is(err, errLocked) || !strings.Contains(err.Error(), fmt.Sprintf("written by process %d", os.Getpid())) {
		t.Fatalf("second campaign: %v, want ErrLocked naming PID %d", err, os.Getpid())
	}
	unlock()

	// A holder killed with SIGKILL: the kernel drops its lock.
	flock, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("no flock(1) to hold the lock from another process")
	}
	holder := exec.Command(flock, "-x", "-o", filepath.Join(dir, lockFile), "sleep", "60")
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-holder.Process.Pid, syscall.SIGKILL)
	for i := 0; ; i++ { // wait until the holder has the lock
		u, err := lockDir(dir)
		if err != nil {
			break
		}
		u()
		if i == 500 {
			t.Fatal("flock(1) never took the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(-holder.Process.Pid, syscall.SIGKILL) // flock(1) and its sleep
	holder.Wait()
	// flock(1) forks its command after taking the lock, and the child has
	// the lock's file open until it closes it before exec: if the kill
	// came in between, the lock goes only when that child, which Wait does
	// not wait for, has exited. So wait for the kernel to drop it (on a
	// loaded machine this took longer than Wait once), then run.
	for i := 0; ; i++ {
		u, err := lockDir(dir)
		if err == nil {
			u()
			break
		}
		if i == 3000 {
			t.Fatalf("the lock outlived its killed holder by 30 s: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := newCampaign(t, dir, s, planOpts("none", 1, 0, 1), nil).Execute(context.Background()); err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
}

// A directory that holds tables but no campaign (an imported dataset) is
// refused, with or without Force, and its files are left alone; files a
// campaign would not replace (a batch system's output file) do not count.
func TestCampaignRefusesForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"solo.arrow", "pairs.arrow", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := fakeSuite(t, fake("a", "ok"))
	for _, force := range []bool{false, true} {
		c := newCampaign(t, dir, s, planOpts("none", 1, 0, 1), nil)
		c.Force = force
		_, err := c.Execute(context.Background())
		if err == nil || !strings.Contains(err.Error(), "is not a campaign directory") {
			t.Errorf("force=%v: %v, want a refusal", force, err)
		}
	}
	for _, name := range []string{"solo.arrow", "pairs.arrow", "notes.txt"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != name {
			t.Errorf("%s changed: %q, %v", name, b, err)
		}
	}
	shard := t.TempDir()
	if err := os.WriteFile(filepath.Join(shard, "slurm-7_1.out"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := newCampaign(t, shard, s, planOpts("none", 1, 0, 1), nil).Execute(context.Background()); err != nil {
		t.Errorf("a directory holding only a Slurm output file: %v", err)
	}
}

// --force on a directory of the same campaign starts over.
func TestCampaignForceStartsOver(t *testing.T) {
	dir := t.TempDir()
	s := fakeSuite(t, fake("a", "ok"))
	if _, err := newCampaign(t, dir, s, planOpts("none", 1, 0, 1), nil).Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := newCampaign(t, dir, s, planOpts("none", 1, 0, 1), nil)
	c.Force = true
	sum, err := c.Execute(context.Background())
	if err != nil || sum.Ran != 1 || sum.Skipped != 0 {
		t.Fatalf("--force: %+v, %v; want the run redone", sum, err)
	}
	if ids := readJournal(t, dir); len(ids) != 1 {
		t.Errorf("journal %v, want one run", ids)
	}
}

// Retry.Failed reruns the failed runs of a campaign and nothing else; the
// new record replaces the failed one in the tables.
func TestCampaignRetryFailed(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "failed-once")
	s := fakeSuite(t, fake("a", "ok"), fake("flaky", "once", marker))
	po := planOpts("none", 1, 0, 1)
	sum, err := newCampaign(t, dir, s, po, nil).Execute(context.Background())
	if err != nil || sum.Failed != 1 || sum.OK != 1 {
		t.Fatalf("first execution: %+v, %v; want 1 ok, 1 failed", sum, err)
	}
	sum, err = newCampaign(t, dir, s, po, nil).Execute(context.Background())
	if err != nil || sum.Ran != 0 {
		t.Fatalf("plain rerun: %+v, %v; want nothing run", sum, err)
	}
	mon := &fakeMonitor{}
	c := newCampaign(t, dir, s, po, mon)
	c.Retry.Failed = true
	sum, err = c.Execute(context.Background())
	if err != nil || sum.Retried != 1 || sum.Skipped != 1 || sum.Failed != 0 || sum.OK != 2 {
		t.Fatalf("retry: %+v, %v; want 1 retried, 1 skipped, 2 ok", sum, err)
	}
	if strings.Join(mon.started, ",") != "solo.flaky.r0" {
		t.Errorf("retry ran %v, want solo.flaky.r0 only", mon.started)
	}
	ds, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Runs.Rows) != 2 || len(ds.Solo.Rows) != 2 {
		t.Errorf("%d runs rows, %d solo rows; want 2, 2", len(ds.Runs.Rows), len(ds.Solo.Rows))
	}
}

// Retry.Unsettled reruns the ok runs whose step time never settled.
func TestCampaignRetryUnsettled(t *testing.T) {
	dir := t.TempDir()
	s := fakeSuite(t, fake("a", "ok"), fake("d", "drift"))
	po := planOpts("none", 1, 0, 1)
	sum, err := newCampaign(t, dir, s, po, nil).Execute(context.Background())
	if err != nil || sum.OK != 2 || sum.Unsettled != 1 {
		t.Fatalf("first execution: %+v, %v; want 2 ok, 1 of them unsettled", sum, err)
	}
	mon := &fakeMonitor{}
	c := newCampaign(t, dir, s, po, mon)
	c.Retry.Unsettled = true
	if _, err := c.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if strings.Join(mon.started, ",") != "solo.d.r0" {
		t.Errorf("retry ran %v, want solo.d.r0 only", mon.started)
	}
}

// One workload reporting impossible values fails its own runs with the
// reason; the tables of every other run are written.
func TestCampaignHostileWorkload(t *testing.T) {
	dir := t.TempDir()
	s := fakeSuite(t, fake("a", "ok"), fake("b", "ok", "--dt", "0.1"), fake("evil", "ok", "--peak", "-1", "--params", "-7"))
	sum, err := newCampaign(t, dir, s, planOpts("all", 1, 0, 1), nil).Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// solo a, b, evil; pairs a+a a+b a+evil b+b b+evil evil+evil.
	if sum.Failed != 4 || sum.OK != 5 {
		t.Errorf("%d ok, %d failed; want 5 ok and the 4 runs of evil failed", sum.OK, sum.Failed)
	}
	recs, _, err := peekJournal(filepath.Join(dir, journalName))
	if err != nil {
		t.Fatal(err)
	}
	for id, r := range recs {
		evil := strings.Contains(id, "evil")
		if evil != (r.Status == datasets.StatusFailed) {
			t.Errorf("run %s: %s (%s)", id, r.Status, r.Error)
		}
		if evil && !strings.Contains(r.Error, "evil: stdout line") {
			t.Errorf("run %s: error %q, want the evil side's bad line", id, r.Error)
		}
	}
	ds, err := datasets.Open(dir)
	if err != nil {
		t.Fatalf("tables of the good runs: %v", err)
	}
	if len(ds.Solo.Rows) != 2 || len(ds.Pairs.Rows) != 4 {
		t.Errorf("%d solo rows, %d pairs rows; want 2 (a, b) and 4 (a|a, a|b, b|a, b|b)", len(ds.Solo.Rows), len(ds.Pairs.Rows))
	}
}

// A run the monitor found beside another tenant's processes is recorded
// shared: a value comes from the runs measured alone when there are any,
// else from the shared runs, and then the pairs rows it makes are
// suspect; Retry.Shared runs exactly the shared runs again.
func TestCampaignSharedRuns(t *testing.T) {
	dir := t.TempDir()
	s := fakeSuite(t, fake("a", "ok"), fake("b", "ok"))
	po := planOpts("all", 2, 0, 1)
	tenant := "nvml: device 0: another tenant's process 4242 (python3) (in 3 of 9 ticks)"
	shared := []string{"solo.a.r0", "solo.b.r0", "solo.b.r1", "pair.a+a.r0", "pair.a+a.r1", "pair.a+b.r0"}
	mon := &fakeMonitor{shared: map[string]string{}}
	for _, id := range shared {
		mon.shared[id] = tenant
	}
	c := newCampaign(t, dir, s, po, mon)
	var ids []string
	for _, r := range c.Plan.Runs {
		ids = append(ids, r.ID)
	}
	for _, id := range shared {
		if !slices.Contains(ids, id) {
			t.Fatalf("plan %v has no run %s", ids, id)
		}
	}
	sum, err := c.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != len(ids) || sum.Shared != len(shared) {
		t.Fatalf("%d ok, %d shared; want %d ok, %d shared", sum.OK, sum.Shared, len(ids), len(shared))
	}
	for _, id := range shared {
		if r := sum.Records[id]; !r.sharedGPU() || !slices.Equal(r.Shared, []string{tenant}) {
			t.Errorf("record of %s: shared %q", id, r.Shared)
		}
		if !slices.Contains(sum.Warnings, id+": "+tenant) {
			t.Errorf("warnings %q do not name %s's tenant", sum.Warnings, id)
		}
	}
	for _, r := range sum.Tables.Runs.Rows {
		id, _, _ := strings.Cut(r.RunID, "/") // a pair run's rows are <run>/<label>
		if want := map[bool]string{true: tenant}[slices.Contains(shared, id)]; r.Shared != want {
			t.Errorf("runs row %s: shared %q, want %q", r.RunID, r.Shared, want)
		}
	}
	if n := strings.Join(sum.Notes(), "\n"); !strings.Contains(n, "6 runs shared their GPU") || !strings.Contains(n, "--retry-shared") {
		t.Errorf("notes %q", n)
	}
	repeats := map[string]int{}
	for _, r := range sum.Tables.Solo.Rows {
		repeats[r.Workload] = r.Repeats
	}
	if repeats["a"] != 1 || repeats["b"] != 2 {
		t.Errorf("solo repeats %v; want a 1 (its run alone), b 2 (both shared: no run alone)", repeats)
	}
	status := map[string]string{}
	for _, p := range sum.Tables.Pairs.Rows {
		status[p.Workload+"|"+p.Partner] = p.Status
	}
	// a|b: its pair run r1 was alone and a's solo value too; b|a is
	// normalized by b's shared solo runs; a|a's pair runs were both shared.
	want := map[string]string{"a|a": "suspect", "a|b": "ok", "b|a": "suspect", "b|b": "suspect"}
	if !maps.Equal(status, want) {
		t.Errorf("pairs statuses %v, want %v", status, want)
	}
	for _, sub := range []string{
		"pair a|a on cpu is suspect: another tenant's processes shared the GPU in pair run pair.a+a.r0, pair.a+a.r1 (coloc profile run --retry-shared reruns them)",
		"pair b|a on cpu is suspect: normalized by the solo value of b, measured beside another tenant's processes in run solo.b.r0, solo.b.r1",
		"solo value of b on cpu at 1 GPU(s) measured only beside another tenant's processes, in run solo.b.r0, solo.b.r1 (coloc profile run --retry-shared reruns them)",
	} {
		if !slices.ContainsFunc(sum.Warnings, func(w string) bool { return strings.Contains(w, sub) }) {
			t.Errorf("warnings %q lack %q", sum.Warnings, sub)
		}
	}
	if slices.ContainsFunc(sum.Warnings, func(w string) bool { return strings.Contains(w, "solo value of a on") }) {
		t.Errorf("warnings %q name a's solo value, which a run alone gave", sum.Warnings)
	}
	again := &fakeMonitor{}
	c = newCampaign(t, dir, s, po, again)
	c.Retry.Shared = true
	if sum, err = c.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(slices.Sorted(slices.Values(again.started)), slices.Sorted(slices.Values(shared))) {
		t.Errorf("retry ran %v, want the shared runs %v", again.started, shared)
	}
	for _, p := range sum.Tables.Pairs.Rows {
		if p.Status != datasets.StatusOK {
			t.Errorf("after the retry, pair %s|%s is %s", p.Workload, p.Partner, p.Status)
		}
	}
}

// The journal reads records of every version up to its own, a version-2
// record with no tenant seen, and refuses a version it does not know,
// naming the file and line.
func TestJournalVersions(t *testing.T) {
	path := filepath.Join(t.TempDir(), journalName)
	line := func(v int, id string) string {
		return fmt.Sprintf(`{"version":%d,"run_id":%q,"mode":"solo","status":"ok","sides":[]}`, v, id)
	}
	var lines []string
	for v := 1; v <= journalVersion; v++ {
		lines = append(lines, line(v, fmt.Sprintf("solo.a.r%d", v)))
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, _, err := peekJournal(path)
	if err != nil || len(recs) != journalVersion {
		t.Fatalf("%d records, %v; want %d", len(recs), err, journalVersion)
	}
	if r := recs["solo.a.r2"]; r.sharedGPU() {
		t.Errorf("a version-2 record reads as shared: %+v", r)
	}
	for _, v := range []int{0, journalVersion + 1} {
		bad := append(slices.Clone(lines), line(v, "solo.b.r0"))
		if err := os.WriteFile(path, []byte(strings.Join(bad, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%s:%d: journal record version %d is not known to this coloc (it reads versions 1 to %d)", path, len(bad), v, journalVersion)
		if _, _, err := peekJournal(path); err == nil || err.Error() != want {
			t.Errorf("version %d: %v, want %q", v, err, want)
		}
	}
}
