package decide

import (
	"math"
	"testing"
)

// The learned sizes come from the cohort of the latest window arrivals:
// a history that fills the window and more forgets the older jobs, their
// workloads' sums with them, and keeps the sums of the rest as a history
// of those jobs alone would have them.
func TestHistoryForgetsJobsBeforeTheWindow(t *testing.T) {
	var h, fresh history
	// The first window jobs: workload "old", 10 s each; the next ones:
	// "new", 1000 s each.
	for seq := 0; seq < window; seq++ {
		h.completed("old", 0, 10, seq)
	}
	for seq := window; seq < window+100; seq++ {
		h.completed("new", 1, 1000, seq)
		fresh.completed("new", 1, 1000, seq)
	}
	h.update(nil, 0)
	if len(h.done) != window+100 || h.classes["old"] == nil {
		t.Fatalf("since 0: %d sizes kept, workloads %v; want every one", len(h.done), h.classes)
	}
	h.update([]sized{{"old", 0, -1, 5, 3}, {"new", 1, -1, 5, window + 1}}, 100)
	if len(h.done) != window {
		t.Errorf("since 100: %d sizes kept, want %d", len(h.done), window)
	}
	h.update(nil, window)
	if len(h.done) != 100 {
		t.Errorf("since %d: %d sizes kept, want 100", window, len(h.done))
	}
	if _, ok := h.classes["old"]; ok {
		t.Errorf("workload old still has sums %+v after its jobs left the window", *h.classes["old"])
	}
	fresh.update(nil, window)
	if got, want := h.scaleOf("new"), fresh.scaleOf("new"); math.Abs(got-want) > 1e-9*want {
		t.Errorf("scale of new %v, want %v (a history of the window alone)", got, want)
	}
	if got := h.scaleOf("old"); math.Abs(got-1000) > 1e-6 {
		t.Errorf("a forgotten workload's scale %v, want the overall 1000", got)
	}
	if h.res.Completed() != 100 {
		t.Errorf("the distribution has %d sizes, want the window's 100", h.res.Completed())
	}
}

// Censored service counts only for the jobs in the window.
func TestHistoryCensorsOnlyTheWindow(t *testing.T) {
	var h history
	h.completed("w", 0, 100, 10)
	h.update([]sized{{"w", 0, -1, 50, 5}, {"w", 0, -1, 50, 11}, {"w", 0, -1, 50, 12}}, 10)
	if got := len(h.res.censored); got != 2 {
		t.Errorf("%d censored, want the 2 that arrived from seq 10 on", got)
	}
}

// With users' estimates the ratios of true size to estimate are windowed
// as the sizes are: the completed and the active alike.
func TestEstimatesForgetJobsBeforeTheWindow(t *testing.T) {
	c := &Core{estDone: []sized{{size: 1, seq: 4}, {size: 2, seq: 9}, {size: 3, seq: 10}}}
	c.updateEstimates([]sized{{size: 1, seq: 3}, {size: 1, seq: 12}}, 9)
	if got := c.est.Completed(); got != 2 {
		t.Errorf("%d completed ratios kept, want the 2 from seq 9 on", got)
	}
	if got := len(c.est.censored); got != 1 {
		t.Errorf("%d active ratios censored, want the 1 from seq 9 on", got)
	}
}

// scaleOf returns the scale of workload w, by its name.
func (h *history) scaleOf(w string) float64 {
	if a := h.classes[w]; a != nil {
		return h.scaleAt(a.wid)
	}
	return h.scaleAt(-1)
}
