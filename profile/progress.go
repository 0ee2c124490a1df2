package profile

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// Progress hears what a campaign does. Calls come from the campaign's
// goroutine, in order: Begin, then Start and Done for each run (Done is
// missing for an interrupted run), then End.
type Progress interface {
	Begin(pending []PlannedRun, skipped int)
	Start(i int, r PlannedRun)
	Done(i int, r PlannedRun, rec *RunRecord)
	End(s *Summary)
	// Warn reports, as it happens, what the campaign did that the user
	// should know before the end (the summary repeats it).
	Warn(msg string)
}

type nopProgress struct{}

func (nopProgress) Begin([]PlannedRun, int)          {}
func (nopProgress) Start(int, PlannedRun)            {}
func (nopProgress) Done(int, PlannedRun, *RunRecord) {}
func (nopProgress) End(*Summary)                     {}
func (nopProgress) Warn(string)                      {}

// NewProgress reports to w: a bar with an ETA, redrawn in place every
// second, when w is a terminal; one log line per run otherwise. The ETA is
// the estimate of the runs left, scaled by how long the runs done so far
// took against their estimates.
func NewProgress(w io.Writer, terminal bool) Progress {
	return &progress{w: w, bar: terminal, now: time.Now}
}

type progress struct {
	mu      sync.Mutex // the ticker redraws from its own goroutine
	w       io.Writer
	bar     bool
	now     func() time.Time
	pending []PlannedRun
	left    time.Duration // estimate of the runs not done
	estDone time.Duration // estimate of the runs done
	start   time.Time     // of this invocation
	runAt   time.Time
	index   int
	current string
	stop    chan struct{}
}

func (p *progress) Begin(pending []PlannedRun, skipped int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending, p.start = pending, p.now()
	if p.bar {
		p.stop = make(chan struct{})
		go p.tick(p.stop)
	}
	for _, r := range pending {
		p.left += r.Est
	}
	if skipped > 0 {
		fmt.Fprintf(p.w, "resuming: %d runs already finished, %d to go\n", skipped, len(pending))
	}
	fmt.Fprintf(p.w, "%d runs to do, estimated %s\n", len(pending), round(p.left))
}

func (p *progress) tick(stop chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			if p.stop == stop && p.current != "" { // not ended meanwhile
				p.draw()
			}
			p.mu.Unlock()
		}
	}
}

func (p *progress) Start(i int, r PlannedRun) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runAt, p.current, p.index = p.now(), r.ID, i
	if p.bar {
		p.draw()
	}
}

func (p *progress) Done(i int, r PlannedRun, rec *RunRecord) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.current = ""
	p.left -= r.Est
	p.estDone += r.Est
	if p.bar {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "[%d/%d] %s: %s (%s)\n", i+1, len(p.pending), r.ID, outcome(rec), round(p.now().Sub(p.runAt)))
}

func (p *progress) Warn(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "warning: %s\n", msg)
	if p.bar && p.current != "" {
		p.draw()
	}
}

func (p *progress) End(s *Summary) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
	if p.bar {
		fmt.Fprint(p.w, "\r\033[K")
	}
	unsettled := ""
	if s.Unsettled > 0 {
		unsettled = fmt.Sprintf(" (%d unsettled)", s.Unsettled)
	}
	fmt.Fprintf(p.w, "%d runs: %d ok%s, %d failed, %d infeasible, %d skipped (done before); took %s\n",
		s.Planned, s.OK, unsettled, s.Failed, s.Infeasible, s.Skipped, round(p.now().Sub(p.start)))
}

// eta is the time the pending runs should still take: their estimate
// scaled by real/estimated time of the runs done, less the time the current
// run has been going.
func (p *progress) eta() time.Duration {
	left := p.left
	if p.estDone > 0 {
		ratio := float64(p.runAt.Sub(p.start)) / float64(p.estDone)
		left = time.Duration(float64(left) * ratio)
	}
	if p.current != "" {
		left -= p.now().Sub(p.runAt)
	}
	return max(left, 0)
}

// draw redraws the bar: runs done, ETA, the current run and its time.
func (p *progress) draw() {
	const width = 30
	n := len(p.pending)
	fill := 0
	if n > 0 {
		fill = width * p.index / n
	}
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %d/%d ETA %s  %s %s", strings.Repeat("=", fill), strings.Repeat(" ", width-fill),
		p.index, n, round(p.eta()), p.current, round(p.now().Sub(p.runAt)))
}

// outcome is a one-line summary of a run.
func outcome(rec *RunRecord) string {
	if rec.Status != datasets.StatusOK {
		return rec.Status + ": " + FailureLine(rec)
	}
	var parts []string
	for _, s := range rec.Sides {
		v := fmt.Sprintf("%s %.4g samples/s", s.Label, *s.Throughput)
		if s.Unsettled() {
			v += fmt.Sprintf(" ±%.0f%% (step time never settled)", 100*val0(s.Spread))
		}
		parts = append(parts, v)
	}
	return "ok, " + strings.Join(parts, ", ")
}

// FailureLine says in one line why a run failed or was infeasible: the
// side that caused it, its error, the last meaningful line of its stderr
// (the exception of a Python traceback, say) and the path of its whole
// stderr.
func FailureLine(rec *RunRecord) string {
	c := rec.cause()
	if c == nil {
		return strings.TrimSpace(rec.Error)
	}
	msg, tail, _ := strings.Cut(c.Error, "; stderr:\n")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i] + " ..."
	}
	line := c.Label + ": " + msg
	if last := lastLine(tail); last != "" && !strings.Contains(msg, last) {
		line += ": " + last
	}
	if c.Log != "" {
		line += " (log: " + c.Log + ")"
	}
	return line
}

func round(d time.Duration) time.Duration {
	if d > 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
