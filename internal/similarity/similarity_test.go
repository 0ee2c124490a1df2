package similarity

import (
	"math"
	"testing"
)

func TestDistance(t *testing.T) {
	nan := math.NaN()
	// Normalized numeric (0, 0) vs (1, 0.5), one categorical mismatch.
	a := Vector{Num: []float64{0, 0}, Cat: []string{"cnn"}}
	b := Vector{Num: []float64{1, 0.5}, Cat: []string{"rnn"}}
	// Only the second numeric attribute and the categorical one in common.
	c := Vector{Num: []float64{nan, 0.5}, Cat: []string{"rnn"}}
	none := Vector{Num: []float64{nan, nan}, Cat: []string{""}}
	tests := []struct {
		name string
		p    float64
		x, y Vector
		want float64
	}{
		{"gower", 0, a, b, (1 + 0.5 + 1) / 3},
		{"manhattan", 0, a, b, 1 + 0.5 + 2},
		{"euclidean", 0, a, b, math.Sqrt(1 + 0.25 + 2)},
		{"minkowski", 3, a, b, math.Cbrt(1 + 0.125 + 2)},
		// x = (0, 0, 1, 0), y = (1, 0.5, 0, 1): orthogonal.
		{"cosine", 0, a, b, 1},
		{"gower", 0, b, c, 0},
		{"euclidean", 0, a, c, math.Sqrt(0.25 + 2)},
		// A match is the pair (1, 1): cosine of (0.5, 1) and (0.5, 1).
		{"cosine", 0, c, c, 0},
		{"gower", 0, a, none, math.Inf(1)},
		{"manhattan", 0, a, none, math.Inf(1)},
		// Gower caps a numeric difference at 1 (values outside the range).
		{"gower", 0, Vector{Num: []float64{-1}}, Vector{Num: []float64{2}}, 1},
		// An unknown name is cosine; an all-zero side is at distance 1.
		{"chebyshev", 0, Vector{Num: []float64{0}}, Vector{Num: []float64{1}}, 1},
	}
	for _, tc := range tests {
		got := Distance(tc.name, tc.p, tc.x, tc.y)
		if math.Abs(got-tc.want) > 1e-12 && !(math.IsInf(got, 1) && math.IsInf(tc.want, 1)) {
			t.Errorf("%s(%v, %v) = %v, want %v", tc.name, tc.x, tc.y, got, tc.want)
		}
	}
	for _, name := range Distances {
		if got := Distance(name, 3, b, b); got > 1e-12 {
			t.Errorf("%s: distance of a vector to itself %v", name, got)
		}
		if err := Valid(name); err != nil {
			t.Errorf("Valid(%q): %v", name, err)
		}
	}
	if Valid("chebyshev") == nil {
		t.Error("an unknown distance is valid")
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ v, lo, hi, want float64 }{
		{5, 0, 10, 0.5},
		{0, 0, 10, 0},
		{12, 0, 10, 1.2}, // outside the references' range: not clipped
		{3, 3, 3, 0},     // one value
		{3, math.Inf(1), math.Inf(-1), 0},
	}
	for _, tc := range tests {
		if got := Normalize(tc.v, tc.lo, tc.hi); got != tc.want {
			t.Errorf("Normalize(%v, %v, %v) = %v, want %v", tc.v, tc.lo, tc.hi, got, tc.want)
		}
	}
	if got := Normalize(math.NaN(), 0, 1); !math.IsNaN(got) {
		t.Errorf("a missing value normalizes to %v, want NaN", got)
	}
}
