package profile

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/profile/sampler"
)

func TestParseProcStat(t *testing.T) {
	// Fields 3 to 22 after the command name; starttime is the 20th.
	rest := "S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 987654 20 21"
	tests := []struct {
		line  string
		ok    bool
		state byte
		start uint64
	}{
		{"42 (python3) " + rest, true, 'S', 987654},
		{"42 (a b) c) (d) " + strings.Replace(rest, "S", "Z", 1), true, 'Z', 987654},
		{"42 (python3) S 1 2 3", false, 0, 0},
		{"42 python3 " + rest, false, 0, 0},
		{"42 (python3) " + strings.Replace(rest, "987654", "x", 1), false, 0, 0},
	}
	for _, tc := range tests {
		st, ok := parseProcStat([]byte(tc.line))
		if ok != tc.ok || st.state != tc.state || st.start != tc.start {
			t.Errorf("%q: %+v %v, want state %c start %d ok %v", tc.line, st, ok, tc.state, tc.start, tc.ok)
		}
	}
	if !procReadable() {
		t.Skip("no /proc here")
	}
	if st, ok := procStat(os.Getpid()); !ok || st.exited() || st.start == 0 {
		t.Errorf("this process: %+v %v", st, ok)
	}
}

// startGroup starts argv in a process group of its own and reads its start
// time; the group is killed when the test ends.
func startGroup(t *testing.T, argv ...string) (*exec.Cmd, liveProc) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	st, ok := procStat(cmd.Process.Pid)
	if !ok {
		t.Fatalf("no /proc/%d/stat", cmd.Process.Pid)
	}
	return cmd, liveProc{Label: filepath.Base(argv[0]), PID: cmd.Process.Pid, StartTicks: st.start}
}

// waitSignal waits for cmd and returns the signal that ended it.
func waitSignal(t *testing.T, cmd *exec.Cmd) syscall.Signal {
	t.Helper()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("process %d still runs 30 s after it was stopped", cmd.Process.Pid)
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() {
		return 0
	}
	return ws.Signal()
}

// The processes a live file names and that still run are stopped (SIGTERM,
// SIGKILL for one that ignores it); a PID now naming another process (its
// start time differs) and a process that has ended are left alone; the
// file is removed.
func TestStopLeftovers(t *testing.T) {
	if !procReadable() {
		t.Skip("no /proc here")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, liveFile)
	polite, pp := startGroup(t, "sleep", "60")
	stubborn, sp := startGroup(t, "sh", "-c", `trap "" TERM; while :; do sleep 0.1; done`)
	stranger, xp := startGroup(t, "sleep", "61")
	xp.StartTicks++ // the PID, reused by another process since
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	write := func(rec liveRecord) {
		b := fmt.Sprintf(`{"version":%d,"host":%q,"run":%q,"procs":[`, rec.Version, rec.Host, rec.Run)
		for i, p := range rec.Procs {
			if i > 0 {
				b += ","
			}
			b += fmt.Sprintf(`{"label":%q,"pid":%d,"start_ticks":%d}`, p.Label, p.PID, p.StartTicks)
		}
		if err := os.WriteFile(path, []byte(b+"]}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sp.Label = "stubborn"
	write(liveRecord{Version: liveVersion, Host: host, Run: "pair.a+b.r0", Procs: []liveProc{
		pp, sp, xp, {Label: "gone", PID: gone.Process.Pid, StartTicks: 1},
	}})
	warns, err := stopLeftovers(path, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if sig := waitSignal(t, polite); sig != syscall.SIGTERM {
		t.Errorf("leftover sleep ended by %v, want SIGTERM", sig)
	}
	if sig := waitSignal(t, stubborn); sig != syscall.SIGKILL {
		t.Errorf("leftover that ignores SIGTERM ended by %v, want SIGKILL", sig)
	}
	if err := syscall.Kill(stranger.Process.Pid, 0); err != nil {
		t.Errorf("the process whose start time differs was stopped: %v", err)
	}
	all := strings.Join(warns, "\n")
	for _, want := range []string{"run pair.a+b.r0", fmt.Sprintf("sleep (pid %d)", pp.PID), fmt.Sprintf("stubborn (pid %d) ignored SIGTERM", sp.PID)} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings %q do not say %q", warns, want)
		}
	}
	if strings.Contains(all, "gone") || strings.Contains(all, fmt.Sprint(xp.PID)) {
		t.Errorf("warnings %q name a process that was not stopped", warns)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("live file after stopLeftovers: %v, want it removed", err)
	}

	// Another host's processes are not looked for; a bad file is an error
	// naming it, and kept.
	write(liveRecord{Version: liveVersion, Host: host + "-other", Run: "solo.a.r0", Procs: []liveProc{xp}})
	warns, err = stopLeftovers(path, time.Second)
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0], "on host "+host+"-other") {
		t.Errorf("another host: %q, %v", warns, err)
	}
	for _, bad := range []string{"{", `{"version":2,"procs":[]}`, `{"version":1,"procs":[{"label":"a","pid":0}]}`} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := stopLeftovers(path, time.Second); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("file %q: error %v, want one naming %s", bad, err, path)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("file %q was not kept: %v", bad, err)
		}
	}
}

// liveSpy reads the live file whenever a run's processes start.
type liveSpy struct {
	fakeMonitor
	path    string
	seen    []liveRecord
	onStart func() // also called at each start, when set
}

