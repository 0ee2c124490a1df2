package profile

import (
	"math"
	"testing"
)

func TestMeanCI(t *testing.T) {
	tests := []struct {
		name            string
		xs              []float64
		mean, low, high float64
	}{
		// mean 20, s = 10, t(0.975, 2) = 4.302653: half-width 24.84 → low clamped.
		{"three", []float64{10, 20, 30}, 20, 0, 20 + 4.302653*10/math.Sqrt(3)},
		// mean 100, s = 2, t(0.975, 3) = 3.182446.
		{"four", []float64{98, 102, 98, 102}, 100, 100 - 3.182446*2.309401/2, 100 + 3.182446*2.309401/2},
		{"one", []float64{5}, 5, math.NaN(), math.NaN()},
	}
	for _, tc := range tests {
		e := MeanCI(tc.xs)
		if e.N != len(tc.xs) || !approx(e.Mean, tc.mean) || !approx(e.Low, tc.low) || !approx(e.High, tc.high) {
			t.Errorf("%s: MeanCI = %+v, want mean %v [%v, %v]", tc.name, e, tc.mean, tc.low, tc.high)
		}
	}
	if e := MeanCI(nil); !math.IsNaN(e.Mean) {
		t.Errorf("MeanCI(nil) = %+v", e)
	}
}

func TestRatio(t *testing.T) {
	num := meanCI{Mean: 50, Low: 47, High: 53, N: 3}   // ±6%
	den := meanCI{Mean: 100, Low: 92, High: 108, N: 3} // ±8%
	r := ratio(num, den)
	// ±10% of 0.5 (6% and 8% in quadrature).
	if !approx(r.Mean, 0.5) || !approx(r.Low, 0.45) || !approx(r.High, 0.55) {
		t.Errorf("Ratio = %+v, want 0.5 [0.45, 0.55]", r)
	}
	r = ratio(num, meanCI{Mean: 100, Low: math.NaN(), High: math.NaN(), N: 1})
	if !approx(r.Mean, 0.5) || !math.IsNaN(r.Low) || !math.IsNaN(r.High) {
		t.Errorf("Ratio with an unknown CI = %+v, want 0.5 and no interval", r)
	}
}

// approx compares to 6 significant digits; two NaNs are equal.
func approx(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b))
}
