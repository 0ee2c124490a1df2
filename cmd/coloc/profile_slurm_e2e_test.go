package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/internal/optional"
	"github.com/coloc-dev/coloc/profile"
	"github.com/coloc-dev/coloc/profile/fleet"
)

// The Slurm end-to-end tests submit the tiny suite (PyTorch on CPU) as a
// 2-shard job array to a real Slurm cluster (scripts/slurm-localhost.sh
// starts one on this machine), wait for it and merge the shards. They need
// sbatch, squeue, scancel and sinfo that answer, and torch in the Python
// named by COLOC_PYTHON (default /usr/bin/python3). They skip without
// them, unless COLOC_REQUIRE_SLURM=1 (CI), where they fail.

const tinySuite = "../../benchmarks/suites/tiny.yaml"

// slurmDeadline bounds every wait for Slurm; the arrays take well under a
// minute on a 2-core machine.
const slurmDeadline = 5 * time.Minute

func requireSlurm(t *testing.T) {
	t.Helper()
	fail := func(msg string) {
		optional.Missing(t, "slurm", "COLOC_REQUIRE_SLURM", msg+" (bash scripts/slurm-localhost.sh starts a one-node cluster)")
	}
	for _, bin := range []string{"sbatch", "squeue", "scancel", "sinfo"} {
		if _, err := exec.LookPath(bin); err != nil {
			fail(bin + " not found")
		}
	}
	out, err := exec.Command("sinfo", "-h", "-o", "%T").CombinedOutput()
	if err != nil {
		fail(fmt.Sprintf("sinfo failed (%v): %s", err, out))
	}
	if !regexp.MustCompile(`(?m)^(idle|mixed|allocated)$`).Match(out) {
		fail(fmt.Sprintf("no node is up (sinfo: %q)", strings.TrimSpace(string(out))))
	}
}

func requireTorch(t *testing.T) string {
	t.Helper()
	python := os.Getenv("COLOC_PYTHON")
	if python == "" {
		python = "/usr/bin/python3"
	}
	if out, err := exec.Command(python, "-c", "import torch").CombinedOutput(); err != nil {
		msg := fmt.Sprintf("%s cannot import torch (%v): %s", python, err, out)
		if os.Getenv("COLOC_REQUIRE_SLURM") == "1" {
			t.Fatal("COLOC_REQUIRE_SLURM=1 but " + msg)
		}
		optional.Missing(t, "torch", "COLOC_REQUIRE_TORCH", msg)
	}
	return python
}

// built is the coloc binary the end-to-end tests share, built once.
var built struct {
	once sync.Once
	dir  string
	err  error
}

// buildColoc builds the coloc binary (once per test process) into a
// temporary directory that TestMain removes.
func buildColoc(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			built.err = err
			return
		}
		if built.dir, err = os.MkdirTemp("", "coloc-e2e-"); err != nil {
			built.err = err
			return
		}
		if out, err := exec.Command(gobin, "build", "-o", filepath.Join(built.dir, "coloc"), ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatalf("building coloc: %v", built.err)
	}
	return filepath.Join(built.dir, "coloc")
}

// asMain, set in a child's environment, makes the test binary run coloc's
// main instead of the tests: a test that needs coloc as a process of its
// own, and not a built binary on another machine's PATH, runs itself
// (selfColoc) rather than waiting for `go build`.
const asMain = "COLOC_TEST_AS_MAIN"

// selfColoc is a command that runs coloc with args in a process of its
// own: this test binary, told to act as coloc's main.
func selfColoc(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe, args...)
	c.Env = append(os.Environ(), asMain+"=1")
	return c
}

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main()
		os.Exit(0)
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// slurmFleet is a fleet of the tiny suite on CPU in a test's directory,
// driven through a built coloc binary.
type slurmFleet struct {
	t      *testing.T
	coloc  string
	dir    string
	python string
	jobs   []string
}

