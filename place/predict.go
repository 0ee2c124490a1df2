package place

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/coloc-dev/coloc/model"
)

// PairPrediction is one model's prediction for two jobs sharing a
// device: A's normalized throughput next to B and B's next to A, bounded
// and with their intervals.
type PairPrediction struct {
	Model string         `json:"model"`
	AB    float64        `json:"a_next_to_b"`
	BA    float64        `json:"b_next_to_a"`
	ABEst model.Estimate `json:"a_next_to_b_estimate"`
	BAEst model.Estimate `json:"b_next_to_a_estimate"`
}

// UnknownJobError is a job that the models do not know; Known are the
// jobs they do, for a caller to suggest the nearest.
type UnknownJobError struct {
	Job   string
	Known []string
	Err   error
}

func (e *UnknownJobError) Error() string { return e.Err.Error() }
func (e *UnknownJobError) Unwrap() error { return e.Err }

// PredictPair predicts, with each loaded model, the normalized
// throughput of job a next to job b and of b next to a on device (a
// slot: "v100", "v100x2"). Both jobs need a solo measurement there.
func PredictPair(ms []*model.Loaded, a, b, device string) ([]PairPrediction, error) {
	var out []PairPrediction
	for _, l := range ms {
		ia, err := l.Frame.Job(a)
		if err != nil {
			return nil, &UnknownJobError{Job: a, Known: l.Frame.Jobs, Err: err}
		}
		ib, err := l.Frame.Job(b)
		if err != nil {
			return nil, &UnknownJobError{Job: b, Known: l.Frame.Jobs, Err: err}
		}
		s, err := l.Frame.Slot(device)
		if err != nil {
			return nil, err
		}
		for _, j := range []int{ia, ib} {
			if l.Frame.Row(j, s) == nil {
				return nil, fmt.Errorf("job %q has no solo measurement on %s: the models cannot place it there", l.Frame.Jobs[j], device)
			}
		}
		ab, ba := l.Estimate(ia, ib, s), l.Estimate(ib, ia, s)
		out = append(out, PairPrediction{Model: l.File.Model, AB: ab.Value, BA: ba.Value, ABEst: ab, BAEst: ba})
	}
	return out, nil
}

// WritePredictions writes the predictions of a next to b on device as a
// table, one model a row with both values, their intervals (at coverage)
// and their flags, and returns the notes a reader needs: raw predictions
// set to a bound, jobs unseen on the device, uncalibrated intervals.
func WritePredictions(w io.Writer, rows []PairPrediction, a, b, device string, coverage float64) []string {
	fmt.Fprintf(w, "normalized throughput on %s, with %g%% intervals\n  A = %s\n  B = %s\n", device, 100*coverage, a, b)
	fmt.Fprintf(w, "%-11s %7s %15s %7s %15s  %s\n", "model", "A|B", "interval", "B|A", "interval", "flags")
	fmt.Fprintln(w, strings.Repeat("-", 72))
	var notes []string
	for _, r := range rows {
		var flags []string
		for _, f := range append(r.ABEst.Flags(), r.BAEst.Flags()...) {
			if !slices.Contains(flags, f) {
				flags = append(flags, f)
			}
		}
		fmt.Fprintf(w, "%-11s %7.3f %15s %7.3f %15s  %s\n", r.Model, r.AB, interval(r.ABEst), r.BA, interval(r.BAEst), strings.Join(flags, " "))
		for _, x := range []model.Estimate{r.ABEst, r.BAEst} {
			if x.OutOfRange {
				notes = append(notes, fmt.Sprintf("%s: raw prediction %.3f is outside the plausible range; set to the nearest bound", r.Model, x.Raw))
			}
		}
	}
	if len(rows) > 0 {
		if u := rows[0].ABEst.Unseen; len(u) > 0 {
			notes = append(notes, fmt.Sprintf("%s had no training pair on %s: the predictions rest on features alone (out of distribution) and the intervals are widened; profiling a few of its pairs there ('coloc profile next' picks them early) removes much of that error", strings.Join(u, " and "), device))
		}
		if rows[0].ABEst.Uncalibrated {
			notes = append(notes, "intervals span the plausible range: the models were fit without calibration (too few pairs, or --folds 0)")
		}
	}
	return notes
}

// interval formats an estimate's interval "[0.712, 0.845]".
func interval(x model.Estimate) string { return fmt.Sprintf("[%.3f, %.3f]", x.Lo, x.Hi) }
