package decide

import "math"

// Sizes learns the distribution of job sizes from what a scheduler sees:
// the sizes of the jobs that completed and, for the jobs still running,
// the service they have had so far (a lower bound of their size). It is
// the Kaplan-Meier estimate of the survival function on a log-spaced
// grid, with a Pareto tail of shape TailShape beyond the largest value
// seen. From it come a job's Gittins index (the best ratio, over how much
// more service to give it, of the chance that it completes within that
// service to the expected service spent) and its expected remaining
// size, both as functions of the service it attained.
//
// Units are whatever the caller measures sizes in; the grid spans
// [GridMin, GridMin x 2^(GridBins/BinsPerOctave)] in eighth octaves (a
// bin is 9% wide). Values below the grid fall in its first bin, above it
// in the last.
type Sizes struct {
	done     []float64 // completed sizes
	doneBin  []int32   // their bins when known (doneNear), else -1
	censored []float64 // attained service of active jobs (set each update)
	dirty    bool
	// per grid point e[i]: survival S(e[i]), the Gittins index at age
	// e[i], and the expected remaining size at age e[i].
	surv, index, remain []float64
	// scratch of update and gittins
	deaths, leave, area, acc []float64
	hull                     []pt
}

// pt is a point of gittins' hull.
type pt struct{ x, y float64 }

// Grid and tail constants.
const (
	// GridMin is the smallest size the grid tells apart: one GPU-minute
	// (sizes below it are counted there).
	GridMin = 60.0
	// BinsPerOctave sets the grid's resolution.
	BinsPerOctave = 8
	// GridBins eighth octaves span one GPU-minute to 2^40 of them.
	GridBins = 40 * BinsPerOctave
	// TailShape is the Pareto shape assumed beyond the largest value
	// seen: shape 2, the heavy tail of cluster job sizes (a job that has
	// run t is expected to need t more).
	TailShape = 2.0
)

var grid = func() []float64 {
	g := make([]float64, GridBins+1)
	for i := range g {
		g[i] = GridMin * math.Exp2(float64(i)/BinsPerOctave)
	}
	return g
}()

// Done records a completed job's size.
func (s *Sizes) Done(size float64) { s.doneNear(size, -1) }

// doneNear is Done for a size whose bin is near hint (its bin at the last
// update, which a change of scale moves a little or not at all; -1 none),
// and returns its bin: found from the hint in a step or two instead of
// from the size alone.
func (s *Sizes) doneNear(size float64, hint int32) int32 {
	if !(size > 0) || math.IsInf(size, 0) {
		return hint
	}
	b := int32(binNear(size, int(hint)))
	s.done = append(s.done, size)
	s.doneBin = append(s.doneBin, b)
	s.dirty = true
	return b
}

// Censor sets the attained service of the jobs still active (their sizes
// are at least that), replacing the last call's.
func (s *Sizes) Censor(attained []float64) {
	s.censored = append(s.censored[:0], attained...)
	s.dirty = true
}

// reset forgets every size recorded, keeping the arrays for the next.
func (s *Sizes) reset() {
	s.done, s.doneBin, s.censored, s.dirty = s.done[:0], s.doneBin[:0], s.censored[:0], true
}

// Completed returns how many completed sizes were recorded.
func (s *Sizes) Completed() int { return len(s.done) }

// binOf is the definition of a value's bin: the eighth octaves from
// GridMin below it. bin computes the same without a logarithm.
func binOf(x float64) int {
	if !(x > GridMin) {
		return 0
	}
	if x >= grid[GridBins] {
		return GridBins // +Inf too, whose logarithm no int holds
	}
	i := int(math.Floor(BinsPerOctave * math.Log2(x/GridMin)))
	return min(i, GridBins)
}

// binEdge[i] is the smallest value whose bin (binOf) is i or more, for i
// from 1: found once by bisection over the float64s, so that bin, which
// starts from a guess read off x's exponent and mantissa and steps to the
// edges, gives binOf's bin exactly (binOf never falls as x rises: the
// quotient, the logarithm and the floor are each monotone).
var binEdge = func() []float64 {
	e := make([]float64, GridBins+2)
	e[0], e[GridBins+1] = 0, math.Inf(1)
	lo0, hi0 := math.Float64bits(GridMin), math.Float64bits(grid[GridBins])
	for i := 1; i <= GridBins; i++ {
		lo, hi := lo0, hi0 // binOf(lo) < i <= binOf(hi)
		for hi-lo > 1 {
			m := lo + (hi-lo)/2
			if binOf(math.Float64frombits(m)) >= i {
				hi = m
			} else {
				lo = m
			}
		}
		e[i] = math.Float64frombits(hi)
	}
	return e
}()

