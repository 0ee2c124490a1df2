package model

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Strategies of active selection: which unprofiled pairs to profile next.
const (
	// StrategyRandom picks pairs uniformly at random.
	StrategyRandom = "random"
	// StrategyUncertainty picks the pairs with the widest intervals, each
	// on its own (uncertainty sampling).
	StrategyUncertainty = "uncertainty"
	// StrategyWidth picks, one at a time, the pair whose measurement most
	// reduces the total interval width over every pair not yet measured,
	// counting the pairs already picked as measured (so a batch spreads
	// over the workloads instead of repeating one).
	StrategyWidth = "width"
)

// Strategies lists the selection strategies, the default first.
var Strategies = []string{StrategyWidth, StrategyUncertainty, StrategyRandom}

// Candidate is an unordered pair of jobs on a slot: one pair run measures
// both orders, A|B and B|A. A may equal B (a job next to a copy of itself).
type Candidate struct {
	A, B, S int
	// Gain is the value the strategy gave the pair when it was picked.
	Gain float64
}

// SelectOptions control SelectPairs.
type SelectOptions struct {
	Strategy string
	Budget   int
	// Quantile[s] scales the widths of slot s (the conformal quantile of a
	// calibrated model); nil or NaN: 1.
	Quantile []float64
	Seed     uint64
}

// SelectPairs returns up to o.Budget candidates to profile next, in pick
// order. measured are the ordered pairs already measured (their support
// shapes the intervals); skip are unordered pairs not to pick (measured,
// infeasible or failed), keyed by (min, max, slot); slots are the slots to
// pick on. A pair is a candidate when both jobs have solo features on the
// slot.
//
// Interval widths follow the conformal intervals of the models
// (Calibrate): the width of a|b on s is proportional to
// difficulty(n_a, n_b), n being a job's number of measured pairs on s, so
// measuring a pair narrows the intervals of every pair that shares one of
// its jobs. StrategyWidth picks greedily by that total narrowing plus the
// pair's own width (which drops to zero once measured).
func SelectPairs(sp *Space, measured []Obs, skip map[[3]int]bool, slots []int, o SelectOptions) ([]Candidate, error) {
	known := false
	for _, s := range Strategies {
		known = known || s == o.Strategy
	}
	if !known {
		return nil, fmt.Errorf("unknown strategy %q (want one of %s)", o.Strategy, strings.Join(Strategies, ", "))
	}
	nj, ns := len(sp.Jobs), len(sp.Slots)
	sup := support(measured, nj, ns)
	q := make([]float64, ns)
	for s := range q {
		q[s] = 1
		if s < len(o.Quantile) && !math.IsNaN(o.Quantile[s]) && !math.IsInf(o.Quantile[s], 0) {
			q[s] = o.Quantile[s]
		}
	}
	var cands []Candidate
	open := make(map[int][]int) // slot -> jobs with features
	for _, s := range slots {
		for a := 0; a < nj; a++ {
			if sp.Row(a, s) != nil {
				open[s] = append(open[s], a)
			}
		}
		for i, a := range open[s] {
			for _, b := range open[s][i:] {
				if !skip[[3]int{a, b, s}] {
					cands = append(cands, Candidate{A: a, B: b, S: s})
				}
			}
		}
	}
	r := rng(o.Seed, 0xac71)
	r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	n := min(o.Budget, len(cands))
	if n <= 0 {
		return nil, nil
	}
	spread := jobSpread(measured, nj, ns)
	width := func(a, b, s int) float64 {
		return q[s] * difficulty(sup, nj, a, b, s, 1) * (spread[s*nj+a] + spread[s*nj+b]) / 2
	}
	own := func(c Candidate) float64 {
		if c.A == c.B {
			return width(c.A, c.A, c.S)
		}
		return width(c.A, c.B, c.S) + width(c.B, c.A, c.S)
	}
	switch o.Strategy {
	case StrategyRandom:
		return cands[:n], nil
	case StrategyUncertainty:
		for i := range cands {
			cands[i].Gain = own(cands[i])
		}
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].Gain > cands[j].Gain })
		return cands[:n], nil
	}
	// StrategyWidth: greedy, the support of picked pairs counted.
	picked := map[[3]int]bool{}
	var out []Candidate
	for len(out) < n {
		best, bestGain := -1, math.Inf(-1)
		for i, c := range cands {
			if picked[[3]int{c.A, c.B, c.S}] {
				continue
			}
			if g := widthGain(c, sup, spread, nj, q[c.S], open[c.S], picked, skip) + own(c); g > bestGain {
				best, bestGain = i, g
			}
		}
		if best < 0 {
			break
		}
		c := cands[best]
		c.Gain = bestGain
		out = append(out, c)
		picked[[3]int{c.A, c.B, c.S}] = true
		sup[c.S*nj+c.A]++
		if c.B != c.A {
			sup[c.S*nj+c.B]++
		}
	}
	return out, nil
}

