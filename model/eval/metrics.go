package eval

import (
	"math"
	"sort"
)

// Decision is the co-location rule scored by Agreement: two jobs share a
// GPU when each keeps at least this normalized throughput next to the
// other.
const Decision = 0.8

// Metrics are the errors of one model's predictions on one test set.
type Metrics struct {
	N        int     `json:"n_test"`
	MAE      float64 `json:"mae"`
	RMSE     float64 `json:"rmse"`
	MAPE     float64 `json:"mape"` // percent
	R2       float64 `json:"r2"`
	Spearman float64 `json:"spearman"`
	// Agreement is the share of test pairs {A, B} (both orders in the test
	// set, or A = B) on which "co-locate if both normalized throughputs are
	// >= Decision" decided on predictions equals the decision on
	// measurements; NAgree is their number. NaN when there is none.
	Agreement float64 `json:"agreement"`
	NAgree    int     `json:"n_agreement"`
	// Coverage is the share of test pairs whose measurement lies in the
	// prediction's interval, Width the mean width of those intervals; NaN
	// when the run calibrates no intervals.
	Coverage float64 `json:"coverage"`
	Width    float64 `json:"width"`
	// OutOfRange is the share of the fit's raw predictions outside its
	// plausible range over every unmeasured pair of the test slots: every
	// ordered pair of jobs with solo features there that the fit was not
	// trained on, measured or not (NUnmeasured of them).
	OutOfRange  float64 `json:"out_of_range"`
	NUnmeasured int     `json:"n_unmeasured"`
}

// scored is one test pair with its measurement and prediction.
type scored struct {
	a, b, s int
	y, p    float64
	lo, hi  float64 // interval; NaN when none
}

func score(xs []scored) Metrics {
	m := Metrics{N: len(xs)}
	if len(xs) == 0 {
		nan := math.NaN()
		return Metrics{MAE: nan, RMSE: nan, MAPE: nan, R2: nan, Spearman: nan, Agreement: nan, Coverage: nan, Width: nan, OutOfRange: nan}
	}
	m.Coverage, m.Width = coverage(xs)
	var sae, sse, sape, ym float64
	for _, x := range xs {
		e := x.p - x.y
		sae += math.Abs(e)
		sse += e * e
		sape += math.Abs(e) / x.y
		ym += x.y
	}
	n := float64(len(xs))
	ym /= n
	sst := 0.0
	for _, x := range xs {
		sst += (x.y - ym) * (x.y - ym)
	}
	m.MAE, m.RMSE, m.MAPE = sae/n, math.Sqrt(sse/n), 100*sape/n
	m.R2 = math.NaN()
	if sst > 0 {
		m.R2 = 1 - sse/sst
	}
	ys, ps := make([]float64, len(xs)), make([]float64, len(xs))
	for i, x := range xs {
		ys[i], ps[i] = x.y, x.p
	}
	m.Spearman = pearson(ranks(ys), ranks(ps))
	m.Agreement, m.NAgree = agreement(xs)
	return m
}

func agreement(xs []scored) (float64, int) {
	type key struct{ a, b, s int }
	at := make(map[key]scored, len(xs))
	for _, x := range xs {
		at[key{x.a, x.b, x.s}] = x
	}
	agree, n := 0, 0
	for _, x := range xs {
		if x.a > x.b {
			continue
		}
		y, ok := at[key{x.b, x.a, x.s}]
		if !ok {
			continue
		}
		meas := x.y >= Decision && y.y >= Decision
		pred := x.p >= Decision && y.p >= Decision
		if meas == pred {
			agree++
		}
		n++
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return float64(agree) / float64(n), n
}

// ranks returns the ranks of xs (1-based), ties getting their mean rank.
func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return xs[idx[i]] < xs[idx[j]] })
	r := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mean
		}
		i = j + 1
	}
	return r
}

func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// median of the non-NaN values; NaN when none.
func median(xs []float64) float64 {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// coverage returns the share of xs whose measurement lies in its interval
// and the mean interval width; NaN when an interval is missing.
func coverage(xs []scored) (float64, float64) {
	in, w := 0, 0.0
	for _, x := range xs {
		if math.IsNaN(x.lo) || math.IsNaN(x.hi) {
			return math.NaN(), math.NaN()
		}
		if x.y >= x.lo && x.y <= x.hi {
			in++
		}
		w += x.hi - x.lo
	}
	n := float64(len(xs))
	return float64(in) / n, w / n
}
