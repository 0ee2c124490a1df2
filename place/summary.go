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

// Summary is what WriteSummary prints of a policy file: the file (its
// tables and provenance), its first SummaryRows decisions and the number
// of each status. An export that streams its decisions (WriteExport)
// builds one as they pass.
type Summary struct {
	// File is the policy file; its Decisions are empty when they were
	// streamed.
	File          *policy.File
	first         []policy.Decision
	total, placed int
	rest          map[string]int // statuses of the decisions after the first SummaryRows
}

func newSummary(f *policy.File) *Summary { return &Summary{File: f, rest: map[string]int{}} }

// add counts decision d, the next of the file.
func (s *Summary) add(d policy.Decision) {
	if d.Status == policy.StatusPlaced {
		s.placed++
	}
	if s.total++; len(s.first) < SummaryRows {
		s.first = append(s.first, d)
	} else {
		s.rest[d.Status]++
	}
}

// WriteSummary writes the summary of a policy file written to out
// (Summary.Write).
func WriteSummary(w io.Writer, out string, pf *policy.File) (notes []string, err error) {
	s := newSummary(pf)
	for _, d := range pf.Decisions {
		s.add(d)
	}
	return s.Write(w, out)
}

// Write writes the summary of the policy file written to out: one line
// per decision (the first SummaryRows, then how many more and their
// statuses), then the counts of the decisions and tables, and of the
// predicted pairs; it returns the notes on the predictions for the caller
// to show.
func (s *Summary) Write(w io.Writer, out string) (notes []string, err error) {
	pf := s.File
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "job\tstatus\tGPUs\tplacement\tshares with\tpredicted")
	for _, d := range s.first {
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
	if n := s.total - SummaryRows; n > 0 {
		var by []string
		for _, st := range []string{policy.StatusPlaced, policy.StatusWaiting, policy.StatusUnplaceable} {
			if s.rest[st] > 0 {
				by = append(by, fmt.Sprintf("%d %s", s.rest[st], st))
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
		out, s.placed, s.total, len(pf.Pairs), measured, len(pf.Pairs)-measured, len(pf.Solo), len(pf.Scaling), len(pf.Similarity.References))
	if err != nil {
		return nil, err
	}
	if p := pf.Provenance.Predictions; p != (policy.PredictionSummary{}) {
		_, err = fmt.Fprintf(w, "predicted pairs: %d written with %g%% intervals, %d clamped to the plausible range [%.3g, %.3g], %d flagged unseen, %d uncalibrated; %d not predictable (dropped), %d infeasible; decisions on the %s value\n",
			p.Predicted, 100*p.Coverage, p.Clamped, p.RangeLow, p.RangeHigh, p.Unseen, p.Uncalib, p.Dropped, p.Skipped, p.Decide)
		notes = p.Notes()
	}
	return notes, err
}
