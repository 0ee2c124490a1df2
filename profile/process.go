package profile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// command is one process of a run.
type command struct {
	// Label names the process in results and in per-process samples: the
	// workload name, "<name>#2" for the second copy in a pair of a workload
	// with itself.
	Label string
	Argv  []string
	// Env is added to the harness's environment.
	Env []string
	// Log receives the process's stderr as it comes (may be nil).
	Log io.Writer
}

// exit is what became of one process.
type exit struct {
	Label  string
	Stream *lineStream
	// Err is nil for exit status 0, else why the process ended.
	Err      error
	Code     int  // exit status; -1 when killed by a signal
	OOM      bool // stderr said it ran out of memory
	TimedOut bool // killed by the harness at the run's timeout
	Stopped  bool // killed by the harness because a partner failed
	// Wall is the time from start to exit, in seconds on the run's clock.
	Wall       float64
	StderrTail string
}

// group runs processes together, each in a process group of its own, and
// kills them all (SIGTERM, then SIGKILL after KillGrace) on timeout, on
// cancellation, or (when FailFast) as soon as one fails.
type group struct {
	Timeout   time.Duration // 0 = none
	KillGrace time.Duration
	FailFast  bool
	// Started is called once every process has started, with their PIDs
	// (which are also their process group IDs) in command order.
	Started func(pids []int)
}

// testHookFailed, when set by a test, runs after a failed member has
// signalled its failure and before it counts as done.
var testHookFailed func()

// stderrTailBytes is how much of a failed process's stderr its error keeps.
const stderrTailBytes = 2048

// oomMarker is what the protocol asks a workload to print on a CUDA OOM;
// any "out of memory" on stderr counts.
const oomMarker = "out of memory"

type member struct {
	cmd  *exec.Cmd
	exit *exit
	// exited closes when the process has been waited for, before its
	// output is drained; done closes when that output is read too.
	exited, done chan struct{}
}

// run starts every command and waits for all of them. It returns ctx.Err()
// (with the exits so far) when ctx was cancelled; a process that fails is
// not an error of run but an exit with Err set.
func (g group) run(ctx context.Context, cmds []command) ([]*exit, error) {
	t0 := time.Now()
	var members []*member
	failed := make(chan struct{}, len(cmds))
	for _, c := range cmds {
		m, err := start(c, t0, failed)
		if err != nil {
			g.kill(members)
			for _, m := range members {
				<-m.done
			}
			return nil, err
		}
		members = append(members, m)
	}
	if g.Started != nil {
		pids := make([]int, len(members))
		for i, m := range members {
			pids[i] = m.cmd.Process.Pid
		}
		g.Started(pids)
	}
	all := make(chan struct{})
	go func() {
		for _, m := range members {
			<-m.done
		}
		close(all)
	}()
	var timeout <-chan time.Time
	if g.Timeout > 0 {
		tm := time.NewTimer(g.Timeout)
		defer tm.Stop()
		timeout = tm.C
	}
	var why string
	for why == "" {
		select {
		case <-all:
			why = "done"
		case <-ctx.Done():
			why = "cancel"
		case <-timeout:
			why = "timeout"
		case <-failed:
			if g.FailFast {
				why = "partner"
			}
		}
	}
	var live []*member
	if why != "done" {
		live = g.kill(members)
		<-all
		for _, m := range live {
			m.exit.TimedOut = why == "timeout"
			m.exit.Stopped = why == "partner"
		}
	}
	exits := make([]*exit, len(members))
	for i, m := range members {
		exits[i] = m.exit
	}
	if why == "cancel" {
		return exits, ctx.Err()
	}
	if stoppedFromOutside(members, live) {
		// The signal that stops a batch job (scancel, a time limit) or a
		// terminal's Ctrl-C reaches the workloads and coloc together; the
		// workloads may end first. If coloc is being stopped too, this
		// run was interrupted, not failed: it is left out, to be redone
		// when the campaign resumes, instead of being recorded as a
		// failure that a resume would keep.
		wait := time.NewTimer(stopGrace)
		defer wait.Stop()
		select {
		case <-ctx.Done():
			return exits, ctx.Err()
		case <-wait.C:
		}
	}
	return exits, nil
}

// stopGrace is how long a run whose workload was ended by a SIGTERM,
// SIGINT or SIGHUP that coloc did not send waits for coloc's own stop
// before it is recorded as failed: the time for one signal, delivered to
// a whole job or process group, to be handled by coloc as well. Far
// longer than that (milliseconds) and far shorter than a run.
const stopGrace = 2 * time.Second

