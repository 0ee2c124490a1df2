package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A campaign killed with SIGKILL (by hand, by the kernel's OOM killer, by
// a batch system past its grace) cannot stop its workloads: each runs in
// a process group of its own, so they go on after it, on the device the
// resumed campaign is about to measure on, and a solo run measured beside
// a leftover training job is wrong without any sign of it. So while a run
// is in progress its processes are named in the campaign directory's
// live file (liveFile), and a campaign that takes the directory's lock
// first stops the processes a predecessor named there that still run.
//
// A process is named by its PID and its start time (clock ticks since
// boot, /proc/PID/stat): a PID reused since by another process has
// another start time and is left alone. Each named process leads its
// process group (the workload and what it started, torchrun's workers
// included), which is stopped as a whole: SIGTERM, then SIGKILL after
// the run options' KillGrace. Where /proc cannot be read, no process is
// named, so none is stopped (coloc's GPU hosts are Linux). The private MPS
// daemon of a campaign sharing by MPS is named likewise in mpsFile, and
// quit.

// A workload that a campaign killed with SIGKILL had started and not yet
// named in its live file, or that a named workload started in a process
// group of its own, would escape the live file. Two more guards catch
// them: each workload gets the parent-death signal (SIGKILL when the
// campaign process dies; process.go), and each carries campaignEnv in its
// environment, which its children inherit, so that a resumed campaign
// finds by it every process of its directory still running (stopMarked),
// whoever started it.

// campaignEnv is set in the environment of every workload a campaign
// starts, to the campaign directory's absolute path.
const campaignEnv = "COLOC_CAMPAIGN"

// stopMarked stops the processes of this user whose environment holds
// campaignEnv=dir (dir absolute): the process group of each (SIGTERM,
// then SIGKILL after grace), never this process's own group. It returns a
// warning naming what it stopped; none where /proc cannot be read.
func stopMarked(dir string, grace time.Duration) []string {
	marker := []byte(campaignEnv + "=" + dir)
	self, _ := procStat(os.Getpid())
	groups := map[int][]int{} // process group -> its marked processes
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !slices.ContainsFunc(bytes.Split(env, []byte{0}), func(v []byte) bool { return bytes.Equal(v, marker) }) {
			continue // gone, another user's, or not this campaign's
		}
		st, ok := procStat(pid)
		if !ok || st.exited() || st.pgrp <= 1 || st.pgrp == self.pgrp {
			continue
		}
		groups[st.pgrp] = append(groups[st.pgrp], pid)
	}
	if len(groups) == 0 {
		return nil
	}
	var pids []int
	for g, ps := range groups {
		_ = syscall.Kill(-g, syscall.SIGTERM)
		pids = append(pids, ps...)
	}
	slices.Sort(pids)
	deadline := time.Now().Add(grace)
	for anyRunning(pids) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	how := "SIGTERM"
	if anyRunning(pids) {
		for g := range groups {
			_ = syscall.Kill(-g, syscall.SIGKILL)
		}
		how = fmt.Sprintf("SIGTERM, then SIGKILL after %s", grace)
	}
	return []string{fmt.Sprintf("processes of this campaign were still running (pids %s; started by a campaign killed before it could name them, or by its workloads): stopped their process groups with %s, so that they do not share the device with the runs to come",
		strings.Trim(fmt.Sprint(pids), "[]"), how)}
}

func anyRunning(pids []int) bool {
	for _, pid := range pids {
		if st, ok := procStat(pid); ok && !st.exited() {
			return true
		}
	}
	return false
}

// mpsFile is the file in a campaign directory that names the private MPS
// daemon of a campaign with --share mps, from its start to its stop (see
// MPS.StateFile and stopLeftoverMPS): a killed campaign leaves it running.
const mpsFile = ".coloc.mps.json"

// liveFile is the file in a campaign directory that names the processes
// of the run in progress. It exists only while a run is in progress, and
// after a campaign that was killed.
const liveFile = ".coloc.live.json"

// liveVersion is the version of liveFile's format.
const liveVersion = 1

type liveRecord struct {
	Version int        `json:"version"`
	Host    string     `json:"host"`
	Run     string     `json:"run"`
	Procs   []liveProc `json:"procs"`
}

type liveProc struct {
	Label string `json:"label"`
	PID   int    `json:"pid"` // also its process group's ID
	// StartTicks is the process's start time in clock ticks since boot.
	StartTicks uint64 `json:"start_ticks"`
}

// alive reports whether p still runs: its PID names a process that
// started when p did and has not exited.
func (p liveProc) alive() bool {
	st, ok := procStat(p.PID)
	return ok && st.start == p.StartTicks && !st.exited()
}

