package experiment

import (
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/sim"
)

// TestProgressLines drives the printer with a clock of its own: quiet
// for the first seconds, a line every interval after, a last line when a
// replay that printed ends, nothing for a short replay.
func TestProgressLines(t *testing.T) {
	var b strings.Builder
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	p := &progressLines{w: &b, clock: func() time.Time { return now }}
	at := func(s float64, done int, ended bool) {
		now = t0.Add(time.Duration(s * float64(time.Second)))
		p.report(sim.Progress{Policy: "coloc", Completed: done, Jobs: 100, Now: s * 1000, Ended: ended})
	}
	at(0, 0, false)
	at(4, 10, false) // still quiet
	at(6, 20, false) // first line: 20 of 100 in 6 s, 24 s left
	at(9, 30, false) // within the interval
	at(16, 50, false)
	at(20, 100, true)
	want := "policy coloc: 20 of 100 jobs completed, trace time 6000 s, 6s spent, about 24s left at this pace\n" +
		"policy coloc: 50 of 100 jobs completed, trace time 16000 s, 16s spent, about 16s left at this pace\n" +
		"policy coloc: 100 of 100 jobs completed in 20s\n"
	if b.String() != want {
		t.Errorf("lines:\n%s\nwant:\n%s", b.String(), want)
	}
	// A short replay (the next policy's, a printer of its own) prints
	// nothing.
	b.Reset()
	p = &progressLines{w: &b, clock: func() time.Time { return now }}
	p.report(sim.Progress{Policy: "fifo", Jobs: 100})
	now = now.Add(2 * time.Second)
	p.report(sim.Progress{Policy: "fifo", Completed: 100, Jobs: 100, Ended: true})
	if b.Len() != 0 {
		t.Errorf("a 2 s replay printed %q", b.String())
	}
}