// stoppedFromOutside reports whether a member not among those the group
// killed (killed) ended by a signal that stops a job: SIGTERM, SIGINT or
// SIGHUP.
func stoppedFromOutside(members, killed []*member) bool {
	for _, m := range members {
		if slices.Contains(killed, m) || m.cmd.ProcessState == nil {
			continue
		}
		ws, ok := m.cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() {
			continue
		}
		switch ws.Signal() {
		case syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP:
			return true
		}
	}
	return false
}

// kill stops the members still running: SIGTERM to each process group,
// then SIGKILL to those left after KillGrace. It returns the members it
// found running. A member that has exited is not running, even while its
// output is still being read: the member whose failure made the group
// stop its partners is never among those it stopped.
func (g group) kill(members []*member) []*member {
	var live []*member
	for _, m := range members {
		select {
		case <-m.exited:
		default:
			live = append(live, m)
			_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGTERM)
		}
	}
	if len(live) == 0 {
		return nil
	}
	grace := time.NewTimer(g.KillGrace)
	defer grace.Stop()
	for _, m := range live {
		select {
		case <-m.exited:
		case <-grace.C:
			for _, m := range live {
				_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
			}
			return live
		}
	}
	return live
}

// start launches one command in a new process group and reads its output
// in the background; m.done closes when it has exited and its output is
// read. A failed process signals on failed.
func start(c command, t0 time.Time, failed chan<- struct{}) (*member, error) {
	if len(c.Argv) == 0 {
		return nil, fmt.Errorf("%s: empty command", c.Label)
	}
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.SysProcAttr = workloadAttr()
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	if err := cmd.Start(); err != nil {
		outR.Close()
		outW.Close()
		errR.Close()
		errW.Close()
		return nil, fmt.Errorf("%s: starting %s: %w", c.Label, c.Argv[0], err)
	}
	outW.Close()
	errW.Close()
	m := &member{cmd: cmd, exit: &exit{Label: c.Label, Stream: &lineStream{}}, exited: make(chan struct{}), done: make(chan struct{})}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		br := bufio.NewReaderSize(outR, maxLineBytes)
		long := false // inside a line past MaxLineBytes: skip to its end
		for {
			line, err := br.ReadSlice('\n')
			switch {
			case errors.Is(err, bufio.ErrBufferFull):
				if !long {
					m.exit.Stream.TooLong()
				}
				long = true
				continue
			case long:
				long = false
			case len(line) > 0:
				m.exit.Stream.Line(line, time.Since(t0).Seconds())
			}
			if err != nil {
				return
			}
		}
	}()
	tail := &tailBuffer{max: stderrTailBytes}
	go func() {
		defer readers.Done()
		var w io.Writer = tail
		if c.Log != nil {
			w = io.MultiWriter(tail, c.Log)
		}
		_, _ = io.Copy(w, errR)
	}()
	go func() {
		werr := cmd.Wait()
		close(m.exited)
		m.exit.Wall = time.Since(t0).Seconds()
		// Members of the group left behind (a worker that outlived its
		// launcher) would hold the pipes open: end them.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		deadline := time.Now().Add(2 * time.Second)
		_ = outR.SetReadDeadline(deadline)
		_ = errR.SetReadDeadline(deadline)
		readers.Wait()
		outR.Close()
		errR.Close()
		m.exit.StderrTail = tail.String()
		m.exit.OOM = tail.oom
		m.exit.Code = cmd.ProcessState.ExitCode()
		if werr != nil {
			var ee *exec.ExitError
			if errors.As(werr, &ee) {
				m.exit.Err = fmt.Errorf("%s", ee.ProcessState.String())
			} else {
				m.exit.Err = werr
			}
			failed <- struct{}{}
			if testHookFailed != nil {
				testHookFailed()
			}
		}
		close(m.done)
	}()
	return m, nil
}

// tailBuffer keeps the last max bytes written to it and notes whether any
// line mentioned running out of memory.
type tailBuffer struct {
	max int
	buf []byte
	oom bool
	// partial is the current unfinished line, so that a marker split
	// across writes is still found.
	partial strings.Builder
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	t.partial.Write(p)
	s := t.partial.String()
	if strings.Contains(strings.ToLower(s), oomMarker) {
		t.oom = true
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 4096 { // a line without end (progress redrawn with \r)
		s = s[len(s)-len(oomMarker):]
	}
	if len(s) != t.partial.Len() {
		t.partial.Reset()
		t.partial.WriteString(s)
	}
	return len(p), nil
}

// String returns the kept tail, starting at a line boundary when it was cut.
func (t *tailBuffer) String() string {
	s := string(t.buf)
	if len(t.buf) == t.max {
		if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
			s = s[i+1:]
		}
	}
	return strings.TrimRight(s, "\n")
}