// writeLive names the processes of run in path, replacing what it held
// (atomically, so a crash leaves the old file or the new one). A process
// /proc cannot describe (gone already, or no /proc) is not named.
func writeLive(path, run string, labels []string, pids []int) error {
	host, _ := os.Hostname()
	rec := liveRecord{Version: liveVersion, Host: host, Run: run}
	for i, pid := range pids {
		if st, ok := procStat(pid); ok {
			rec.Procs = append(rec.Procs, liveProc{Label: labels[i], PID: pid, StartTicks: st.start})
		}
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(b, '\n'))
}

// readLive reads a live file; ok is false when there is none.
func readLive(path string) (rec liveRecord, ok bool, err error) {
	ok, err = readStateFile(path, liveVersion, &rec, "the workloads a killed campaign may have left running; check for them")
	if err != nil || !ok {
		return rec, false, err
	}
	for i, p := range rec.Procs {
		if p.PID <= 0 {
			return rec, false, fmt.Errorf("%s: process %d (%q): pid %d is not a process ID", path, i+1, p.Label, p.PID)
		}
	}
	return rec, true, nil
}

// readStateFile reads the versioned JSON file at path (a live file, an
// MPS state file) into v; ok is false when there is none. Its "version"
// must be want. An error names the file and, from names, what the user
// should look for before removing it.
func readStateFile(path string, want int, v any, names string) (ok bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var head struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return false, fmt.Errorf("%s: %w (it names %s, then remove the file)", path, err, names)
	}
	if head.Version != want {
		return false, fmt.Errorf("%s: version %d, this coloc reads version %d (written by another coloc; it names %s, then remove the file)", path, head.Version, want, names)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("%s: %w (it names %s, then remove the file)", path, err, names)
	}
	return true, nil
}

// elsewhere reports whether a state file written on host recorded was
// written on another host than this one (here), whose processes cannot be
// looked for from here.
func elsewhere(recorded string) (here string, other bool) {
	here, _ = os.Hostname()
	return here, recorded != "" && here != "" && recorded != here
}

// stopLeftovers stops the processes that the live file at path names and
// that still run, then removes the file. It returns a warning for each
// thing it did or could not check; an error only when the file cannot be
// read (it is then kept).
func stopLeftovers(path string, grace time.Duration) ([]string, error) {
	rec, ok, err := readLive(path)
	if err != nil || !ok {
		return nil, err
	}
	var warns []string
	if host, other := elsewhere(rec.Host); other {
		warns = append(warns, fmt.Sprintf("run %s was in progress on host %s when its campaign ended without stopping it; this is %s, so its workloads were not looked for: check that none still runs there", rec.Run, rec.Host, host))
	} else {
		var stopped, killed []string
		for _, p := range rec.Procs {
			if !p.alive() {
				continue // ended, or its PID now names another process
			}
			_ = syscall.Kill(-p.PID, syscall.SIGTERM)
			name := fmt.Sprintf("%s (pid %d)", p.Label, p.PID)
			if waitEnded(p, grace) {
				stopped = append(stopped, name)
				continue
			}
			_ = syscall.Kill(-p.PID, syscall.SIGKILL)
			killed = append(killed, name)
		}
		if len(stopped)+len(killed) > 0 {
			how := ""
			if len(killed) > 0 {
				how = fmt.Sprintf("; %s ignored SIGTERM for %s and got SIGKILL", strings.Join(killed, ", "), grace)
			}
			warns = append(warns, fmt.Sprintf("run %s was in progress when its campaign ended without stopping it, and its workloads still ran: stopped %s, so that they do not share the device with the runs to come%s",
				rec.Run, strings.Join(append(stopped, killed...), ", "), how))
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return warns, err
	}
	return warns, nil
}

// waitEnded waits up to grace for p to end; it reports whether it did.
func waitEnded(p liveProc, grace time.Duration) bool {
	deadline := time.Now().Add(grace)
	for {
		if !p.alive() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type procState struct {
	state byte   // R, S, D, Z, ...
	pgrp  int    // process group
	start uint64 // clock ticks since boot
}

// exited reports a process that has ended and awaits its parent's wait (a
// zombie, or one being torn down).
func (s procState) exited() bool { return s.state == 'Z' || s.state == 'X' }

// procStat reads the state and start time of pid from /proc; ok is false
// when there is no such process or /proc cannot be read.
func procStat(pid int) (procState, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procState{}, false
	}
	return parseProcStat(b)
}

// parseProcStat reads /proc/PID/stat: "pid (comm) state ppid ...", where
// comm may hold spaces and parentheses; starttime is field 22.
func parseProcStat(b []byte) (procState, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procState{}, false
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if len(f) < 20 || len(f[0]) != 1 {
		return procState{}, false
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return procState{}, false
	}
	pgrp, err := strconv.Atoi(f[2])
	if err != nil {
		return procState{}, false
	}
	return procState{state: f[0][0], pgrp: pgrp, start: start}, true
}

// procReadable reports whether /proc describes this process, so that a
// process missing from it has ended.
func procReadable() bool {
	_, ok := procStat(os.Getpid())
	return ok
}
