package place

import (
	"fmt"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/policy"
)

// The summary lists the first SummaryRows decisions and counts the rest
// by status; the total of placed jobs counts them all.
func TestSummaryListsTheFirstRows(t *testing.T) {
	pf := &policy.File{}
	for i := range SummaryRows + 7 {
		d := policy.Decision{Job: fmt.Sprintf("j%d", i), Status: policy.StatusWaiting, Reason: "no GPU free"}
		if i%2 == 0 {
			d = policy.Decision{Job: d.Job, Status: policy.StatusPlaced, GPUType: "v100", Degree: 1,
				Placement: []policy.NodeGPUs{{Node: "n", GPUs: []int{0}}}, PredictedNormalized: 1}
		}
		pf.Decisions = append(pf.Decisions, d)
	}
	var b strings.Builder
	if _, err := WriteSummary(&b, "OUT", pf); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// header, the rows, the "more" line, the "wrote" line
	if len(lines) != 1+SummaryRows+1+1 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	if want := "... 7 more decisions in OUT: 4 placed, 3 waiting"; !strings.Contains(out, want) {
		t.Errorf("no %q in\n%s", want, out)
	}
	if want := fmt.Sprintf("wrote OUT: %d of %d jobs placed", (SummaryRows+8)/2, SummaryRows+7); !strings.Contains(out, want) {
		t.Errorf("no %q in\n%s", want, out)
	}
}
