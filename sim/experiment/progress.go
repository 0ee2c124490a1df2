package experiment

import (
	"fmt"
	"io"
	"time"

	"github.com/coloc-dev/coloc/sim"
)

// Progress lines: none in a replay's first quietFor (a short replay
// prints nothing), then one every progressEvery, and a last one when a
// replay that printed ends. Wall-clock choices for a person watching, not
// settings of anything measured.
const (
	quietFor      = 5 * time.Second
	progressEvery = 10 * time.Second
)

// progressLines writes one replay's progress to w: the jobs completed
// of the trace's, the time spent, and the time left at the pace so far
// (a replay's pace changes with the load, so it is an estimate).
type progressLines struct {
	w           io.Writer
	clock       func() time.Time
	start, last time.Time // of the first report, and the last line
	printed     bool
}

func newProgressLines(w io.Writer) *progressLines {
	return &progressLines{w: w, clock: time.Now}
}

// report takes one sim.Progress (sim.Options.Progress).
func (p *progressLines) report(x sim.Progress) {
	t := p.clock()
	if p.start.IsZero() {
		p.start, p.last = t, t
	}
	spent := t.Sub(p.start)
	switch {
	case x.Ended:
		if p.printed {
			fmt.Fprintf(p.w, "policy %s: %d of %d jobs completed in %s\n", x.Policy, x.Completed, x.Jobs, spent.Round(time.Second))
		}
		return
	case spent < quietFor || (p.printed && t.Sub(p.last) < progressEvery):
		return
	}
	line := fmt.Sprintf("policy %s: %d of %d jobs completed, trace time %.0f s, %s spent", x.Policy, x.Completed, x.Jobs, x.Now, spent.Round(time.Second))
	if x.Completed > 0 {
		left := time.Duration(float64(spent) * float64(x.Jobs-x.Completed) / float64(x.Completed))
		line += fmt.Sprintf(", about %s left at this pace", left.Round(time.Second))
	}
	fmt.Fprintln(p.w, line)
	p.last, p.printed = t, true
}
