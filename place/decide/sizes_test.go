package decide

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A job of known size S that attained a has index 1/(S-a) (all of its
// chance to finish within what it has left) and remaining size S-a.
func TestSizesDeterministic(t *testing.T) {
	s := allOf(100, 36000)
	// (Within a grid bin of the end the grid's resolution shows: only
	// the order is checked there.)
	for _, a := range []float64{0, 3600, 18000} {
		want := 1 / (36000 - a)
		if got := s.Index(a); math.Abs(got/want-1) > 0.1 {
			t.Errorf("index at %v: %v, want about %v", a, got, want)
		}
		if got := s.Remaining(a); math.Abs(got-(36000-a)) > 0.1*36000 {
			t.Errorf("remaining at %v: %v, want about %v", a, got, 36000-a)
		}
	}
	if s.Index(30000) <= s.Index(3600) {
		t.Error("a job nearer its known end should come first")
	}
}

// Exponential sizes have no memory: the index is 1/mean at every age,
// and so is the expected remaining size's reciprocal.
func TestSizesExponential(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var s Sizes
	const mean = 20000.0
	for range 20000 {
		s.Done(r.ExpFloat64() * mean)
	}
	for _, a := range []float64{1000, 10000, 30000} {
		if got := s.Index(a) * mean; math.Abs(got-1) > 0.25 {
			t.Errorf("index at %v times the mean = %v, want about 1", a, got)
		}
		if got := s.Remaining(a) / mean; math.Abs(got-1) > 0.25 {
			t.Errorf("remaining at %v over the mean = %v, want about 1", a, got)
		}
	}
}

// Heavy tails: the index falls with age (least attained service first)
// and the expected remaining size grows with it.
func TestSizesHeavyTail(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var s Sizes
	for range 5000 {
		// Pareto of shape 1.5 from one GPU-hour.
		s.Done(3600 / math.Pow(1-r.Float64(), 1/1.5))
	}
	prevI, prevR := math.Inf(1), 0.0
	for _, a := range []float64{7200, 36000, 360000} {
		i, rem := s.Index(a), s.Remaining(a)
		if !(i < prevI) || !(rem > prevR) {
			t.Errorf("at %v: index %v (before %v), remaining %v (before %v)", a, i, prevI, rem, prevR)
		}
		prevI, prevR = i, rem
	}
}

// Active jobs count as sizes at least their attained service: with only
// short jobs done and long ones running, a long-running job is not
// expected to end at once.
func TestSizesCensored(t *testing.T) {
	var s Sizes
	for range 10 {
		s.Done(600)
	}
	s.Censor([]float64{50000, 60000, 70000})
	if rem := s.Remaining(50000); !(rem > 10000) {
		t.Errorf("remaining at 50000 with longer jobs still running = %v", rem)
	}
	// With no information, every age looks alike.
	var empty Sizes
	if a, b := empty.Index(100), empty.Index(10000); !(a > 0) || math.Abs(a-b)/a > 1e-9 && !(b <= a) {
		t.Errorf("empty: index %v at 100 and %v at 10000", a, b)
	}
}

// The hull's index agrees with the definition, every later point tried.
func TestSizesIndexAgreesWithPlainMax(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 20; k++ {
		var s Sizes
		n := 5 + r.IntN(300)
		for range n {
			switch r.IntN(3) {
			case 0:
				s.Done(60 * math.Exp(r.Float64()*12))
			case 1:
				s.Done(3600 * (1 + r.Float64()))
			default:
				s.Done(1e5 * r.ExpFloat64())
			}
		}
		if k%2 == 1 {
			s.Censor([]float64{1e6 * r.Float64(), 1e4})
		}
		s.update()
		m := len(grid)
		A := make([]float64, m)
		area := func(i int) float64 { return (s.surv[i] + s.surv[i+1]) / 2 * (grid[i+1] - grid[i]) }
		A[m-1] = s.surv[m-1] * grid[m-1] / (TailShape - 1)
		for i := m - 2; i >= 0; i-- {
			A[i] = A[i+1] + area(i)
		}
		for i := 0; i < m; i++ {
			if s.surv[i] <= 0 {
				continue
			}
			best := s.surv[i] / A[i] // to the end of the tail
			for j := i + 1; j < m; j++ {
				if A[i] > A[j] {
					best = max(best, (s.surv[i]-s.surv[j])/(A[i]-A[j]))
				}
			}
			if math.Abs(s.index[i]-best) > 1e-9*best {
				t.Fatalf("distribution %d, point %d: hull %v, plain %v", k, i, s.index[i], best)
			}
		}
	}
}

// TestIndexRemaining checks that the decision's one lookup gives what
// Index and Remaining give, at grid points, between them, below the grid
// and in the tail.
func TestIndexRemaining(t *testing.T) {
	var s Sizes
	for i := 1; i <= 300; i++ {
		s.Done(60 * math.Pow(1.07, float64(i%97)))
	}
	s.Censor([]float64{0, 30, 5000, 1e6})
	for _, a := range []float64{0, 1, 59.9, 60, 61, 1234.5, grid[17], grid[GridBins] * 0.99, grid[GridBins], grid[GridBins] * 3, math.Inf(1)} {
		ix, rem := s.indexRemaining(a)
		if wi, wr := s.Index(a), s.Remaining(a); ix != wi || rem != wr {
			t.Errorf("at %v: %v, %v; Index and Remaining say %v, %v", a, ix, rem, wi, wr)
		}
	}
}

// TestBinIsBinOf checks bin, and binNear from hints near and far,
// against its definition at every edge, the floats next to each, and a
// million values drawn log-uniformly over and beyond the grid.
func TestBinIsBinOf(t *testing.T) {
	hints := rand.New(rand.NewPCG(5, 6))
	check := func(x float64) {
		want := binOf(x)
		if got := bin(x); got != want {
			t.Fatalf("bin(%v) = %d, want %d", x, got, want)
		}
		// binNear from no hint, the bin itself, its neighbours, the ends
		// and a bin drawn anywhere.
		for _, h := range []int{-1, want, want - 1, want + 1, 0, GridBins, GridBins + 1, hints.IntN(GridBins + 1)} {
			if got := binNear(x, h); got != want {
				t.Fatalf("binNear(%v, %d) = %d, want %d", x, h, got, want)
			}
		}
	}
	for _, x := range []float64{math.Inf(-1), -1, 0, GridMin, math.NaN(), math.Inf(1), grid[GridBins]} {
		check(x)
	}
	for i := 1; i <= GridBins; i++ {
		for _, x := range []float64{binEdge[i], math.Nextafter(binEdge[i], 0), math.Nextafter(binEdge[i], math.Inf(1)), grid[i], math.Nextafter(grid[i], 0)} {
			check(x)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1_000_000 {
		check(GridMin * math.Exp2(42*rng.Float64()-1))
	}
}

// allOf returns the distribution of n completed sizes, all equal to size.
func allOf(n int, size float64) *Sizes {
	var s Sizes
	for range n {
		s.Done(size)
	}
	return &s
}
