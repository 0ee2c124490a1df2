package model

import (
	"fmt"
	"math"
	"sort"
)

// TrustOptions control how a fit is calibrated.
type TrustOptions struct {
	// Coverage is the nominal coverage of the intervals (0.9: nine in ten
	// held-out pairs fall inside).
	Coverage float64
	// Folds is the number of cross-conformal folds. Each fold's model sees
	// (Folds-1)/Folds of the pairs and is a little worse than the final
	// fit, which widens the intervals; with 5 folds Gavel's k80 at
	// fraction 0.2 covered 95.3% for a nominal 90%, with 10 folds 93.8%
	// (docs/predictions.md), so the default is 10.
	Folds int
}

// DefaultTrustOptions are the defaults of `coloc fit` and `coloc eval`.
var DefaultTrustOptions = TrustOptions{Coverage: 0.9, Folds: 10}

// minCalibration is the fewest held-out residuals of one slot for that
// slot to get its own conformal quantile; below it the slot uses the
// quantile pooled over every slot. Twenty residuals resolve a 90% quantile
// to the second-largest one; fewer leave it to the single largest.
const minCalibration = 20

// Trust is what a fit keeps to bound, flag and qualify its predictions:
// the plausible range, each job's support (number of training pairs it is
// part of, per slot) and the cross-conformal quantiles of the residuals.
type Trust struct {
	Range    Range   `json:"range"`
	Coverage float64 `json:"coverage"`
	Folds    int     `json:"folds"`
	// Support[s*len(Jobs)+j] is the number of training pairs (as victim or
	// aggressor) of job j on slot s.
	Support []int `json:"support"`
	// Quantile[s] is the conformal quantile of slot s's normalized scores
	// (pooled when the slot had too few); NaN (null) when no interval can
	// be given (too few pairs to calibrate).
	Quantile floats `json:"quantile"`
	// Calibrated[s] is the number of held-out residuals behind Quantile[s].
	Calibrated []int `json:"calibrated"`
}

// Range is the plausible range of a normalized throughput.
//
// A model's prediction is bounded to the range of the normalized
// throughputs it was trained on, [min, max]. The rule follows from the
// objective (absolute error): when the truth lies within the measured
// range, moving a prediction from outside the range to its nearest bound
// never increases the error, and a model has no evidence for a value
// beyond every measurement it saw. Measurements above 1 are kept (they are
// real), so the range reaches above 1 when the data does.
type Range struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Clamp bounds v to the range; NaN becomes the middle of the range.
func (r Range) Clamp(v float64) float64 {
	switch {
	case math.IsNaN(v):
		return (r.Lo + r.Hi) / 2
	case v < r.Lo:
		return r.Lo
	case v > r.Hi:
		return r.Hi
	}
	return v
}

// Contains reports whether v lies in the range.
func (r Range) Contains(v float64) bool { return v >= r.Lo && v <= r.Hi }

// observedRange is the plausible range of a set of training pairs.
func observedRange(obs []Obs) Range {
	r := Range{Lo: math.Inf(1), Hi: math.Inf(-1)}
	for _, o := range obs {
		r.Lo, r.Hi = math.Min(r.Lo, o.Y), math.Max(r.Hi, o.Y)
	}
	return r
}

// support counts each job's training pairs per slot.
func support(obs []Obs, nJobs, nSlots int) []int {
	n := make([]int, nJobs*nSlots)
	for _, o := range obs {
		n[o.S*nJobs+o.A]++
		if o.B != o.A {
			n[o.S*nJobs+o.B]++
		}
	}
	return n
}

// difficulty is the scale a residual is normalized by: large where the
// two jobs have few training pairs on the slot, so a pair of jobs never
// seen paired there gets a wider interval than one of well-measured jobs.
// It is sqrt of the mean of 1/(1+n) over the two jobs, n a job's number
// of training pairs: the standard error of a mean of n+1 values, the
// shrinkage every model of this package applies to a job's own effect.
//
// scale multiplies the counts: a calibration fold sees (k-1)/k of the
// training pairs, so its counts are scaled by k/(k-1) to the counts the
// final fit sees; without it held-out scores are normalized by a larger
// difficulty than test pairs get, and the intervals under-cover.
func difficulty(sup []int, nJobs, a, b, s int, scale float64) float64 {
	na, nb := scale*float64(sup[s*nJobs+a]), scale*float64(sup[s*nJobs+b])
	return math.Sqrt((1/(1+na) + 1/(1+nb)) / 2)
}

