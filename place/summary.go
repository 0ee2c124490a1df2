package place

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/coloc-dev/coloc/policy"
)

// SummaryRows is how many decisions WriteSummary lists; the rest are
// counted (a file may hold a million: they are in the file).
const SummaryRows = 50

// WriteSummary writes the summary of a policy file written to out: one
// line per decision (the first SummaryRows, then how many more and their
// statuses), then the counts of the decisions and tables, and of the
// predicted pairs; it returns the notes on the predictions for the caller
// to show.
func WriteSummary(w io.Writer, out string, pf *policy.File) (notes []string, err error) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "job\tstatus\tGPUs\tplacement\tshares with\tpredicted")
	placed := 0
	rest := map[string]int{}
	for i, d := range pf.Decisions {
		if d.Status == policy.StatusPlaced {
			placed++
		}
		if i >= SummaryRows {
			rest[d.Status]++
			continue
		}
		if d.Status != policy.StatusPlaced {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\t%s\n", d.Job, d.Status, d.Reason)
			continue
		}
		var where []string
		for _, p := range d.Placement {
			var gs []string
			for _, g := range p.GPUs {
				gs = append(gs, strconv.Itoa(g))
			}
			where = append(where, p.Node+":"+strings.Join(gs, ","))
		}
		with := strings.Join(d.ColocatedWith, ",")
		if with == "" {
			with = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d %s\t%s\t%s\t%.3f\n", d.Job, d.Status, d.Degree, d.GPUType, strings.Join(where, " "), with, d.PredictedNormalized)
	}
	if n := len(pf.Decisions) - SummaryRows; n > 0 {
		var by []string
		for _, st := range []string{policy.StatusPlaced, policy.StatusWaiting, policy.StatusUnplaceable} {
			if rest[st] > 0 {
				by = append(by, fmt.Sprintf("%d %s", rest[st], st))
			}
		}
		fmt.Fprintf(tw, "... %d more decisions in %s: %s\n", n, out, strings.Join(by, ", "))
	}
	if err := tw.Flush(); err != nil {
		return nil, err
	}
	measured := 0
	for _, p := range pf.Pairs {
		if p.Source == "measured" {
			measured++
		}
	}
	_, err = fmt.Fprintf(w, "wrote %s: %d of %d jobs placed; tables: %d pairs (%d measured, %d predicted), %d solo, %d scaling curves, %d similarity references\n",
		out, placed, len(pf.Decisions), len(pf.Pairs), measured, len(pf.Pairs)-measured, len(pf.Solo), len(pf.Scaling), len(pf.Similarity.References))
	if err != nil {
		return nil, err
	}
	if s := pf.Provenance.Predictions; s != (policy.PredictionSummary{}) {
		_, err = fmt.Fprintf(w, "predicted pairs: %d written with %g%% intervals, %d clamped to the plausible range [%.3g, %.3g], %d flagged unseen, %d uncalibrated; %d not predictable (dropped), %d infeasible; decisions on the %s value\n",
			s.Predicted, 100*s.Coverage, s.Clamped, s.RangeLow, s.RangeHigh, s.Unseen, s.Uncalib, s.Dropped, s.Skipped, s.Decide)
		notes = s.Notes()
	}
	return notes, err
}