func (m *liveSpy) Start(runID string, tg sampler.Target) {
	m.fakeMonitor.Start(runID, tg)
	if m.onStart != nil {
		m.onStart()
	}
	rec, _, err := readLive(m.path)
	if err != nil {
		rec.Run = "unreadable: " + err.Error()
	}
	m.seen = append(m.seen, rec)
}

// A campaign names each run's processes in the live file while the run is
// in progress, removes the file after it, and first stops what a killed
// predecessor's file names.
func TestCampaignStopsLeftovers(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for processes to stop (10 s); not in -short")
	}
	if !procReadable() {
		t.Skip("no /proc here")
	}
	dir := t.TempDir()
	// The workloads live 2 s: a plain fake ends within milliseconds, and
	// on a loaded machine the first of a pair could end before the second
	// starts, when there is nothing left to name in the live file.
	s := fakeSuite(t, fake("a", "ok", "--sleep", "2"), fake("b", "ok", "--sleep", "2"))
	left, lp := startGroup(t, "sleep", "60")
	host, _ := os.Hostname()
	rec := fmt.Sprintf(`{"version":1,"host":%q,"run":"pair.a+b.r0","procs":[{"label":"a","pid":%d,"start_ticks":%d}]}`, host, lp.PID, lp.StartTicks)
	if err := os.WriteFile(filepath.Join(dir, liveFile), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	spy := &liveSpy{path: filepath.Join(dir, liveFile)}
	sum, err := newCampaign(t, dir, s, planOpts("all", 1, 0, 1), spy).Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sig := waitSignal(t, left); sig != syscall.SIGTERM {
		t.Errorf("the predecessor's leftover ended by %v, want SIGTERM", sig)
	}
	if !strings.Contains(strings.Join(sum.Warnings, "\n"), fmt.Sprintf("stopped a (pid %d)", lp.PID)) {
		t.Errorf("summary warnings %q do not say the leftover was stopped", sum.Warnings)
	}
	if len(spy.seen) != len(spy.started) || len(spy.seen) != sum.Ran {
		t.Fatalf("%d runs, %d seen by the monitor", sum.Ran, len(spy.seen))
	}
	for i, got := range spy.seen {
		pids := spy.targets[i].Procs
		if got.Run != spy.started[i] || len(got.Procs) != len(pids) {
			t.Errorf("during run %s the live file held %+v", spy.started[i], got)
			continue
		}
		for _, p := range got.Procs {
			if want := pids[p.Label]; len(want) != 1 || want[0] != p.PID {
				t.Errorf("run %s: live file names %s as pid %d, the run started %v", got.Run, p.Label, p.PID, want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, liveFile)); !os.IsNotExist(err) {
		t.Errorf("live file after the campaign: %v, want none", err)
	}
}

// A process of the campaign's directory that no live file names (started
// by a campaign killed before it named it, or by a workload) is found by
// the marker in its environment and stopped before the first run; a
// process marked for another directory is left alone.
func TestCampaignStopsMarkedProcesses(t *testing.T) {
	if !procReadable() {
		t.Skip("no /proc here")
	}
	dir := t.TempDir()
	abs, _ := filepath.Abs(dir)
	mark := func(value string) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.Env = append(os.Environ(), campaignEnv+"="+value)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
		return cmd
	}
	ours, other := mark(abs), mark(abs+"-other")
	s := fakeSuite(t, fake("a", "ok"))
	sum, err := newCampaign(t, dir, s, planOpts("none", 1, 0, 1), nil).Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sig := waitSignal(t, ours); sig != syscall.SIGTERM {
		t.Errorf("the marked leftover ended by %v, want SIGTERM", sig)
	}
	if err := syscall.Kill(other.Process.Pid, 0); err != nil {
		t.Errorf("a process of another directory was stopped: %v", err)
	}
	if w := strings.Join(sum.Warnings, "\n"); !strings.Contains(w, fmt.Sprintf("processes of this campaign were still running (pids %d;", ours.Process.Pid)) {
		t.Errorf("warnings %q do not name the stopped process", sum.Warnings)
	}
}

// A workload dies with the process that started it, however that process
// dies (here SIGKILL, which it cannot catch): the parent-death signal.
func TestWorkloadDiesWithItsCampaign(t *testing.T) {
	if !procReadable() {
		t.Skip("no /proc here")
	}
	helper := exec.Command(os.Args[0], "-test.run=^TestHelperStartsAWorkload$")
	helper.Env = append(os.Environ(), "PROFILE_HELPER_WORKLOAD=1")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	defer helper.Process.Kill()
	var pid int
	if _, err := fmt.Fscan(out, &pid); err != nil || pid <= 0 {
		t.Fatalf("helper: pid %d, %v", pid, err)
	}
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) })
	helper.Process.Signal(syscall.SIGKILL)
	helper.Wait()
	for i := 0; ; i++ {
		if st, ok := procStat(pid); !ok || st.exited() {
			break
		}
		if i == 3000 {
			t.Fatalf("workload %d still runs 30 s after its campaign was killed", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHelperStartsAWorkload is TestWorkloadDiesWithItsCampaign's campaign:
// it starts a workload as a run does, prints its PID and waits to be
// killed.
func TestHelperStartsAWorkload(t *testing.T) {
	if os.Getenv("PROFILE_HELPER_WORKLOAD") == "" {
		t.Skip("helper process only")
	}
	m, err := start(command{Label: "a", Argv: []string{"sleep", "300"}}, time.Now(), make(chan struct{}, 1))
	if err != nil {
		fmt.Println(-1, err)
		os.Exit(1)
	}
	fmt.Println(m.cmd.Process.Pid)
	time.Sleep(time.Hour)
}