// Calibrate returns the Trust of the model called name fit on t: it fits
// the model on o.Folds-1 folds of t's pairs and scores the held-out fold,
// for each fold (cross-conformal), and keeps the quantile of the
// normalized absolute residuals per slot. It does not fit the final
// model. With fewer pairs than it needs, the Trust carries no quantile:
// predictions are still bounded and flagged, and their interval is the
// whole plausible range.
func Calibrate(name string, t *Train, o TrustOptions) (*Trust, []string, error) {
	if !(o.Coverage > 0 && o.Coverage < 1) {
		return nil, nil, fmt.Errorf("coverage %v is not in (0, 1)", o.Coverage)
	}
	nj, ns := len(t.Jobs), len(t.Slots)
	tr := &Trust{Range: observedRange(t.Obs), Coverage: o.Coverage, Folds: o.Folds,
		Support: support(t.Obs, nj, ns), Quantile: make(floats, ns), Calibrated: make([]int, ns)}
	for s := range tr.Quantile {
		tr.Quantile[s] = math.NaN()
	}
	k := o.Folds
	if k < 2 || len(t.Obs) < k*MinObs {
		return tr, []string{fmt.Sprintf("%s: %d training pairs are too few to calibrate %d-fold intervals (need %d): intervals span the whole plausible range", name, len(t.Obs), k, max(k, 2)*MinObs)}, nil
	}
	idx := rng(t.Seed, 0xc0f0).Perm(len(t.Obs))
	scores := make([][]float64, ns)
	var warns []string
	for f := 0; f < k; f++ {
		var fit, held []Obs
		for i, p := range idx {
			if i%k == f {
				held = append(held, t.Obs[p])
			} else {
				fit = append(fit, t.Obs[p])
			}
		}
		sub, err := NewTrain(t.Space, fit, t.Seed)
		if err != nil {
			return nil, nil, fmt.Errorf("calibrating %s, fold %d: %w", name, f+1, err)
		}
		m, err := New(name)
		if err != nil {
			return nil, nil, err
		}
		if err := m.Fit(sub); err != nil {
			warns = append(warns, fmt.Sprintf("%s: calibration fold %d of %d could not be fit (%v): left out", name, f+1, k, err))
			continue
		}
		rg, sup := observedRange(fit), support(fit, nj, ns)
		for _, h := range held {
			p := rg.Clamp(m.Predict(h.A, h.B, h.S))
			scores[h.S] = append(scores[h.S], math.Abs(h.Y-p)/difficulty(sup, nj, h.A, h.B, h.S, float64(k)/float64(k-1)))
		}
	}
	var pooled []float64
	for _, sc := range scores {
		pooled = append(pooled, sc...)
	}
	qAll := conformalQuantile(pooled, o.Coverage)
	for s, sc := range scores {
		if len(sc) >= minCalibration {
			tr.Quantile[s], tr.Calibrated[s] = conformalQuantile(sc, o.Coverage), len(sc)
		} else {
			tr.Quantile[s], tr.Calibrated[s] = qAll, len(pooled)
		}
	}
	return tr, warns, nil
}

// conformalQuantile is the ceil((n+1) coverage)-th smallest score, the
// split-conformal quantile; +Inf when n is too small for the coverage and
// NaN without scores.
func conformalQuantile(scores []float64, coverage float64) float64 {
	n := len(scores)
	if n == 0 {
		return math.NaN()
	}
	k := int(math.Ceil(float64(n+1) * coverage))
	if k > n {
		return math.Inf(1)
	}
	s := append([]float64(nil), scores...)
	sort.Float64s(s)
	return s[k-1]
}

// Estimate is a bounded prediction with its interval and what is known
// about how far to trust it.
type Estimate struct {
	// Value is the prediction bounded to the plausible range; Raw is the
	// model's own output.
	Value float64 `json:"value"`
	Raw   float64 `json:"raw"`
	// Lo and Hi bound the interval at the Trust's coverage, within the
	// plausible range.
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// OutOfRange: Raw was outside the plausible range (or not a number)
	// and Value is the nearest bound.
	OutOfRange bool `json:"out_of_range,omitempty"`
	// Unseen lists the jobs of the pair with no training pair on the slot:
	// the prediction rests on their features alone (out of distribution).
	Unseen []string `json:"unseen,omitempty"`
	// Uncalibrated: there were too few pairs to calibrate an interval; Lo
	// and Hi are the plausible range.
	Uncalibrated bool `json:"uncalibrated,omitempty"`
}

// Flags returns the estimate's flags as words ("out-of-range",
// "unseen:JOB", "uncalibrated"), empty when there is none.
func (e Estimate) Flags() []string {
	var out []string
	if e.OutOfRange {
		out = append(out, "out-of-range")
	}
	for _, j := range e.Unseen {
		out = append(out, "unseen:"+j)
	}
	if e.Uncalibrated {
		out = append(out, "uncalibrated")
	}
	return out
}

// Estimate bounds and qualifies the prediction m makes for a|b on s; m
// must be fit on the Train the Trust was calibrated on.
func (tr *Trust) Estimate(m Model, jobs []string, a, b, s int) Estimate {
	raw := m.Predict(a, b, s)
	nj := len(jobs)
	e := Estimate{Raw: raw, Value: tr.Range.Clamp(raw)}
	e.OutOfRange = !tr.Range.Contains(raw)
	for _, j := range []int{a, b} {
		if tr.Support[s*nj+j] == 0 && (j == a || a != b) {
			e.Unseen = append(e.Unseen, jobs[j])
		}
	}
	q := tr.Quantile[s]
	if math.IsNaN(q) || math.IsInf(q, 1) {
		e.Lo, e.Hi, e.Uncalibrated = tr.Range.Lo, tr.Range.Hi, true
		return e
	}
	w := q * difficulty(tr.Support, nj, a, b, s, 1)
	e.Lo, e.Hi = math.Max(tr.Range.Lo, e.Value-w), math.Min(tr.Range.Hi, e.Value+w)
	return e
}

// check verifies that a Trust read from a file fits its space.
func (tr *Trust) check(sp *Space) error {
	nj, ns := len(sp.Jobs), len(sp.Slots)
	switch {
	case !(tr.Range.Lo <= tr.Range.Hi) || !(tr.Range.Lo > 0):
		return fmt.Errorf("trust: plausible range [%v, %v] is not a positive interval", tr.Range.Lo, tr.Range.Hi)
	case !(tr.Coverage > 0 && tr.Coverage < 1):
		return fmt.Errorf("trust: coverage %v is not in (0, 1)", tr.Coverage)
	case len(tr.Support) != nj*ns:
		return fmt.Errorf("trust: %d support counts for %d jobs x %d slots", len(tr.Support), nj, ns)
	case len(tr.Quantile) != ns || len(tr.Calibrated) != ns:
		return fmt.Errorf("trust: %d quantiles and %d calibration counts for %d slots", len(tr.Quantile), len(tr.Calibrated), ns)
	}
	return nil
}