// widthGain is the total narrowing of the intervals of the unmeasured
// ordered pairs of slot c.S that share a job with c when c is measured
// (its jobs' support grows by one each).
func widthGain(c Candidate, sup []int, spread []float64, nj int, q float64, jobs []int, picked, skip map[[3]int]bool) float64 {
	after := append([]int(nil), sup[c.S*nj:(c.S+1)*nj]...)
	after[c.A]++
	if c.B != c.A {
		after[c.B]++
	}
	d := func(n []int, a, b int) float64 {
		return math.Sqrt((1/(1+float64(n[a])) + 1/(1+float64(n[b]))) / 2)
	}
	before := sup[c.S*nj : (c.S+1)*nj]
	g := 0.0
	for _, x := range jobs {
		for _, j := range []int{c.A, c.B} {
			if j == c.B && c.B == c.A {
				break
			}
			k := [3]int{min(j, x), max(j, x), c.S}
			if picked[k] || skip[k] || (min(j, x) == min(c.A, c.B) && max(j, x) == max(c.A, c.B)) {
				continue
			}
			w := q * (spread[c.S*nj+j] + spread[c.S*nj+x]) / 2
			g += w * (d(before, j, x) - d(after, j, x) + d(before, x, j) - d(after, x, j))
		}
	}
	return g
}

// jobSpread is, per slot and job, the standard deviation of the measured
// normalized throughputs of the pairs the job is part of, shrunk towards
// the slot's pooled standard deviation with the weight of spreadPrior
// pairs: a job whose partners slow it (or that slows them) very
// differently is harder to predict, so its pairs are worth more. A slot
// without measurements has spread 1 for every job.
func jobSpread(obs []Obs, nj, ns int) []float64 {
	const spreadPrior = 2
	n := make([]float64, nj*ns)
	sum, ss := make([]float64, nj*ns), make([]float64, nj*ns)
	pn, psum, pss := make([]float64, ns), make([]float64, ns), make([]float64, ns)
	for _, o := range obs {
		for _, j := range []int{o.A, o.B} {
			k := o.S*nj + j
			n[k]++
			sum[k] += o.Y
			ss[k] += o.Y * o.Y
			if o.A == o.B {
				break
			}
		}
		pn[o.S]++
		psum[o.S] += o.Y
		pss[o.S] += o.Y * o.Y
	}
	out := make([]float64, nj*ns)
	for s := 0; s < ns; s++ {
		pooled := 1.0
		if pn[s] > 1 {
			m := psum[s] / pn[s]
			pooled = math.Sqrt(math.Max(pss[s]/pn[s]-m*m, 0))
		}
		if pooled == 0 {
			pooled = 1
		}
		for j := 0; j < nj; j++ {
			k := s*nj + j
			v := 0.0
			if n[k] > 0 {
				m := sum[k] / n[k]
				v = math.Max(ss[k]/n[k]-m*m, 0)
			}
			out[k] = math.Sqrt((n[k]*v + spreadPrior*pooled*pooled) / (n[k] + spreadPrior))
		}
	}
	return out
}