// coloc runs the binary and returns its stdout and exit status; stderr goes
// to the test log.
func (s *slurmFleet) run(args ...string) (string, int) {
	s.t.Helper()
	var out, errb bytes.Buffer
	c := exec.Command(s.coloc, args...)
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	if errb.Len() > 0 {
		s.t.Logf("coloc %s: stderr:\n%s", args[1], errb.String())
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return out.String(), ee.ExitCode()
	case err != nil:
		s.t.Fatalf("coloc %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), 0
}

// submit writes and submits the fleet; it returns the array's job id.
func (s *slurmFleet) submit() string {
	s.t.Helper()
	out, code := s.run("profile", "slurm", "--suite", tinySuite, "--out", s.dir, "--shards", "2", "--device", "cpu",
		"--python", s.python, "--duration", "3s", "--warmup", "0.5s", "--repeats", "1", "--pairs", "all", "--degrees", "1",
		"--time", "10", "--submit")
	m := regexp.MustCompile(`submitted job array (\d+) \(2 tasks\)`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		s.t.Fatalf("coloc profile slurm --submit: status %d:\n%s", code, out)
	}
	s.jobs = append(s.jobs, m[1])
	return m[1]
}

// sbatch submits the fleet's script with extra arguments (--array=i).
func (s *slurmFleet) sbatch(args ...string) string {
	s.t.Helper()
	args = append(append([]string{"--parsable"}, args...), filepath.Join(s.dir, fleet.SlurmScriptName))
	out, err := exec.Command("sbatch", args...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("sbatch %s: %v: %s", strings.Join(args, " "), err, out)
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	s.jobs = append(s.jobs, id)
	return id
}

// wait polls squeue until job id has left the queue.
func (s *slurmFleet) wait(id string) {
	s.t.Helper()
	deadline := time.Now().Add(slurmDeadline)
	for time.Now().Before(deadline) {
		out, err := exec.Command("squeue", "-h", "-j", id, "-o", "%i %T").CombinedOutput()
		switch {
		case err == nil && len(bytes.TrimSpace(out)) == 0,
			err != nil && bytes.Contains(out, []byte("Invalid job id")):
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	s.dumpLogs()
	s.t.Fatalf("job %s still queued after %s", id, slurmDeadline)
}

// waitFor polls until cond holds.
func (s *slurmFleet) waitFor(what string, cond func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(slurmDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			s.dumpLogs()
			s.t.Fatalf("waited %s for %s", slurmDeadline, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// cleanup cancels whatever of the test's jobs is left.
func (s *slurmFleet) cleanup() {
	if len(s.jobs) > 0 {
		exec.Command("scancel", s.jobs...).Run()
	}
}

func (s *slurmFleet) dumpLogs() {
	logs, _ := filepath.Glob(filepath.Join(s.dir, "shards", "*", "slurm-*.out"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		s.t.Logf("%s:\n%s", l, b)
	}
}

// journal reads the records of a journal, in file order.
func journal(t *testing.T, path string) []profile.RunRecord {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []profile.RunRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var r profile.RunRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, r)
	}
	return out
}

// checkMerged checks that the merged campaign of the fleet in dir holds
// every run of the plan exactly once, ok, infeasible or failed with a
// reason, and valid tables with a row for every side of every run and both
// ordered rows of every pair whose run completed; it returns the journal by
// run ID. It asserts no measured value: the two shards share the node's
// cores, so a run may never settle (recorded ok, unsettled) or time out
// (failed, with the reason); both are measurement outcomes, not faults of
// the fleet. On failure it logs every run's status and reason.
func checkMerged(t *testing.T, dir string) map[string]profile.RunRecord {
	t.Helper()
	f, err := fleet.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]profile.RunRecord{}
	for _, r := range journal(t, filepath.Join(dir, "runs.jsonl")) {
		if _, dup := recs[r.RunID]; dup {
			t.Errorf("run %s twice in the merged journal", r.RunID)
		}
		recs[r.RunID] = r
	}
	defer func() {
		if t.Failed() {
			for _, pr := range f.Plan.Runs {
				if r, ok := recs[pr.ID]; ok {
					t.Logf("run %s: %s %s", pr.ID, r.Status, profile.FailureLine(&r))
				}
			}
		}
	}()
	sides := 0
	soloOK := map[string]bool{}
	for _, pr := range f.Plan.Runs {
		r, ok := recs[pr.ID]
		switch {
		case !ok:
			t.Errorf("run %s of the plan is missing from the merged journal", pr.ID)
			continue
		case r.Status == datasets.StatusOK, r.Status == datasets.StatusInfeasible:
		case r.Status == datasets.StatusFailed && strings.TrimSpace(r.Error) != "":
			t.Logf("run %s failed: %s", pr.ID, profile.FailureLine(&r))
		default:
			t.Errorf("run %s: status %q, error %q", pr.ID, r.Status, r.Error)
		}
		sides += len(r.Sides)
		if pr.Mode == datasets.ModeSolo && r.Status == datasets.StatusOK {
			soloOK[pr.Workloads[0]] = true
		}
	}
	if len(recs) != len(f.Plan.Runs) {
		t.Errorf("merged journal holds %d runs, the plan %d", len(recs), len(f.Plan.Runs))
	}
	ds, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Runs.Rows) != sides {
		t.Errorf("merged runs table: %d rows, want %d (one per side of every run)", len(ds.Runs.Rows), sides)
	}
	rows := map[[2]string]datasets.Pair{}
	for _, p := range ds.Pairs.Rows {
		rows[[2]string{p.Workload, p.Partner}] = p
	}
	for _, pr := range f.Plan.Runs {
		if r := recs[pr.ID]; pr.Mode != datasets.ModePair || r.Status != datasets.StatusOK {
			continue
		}
		a, b := pr.Workloads[0], pr.Workloads[1]
		for _, k := range [][2]string{{a, b}, {b, a}} {
			p, ok := rows[k]
			switch {
			case !soloOK[k[0]]: // no solo value to normalize by: left out, with a warning
			case !ok:
				t.Errorf("pair run %s completed but pairs lacks the row %s|%s", pr.ID, k[0], k[1])
			case p.Status != datasets.StatusOK && p.Status != datasets.StatusSuspect:
				t.Errorf("pair %s|%s: status %s from a completed run", k[0], k[1], p.Status)
			}
		}
	}
	return recs
}

func newSlurmFleet(t *testing.T) *slurmFleet {
	if testing.Short() {
		t.Skip("Slurm end-to-end test: skipped with -short")
	}
	requireSlurm(t)
	python := requireTorch(t)
	s := &slurmFleet{t: t, coloc: buildColoc(t), dir: filepath.Join(t.TempDir(), "tiny"), python: python}
	t.Cleanup(s.cleanup)
	return s
}

// TestSlurmFleet submits the tiny suite as a 2-shard array, waits for it,
// merges, and checks the merged campaign covers the plan once.
func TestSlurmFleet(t *testing.T) {
	s := newSlurmFleet(t)
	start := time.Now()
	id := s.submit()
	s.wait(id)
	out, code := s.run("profile", "merge", s.dir)
	t.Logf("array %s done and merged in %s:\n%s", id, time.Since(start).Round(time.Second), out)
	if code != 0 {
		s.dumpLogs()
		t.Fatalf("coloc profile merge: status %d", code)
	}
	checkMerged(t, s.dir)
	for i := 1; i <= 2; i++ {
		logs, _ := filepath.Glob(filepath.Join(s.dir, "shards", fmt.Sprint(i), "slurm-"+id+"_"+fmt.Sprint(i)+".out"))
		if len(logs) != 1 {
			t.Errorf("shard %d: no Slurm log slurm-%s_%d.out", i, id, i)
		}
	}
}

// TestSlurmFleetResubmit cancels one task once it has finished a run,
// lets the other finish, resubmits the cancelled one alone, and checks that
// the campaign completes without redoing the runs finished before the
// cancel.
func TestSlurmFleetResubmit(t *testing.T) {
	s := newSlurmFleet(t)
	start := time.Now()
	id := s.submit()
	shard1 := filepath.Join(s.dir, "shards", "1", "runs.jsonl")
	s.waitFor("shard 1's first run", func() bool { return len(journal(t, shard1)) >= 1 })
	if out, err := exec.Command("scancel", id+"_1").CombinedOutput(); err != nil {
		t.Fatalf("scancel %s_1: %v: %s", id, err, out)
	}
	s.wait(id)
	before := journal(t, shard1)
	f, err := fleet.Read(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) == 0 || len(before) >= len(f.Plan.Shards[0].Runs) {
		t.Fatalf("shard 1 finished %d of its %d runs before the cancel; want some, not all", len(before), len(f.Plan.Shards[0].Runs))
	}
	out, code := s.run("profile", "merge", s.dir)
	if code != exitIncomplete || !strings.Contains(out, "sbatch --array=1 ") {
		t.Errorf("merge after the cancel: status %d, want %d and the resubmit command:\n%s", code, exitIncomplete, out)
	}

	again := s.sbatch("--array=1")
	s.wait(again)
	out, code = s.run("profile", "merge", s.dir)
	t.Logf("cancelled after %d runs, resubmitted as %s, merged after %s:\n%s", len(before), again, time.Since(start).Round(time.Second), out)
	if code != 0 {
		s.dumpLogs()
		t.Fatalf("coloc profile merge after the resubmit: status %d", code)
	}
	recs := checkMerged(t, s.dir)
	after := journal(t, shard1)
	seen := map[string]bool{}
	for _, r := range after {
		if seen[r.RunID] {
			t.Errorf("shard 1 ran %s twice", r.RunID)
		}
		seen[r.RunID] = true
	}
	for _, r := range before {
		m := recs[r.RunID]
		if !m.Start.Equal(r.Start) || !m.End.Equal(r.End) {
			t.Errorf("run %s was redone: %s-%s before the cancel, %s-%s merged", r.RunID, r.Start, r.End, m.Start, m.End)
		}
	}
	log := filepath.Join(s.dir, "shards", "1", "slurm-"+again+"_1.out")
	b, err := os.ReadFile(log)
	if err != nil || !strings.Contains(string(b), fmt.Sprintf("resuming: %d runs already finished", len(before))) {
		t.Errorf("%s does not say the shard resumed after %d runs (%v):\n%s", log, len(before), err, b)
	}
}

// TestOneNodeShards follows docs/profiling.md's recipe for all the GPUs of
// one node without Slurm: the fleet's script run once per shard, side by
// side, then merged. On the fake suite and CPU, so it needs neither Slurm
// nor torch.
func TestOneNodeShards(t *testing.T) {
	if testing.Short() {
		t.Skip("builds coloc: skipped with -short")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	coloc := buildColoc(t)
	dir := filepath.Join(t.TempDir(), "node")
	python, _ := filepath.Abs("../../profile/testdata/fakepython.sh")
	suite, _ := filepath.Abs(fakeSuite)
	out, stderr, err := runCmd(t, "profile", "slurm", "--suite", suite, "--out", dir, "--shards", "2", "--device", "cpu",
		"--gpus-per-node", "0", "--python", python, "--coloc", coloc, "--duration", "1s", "--warmup", "0s",
		"--repeats", "1", "--pairs", "fast+slow,fast+fast,plain+plain", "--degrees", "1")
	if err != nil {
		t.Fatalf("profile slurm: %v\n%s%s", err, out, stderr)
	}
	var cmds []*exec.Cmd
	for i := 1; i <= 2; i++ {
		c := exec.Command(bash, filepath.Join(dir, fleet.SlurmScriptName))
		c.Env = append(os.Environ(), fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i))
		var b bytes.Buffer
		c.Stdout, c.Stderr = &b, &b
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("shard %d:\n%s", i, b.String())
			}
		})
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("shard %d: %v", i+1, err)
		}
	}
	merged, _, err := runCmd(t, "profile", "merge", dir)
	if err != nil {
		t.Fatalf("profile merge: %v\n%s", err, merged)
	}
	checkMerged(t, dir)
}
