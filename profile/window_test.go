package profile

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// stream builds steps from step durations, starting at t0, with a batch of
// bs; Recv is Time + lag.
func stream(t0, lag float64, bs int64, durs ...float64) []step {
	var out []step
	t := t0
	for i, d := range durs {
		t += d
		out = append(out, step{Step: int64(i + 1), Samples: int64(i+1) * bs, Time: t, Recv: t + lag})
	}
	return out
}

func repeat(d float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = d
	}
	return out
}

func cat(parts ...[]float64) []float64 {
	var out []float64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestWarmup(t *testing.T) {
	noisy := func(n int, seed uint64) []float64 {
		rng := rand.New(rand.NewPCG(seed, 1))
		out := make([]float64, n)
		for i := range out {
			out[i] = 0.1 * (1 + 0.04*(rng.Float64()-0.5)) // ±2%
		}
		return out
	}
	ramp := make([]float64, 30) // step time halves every 5 steps: never settles
	for i := range ramp {
		ramp[i] = math.Pow(0.5, float64(i)/5)
	}
	o := WindowOptions{Span: 5, Tolerance: 0.1, MinSteps: 5}
	tests := []struct {
		name    string
		durs    []float64
		warmup  time.Duration
		start   int
		settled bool
	}{
		// 8 slow steps (dur[1..7] = 1), then 0.1 s: the medians of
		// dur[k-9..k-5] and dur[k-4..k] first agree at k = 15, when three
		// of the earlier five are fast.
		{"slow start", cat(repeat(1, 8), repeat(0.1, 30)), 0, 15, true},
		// two slow steps do not move a median of five.
		{"short slow start", cat(repeat(1, 3), repeat(0.1, 30)), 0, 10, true},
		{"steady from the start", repeat(0.1, 30), 0, 10, true},
		// a minimum warm-up of 2 s after the first step (t = 0.125) moves
		// the start to the first step at or past t = 2.125: index 16.
		{"minimum warm-up", repeat(0.125, 40), 2 * time.Second, 16, true},
		{"noise within tolerance", noisy(40, 7), 0, 10, true},
		// never settles: the first step past half the time span.
		{"ramp", ramp, 0, 5, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o.MinWarmup = tc.warmup
			steps := stream(0, 0, 1, tc.durs...)
			start, settled := warmup(steps, o)
			if start != tc.start || settled != tc.settled {
				t.Errorf("Warmup = %d, %v; want %d, %v", start, settled, tc.start, tc.settled)
			}
		})
	}
	if k, _ := warmup(stream(0, 0, 1, 1), o); k != -1 {
		t.Errorf("one step: Warmup = %d, want -1", k)
	}
}

func TestMeasure(t *testing.T) {
	// 10 steps of 0.5 s, batch 8, clock origin 100, read 0.25 s late.
	steps := stream(100, 0.25, 8, repeat(0.5, 10)...)
	tests := []struct {
		name      string
		offset    float64
		from, to  float64
		minSteps  int
		tput      float64
		steps     int64
		windowS   float64
		shortFail bool
	}{
		{"whole stream", 0, 100, 105, 5, 16, 9, 4.5, false},
		{"inner window", 0, 101.2, 103.6, 2, 16, 4, 2, false}, // steps at 101.5 .. 103.5
		{"shifted clock", -100, 1.2, 3.6, 2, 16, 4, 2, false},
		{"too short", 0, 101.2, 103.6, 5, 0, 0, 0, true},
		{"empty", 0, 200, 300, 1, 0, 0, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := measure(steps, tc.offset, tc.from, tc.to, tc.minSteps)
			if tc.shortFail {
				if !errors.Is(err, errShortWindow) {
					t.Fatalf("error %v, want ErrShortWindow", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(m.Throughput-tc.tput) > 1e-9 || m.Steps != tc.steps || math.Abs(m.WindowS-tc.windowS) > 1e-9 {
				t.Errorf("got %+v, want throughput %v steps %d window %v", m, tc.tput, tc.steps, tc.windowS)
			}
			if math.Abs(m.StepTime-0.5) > 1e-9 {
				t.Errorf("step time %v, want 0.5", m.StepTime)
			}
		})
	}
}

func TestOffsetTakesLeastDelayedLine(t *testing.T) {
	s := &lineStream{Steps: stream(1000, 0, 1, repeat(0.1, 5)...)}
	lags := []float64{-990.3, -990.1, -990.4, -990.2, -990.25} // Recv - Time
	for i := range s.Steps {
		s.Steps[i].Recv = s.Steps[i].Time + lags[i]
	}
	if got := s.Offset(); math.Abs(got-(-990.4)) > 1e-9 {
		t.Errorf("Offset = %v, want -990.4", got)
	}
}

func TestPairWindowOverlap(t *testing.T) {
	o := WindowOptions{Span: 3, Tolerance: 0.1, MinSteps: 3}
	// A: clock origin 5000, started at run time 0, warm-up 2 slow steps,
	// steady 0.2 s steps until run time ~8.4.
	a := &lineStream{Steps: stream(5000, -5000, 10, cat(repeat(1, 2), repeat(0.2, 32))...)}
	// B: another clock origin, starts 3 s into the run, 0.5 s steps for
	// 10 s, with lines read 0.1 s late.
	b := &lineStream{Steps: stream(-20, 23.1, 4, repeat(0.5, 20)...)}
	sa, ok1 := steadySpan(a, o)
	sb, ok2 := steadySpan(b, o)
	if !ok1 || !ok2 || !sa.Settled || !sb.Settled {
		t.Fatalf("spans %+v %+v", sa, sb)
	}
	from, to, ok := overlap(sa, sb)
	if !ok {
		t.Fatal("no overlap")
	}
	// A's steady span: from index 6 (run time 2 + 5 × 0.2 = 3) to 8.4.
	// B's: from index 6, at -20 + 3.5 = -16.5 on its clock, which the
	// offset 23.1 maps to run time 6.6, to -10 + 23.1 = 13.1.
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	if !near(sa.From, 3) || !near(sa.To, 8.4) {
		t.Errorf("A span %+v, want 3..8.4", sa)
	}
	if !near(sb.From, 6.6) || !near(sb.To, 13.1) {
		t.Errorf("B span %+v, want 6.6..13.1", sb)
	}
	if !near(from, 6.6) || !near(to, 8.4) {
		t.Errorf("overlap %v..%v, want 6.6..8.4", from, to)
	}
	ma, err := measure(a.Steps, a.Offset(), from, to, o.MinSteps)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ma.Throughput-50) > 1e-6 { // 10 samples / 0.2 s
		t.Errorf("A throughput in the overlap %v, want 50", ma.Throughput)
	}
	if _, _, ok := overlap(span{0, 1, true}, span{2, 3, true}); ok {
		t.Error("disjoint spans overlap")
	}
}