func bin(x float64) int {
	if !(x > GridMin) {
		return 0
	}
	if x >= grid[GridBins] {
		return GridBins
	}
	// x/GridMin = 2^e (1+m): e octaves and, since log2(1+m) >= m, at
	// most one bin more than m eighths of one.
	b := math.Float64bits(x / GridMin)
	e := int(b>>52&0x7ff) - 1023
	m := float64(b&(1<<52-1)) / (1 << 52)
	i := min(max(e*BinsPerOctave+int(m*BinsPerOctave), 0), GridBins)
	for i > 0 && x < binEdge[i] {
		i--
	}
	for i < GridBins && x >= binEdge[i+1] {
		i++
	}
	return i
}

// binNear returns bin(x), walking from the bin hint when it is one (in
// [0, GridBins]): the bins are the intervals between consecutive edges,
// so the walk ends where bin's own does.
func binNear(x float64, hint int) int {
	if hint < 0 || hint > GridBins || !(x > GridMin) {
		return bin(x)
	}
	i := hint
	for i > 0 && x < binEdge[i] {
		i--
	}
	for i < GridBins && x >= binEdge[i+1] {
		i++
	}
	return i
}

// update recomputes the tables.
func (s *Sizes) update() {
	if !s.dirty && s.surv != nil {
		return
	}
	s.dirty = false
	n := len(grid)
	// Every table is grid-long and rebuilt whole: the buffers of the
	// last update are reused.
	grow := func(b []float64, n int) []float64 { return append(b[:0], make([]float64, n)...) }
	s.deaths, s.leave = grow(s.deaths, n), grow(s.leave, n)
	deaths, leave := s.deaths, s.leave // leave: censored at that bin
	maxSeen := 0.0
	for k, x := range s.done {
		deaths[s.doneBin[k]]++
		maxSeen = max(maxSeen, x)
	}
	for _, x := range s.censored {
		leave[bin(x)]++
		maxSeen = max(maxSeen, x)
	}
	atRisk := float64(len(s.done) + len(s.censored))
	s.surv = grow(s.surv, n)
	surv := s.surv
	S := 1.0
	// The estimate holds up to the grid point after the largest value
	// seen; beyond it the Pareto tail takes over from what survives there.
	last := min(bin(maxSeen)+1, n-1)
	for i := 0; i < n; i++ {
		// S(e[i]): the chance a size exceeds grid point i. A size in bin
		// i lies in [e[i], e[i+1]); it has ended by e[i+1].
		if i > last {
			surv[i] = surv[last] * math.Pow(grid[last]/grid[i], TailShape)
			continue
		}
		surv[i] = S
		if atRisk > 0 && deaths[i] > 0 {
			S *= 1 - deaths[i]/atRisk
		}
		atRisk -= deaths[i] + leave[i]
	}
	// With no information at all, S is 1 to the end of what was seen and
	// the tail carries the index.
	s.area = grow(s.area, n)
	area := s.area // integral of S over [e[i], e[i+1]) (trapezoid)
	for i := 0; i+1 < n; i++ {
		area[i] = (surv[i] + surv[i+1]) / 2 * (grid[i+1] - grid[i])
	}
	// Beyond the grid: the Pareto tail's integral from its last point.
	tail := surv[n-1] * grid[n-1] / (TailShape - 1)
	s.index, s.remain = grow(s.index, n), grow(s.remain, n)
	cum := tail
	for i := n - 1; i >= 0; i-- {
		if i+1 < n {
			cum += area[i]
		}
		if surv[i] > 0 {
			s.remain[i] = cum / surv[i]
		} else {
			s.remain[i] = 0
		}
	}
	s.gittins(area, tail)
}

