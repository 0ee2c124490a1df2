package profile

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// confidence is the level of every confidence interval the harness writes.
const confidence = 0.95

// meanCI is a mean over repeats with its confidence interval. Low and
// High are NaN with fewer than two values (no spread to measure).
type meanCI struct {
	Mean, Low, High float64
	N               int
}

// HalfWidth is half the interval's width, NaN when unknown.
func (e meanCI) HalfWidth() float64 { return (e.High - e.Low) / 2 }

// MeanCI returns the mean of xs and its 95% confidence interval from
// Student's t distribution with n-1 degrees of freedom: mean ± t·s/√n. The
// low end is clamped at 0 (a throughput is never negative).
func MeanCI(xs []float64) meanCI {
	e := meanCI{Mean: math.NaN(), Low: math.NaN(), High: math.NaN(), N: len(xs)}
	if len(xs) == 0 {
		return e
	}
	e.Mean = stat.Mean(xs, nil)
	if len(xs) < 2 {
		return e
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(xs) - 1)}.Quantile(1 - (1-confidence)/2)
	h := t * stat.StdDev(xs, nil) / math.Sqrt(float64(len(xs)))
	e.Low, e.High = max(e.Mean-h, 0), e.Mean+h
	return e
}

// ratio returns num/den with a confidence interval propagated to first
// order: the relative half-widths add in quadrature,
// h(r)/r = √((h(num)/num)² + (h(den)/den)²). The interval is unknown (NaN)
// unless both inputs have one. The low end is clamped at 0.
func ratio(num, den meanCI) meanCI {
	r := meanCI{Mean: num.Mean / den.Mean, Low: math.NaN(), High: math.NaN(), N: num.N}
	hn, hd := num.HalfWidth(), den.HalfWidth()
	if math.IsNaN(hn) || math.IsNaN(hd) {
		return r
	}
	rel := math.Hypot(hn/num.Mean, hd/den.Mean)
	h := r.Mean * rel
	r.Low, r.High = max(r.Mean-h, 0), r.Mean+h
	return r
}