// gittins fills the index table. The index at grid point i is the best
// ratio (S_i - S_j) / (A_i - A_j) over later points j (and the end of the
// tail, where both are 0), A_i being the integral of S from e[i] on: the
// steepest line from (A_i, S_i) down to one of them. Those lines touch
// the lower convex hull of the later points, kept as i falls (each new
// point has the largest A so far) with the tangent found by bisection:
// O(n log n) instead of comparing every pair.
func (s *Sizes) gittins(area []float64, tail float64) {
	n := len(grid)
	s.acc = append(s.acc[:0], make([]float64, n+1)...)
	A := s.acc // A[n] is the end of the tail: (0, 0)
	A[n-1] = tail
	for i := n - 2; i >= 0; i-- {
		A[i] = A[i+1] + area[i]
	}
	hull := append(s.hull[:0], pt{0, 0})
	defer func() { s.hull = hull }()
	slope := func(q, p pt) float64 { return (q.y - p.y) / (q.x - p.x) }
	for i := n - 1; i >= 0; i-- {
		q := pt{A[i], s.surv[i]}
		if s.surv[i] > 0 {
			// Bisect for the hull point of steepest slope from q: along
			// the lower hull the slope from a point above and right of
			// it rises, then falls.
			lo, hi := 0, len(hull)-1
			for lo < hi {
				m := (lo + hi) / 2
				if hull[m].x < q.x && (hull[m+1].x >= q.x || slope(q, hull[m]) < slope(q, hull[m+1])) {
					lo = m + 1
				} else {
					hi = m
				}
			}
			best := 0.0
			for _, k := range []int{lo - 1, lo} {
				if k >= 0 && k < len(hull) && hull[k].x < q.x {
					best = max(best, slope(q, hull[k]))
				}
			}
			s.index[i] = best
		}
		// Add q at the right end of the lower hull.
		for len(hull) >= 2 {
			a, b := hull[len(hull)-2], hull[len(hull)-1]
			if (b.x-a.x)*(q.y-a.y)-(b.y-a.y)*(q.x-a.x) <= 0 {
				hull = hull[:len(hull)-1]
				continue
			}
			break
		}
		if q.x > hull[len(hull)-1].x {
			hull = append(hull, q)
		}
	}
}

// at returns the position of age a between grid points i and i+1 and the
// weight of i+1.
func at(a float64) (int, float64) { return atNear(a, -1) }

// atNear is at with a's bin found from hint (binNear).
func atNear(a float64, hint int) (int, float64) {
	i := binNear(a, hint)
	if i >= GridBins {
		return GridBins, 0
	}
	w := (a - grid[i]) / (grid[i+1] - grid[i])
	return i, min(1, max(0, w))
}

// Index returns the Gittins index of a job that has attained service a:
// completions per unit of service (higher runs first).
func (s *Sizes) Index(a float64) float64 {
	s.update()
	i, w := at(a)
	if w == 0 {
		return s.index[i]
	}
	return s.index[i]*(1-w) + s.index[i+1]*w
}

// Remaining returns the expected service still needed by a job that has
// attained service a (its mean residual size).
func (s *Sizes) Remaining(a float64) float64 {
	s.update()
	if a > grid[GridBins] {
		// In the tail: the Pareto law's mean residual life.
		return a / (TailShape - 1)
	}
	i, w := at(a)
	r := s.remain[i]
	if w > 0 {
		r = s.remain[i]*(1-w) + s.remain[i+1]*w
	}
	return max(0, r)
}

// indexRemaining returns Index(a) and Remaining(a), finding a's place on
// the grid once (a decision asks both for every job).
func (s *Sizes) indexRemaining(a float64) (index, remain float64) {
	index, remain, _ = s.indexRemainingNear(a, -1)
	return index, remain
}

// indexRemainingNear is indexRemaining with a's bin found from hint (its
// bin at the last call, for a job whose service changed little; -1
// none), and returns the bin.
func (s *Sizes) indexRemainingNear(a float64, hint int32) (index, remain float64, b int32) {
	s.update()
	i, w := atNear(a, int(hint))
	index, remain = s.index[i], s.remain[i]
	if w != 0 {
		index = s.index[i]*(1-w) + s.index[i+1]*w
	}
	if w > 0 {
		remain = s.remain[i]*(1-w) + s.remain[i+1]*w
	}
	if a > grid[GridBins] {
		remain = a / (TailShape - 1)
	}
	return index, max(0, remain), int32(i)
}
