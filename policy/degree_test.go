package policy

import "testing"

func TestChooseDegree(t *testing.T) {
	// Throughput per GPU: 100, 90, 70, 40 -> efficiency 1, 0.9, 0.7, 0.4.
	curve := []ScalingPoint{{Degree: 8, Throughput: 320}, {Degree: 1, Throughput: 100}, {Degree: 4, Throughput: 280}, {Degree: 2, Throughput: 180}}
	cases := []struct {
		eff  float64
		max  int
		want int
	}{
		{0.7, 0, 4},  // 8 has more throughput but efficiency 0.4
		{0.3, 0, 8},  // everything qualifies: the fastest
		{0.95, 0, 1}, // only degree 1 keeps the efficiency
		{0.7, 2, 2},  // capped by the free GPUs
		{0.7, 3, 2},  // no degree 3 point
	}
	for _, c := range cases {
		got, ok := ChooseDegree(curve, c.eff, c.max)
		if !ok || got.Degree != c.want {
			t.Errorf("ChooseDegree(eff %v, max %d) = %d, %v; want %d", c.eff, c.max, got.Degree, ok, c.want)
		}
	}
	pts := ScalingPoints(curve)
	if pts[0].Degree != 1 || pts[3].Efficiency != 0.4 || curve[0].Efficiency != 0 {
		t.Errorf("ScalingPoints sorted and filled a copy: %+v (input %+v)", pts, curve)
	}
	// Superlinear scaling (Gavel has some): efficiency above 1 qualifies.
	got, _ := ChooseDegree([]ScalingPoint{{Degree: 1, Throughput: 32}, {Degree: 2, Throughput: 100}}, 0.7, 0)
	if got.Degree != 2 || got.Efficiency <= 1 {
		t.Errorf("superlinear curve: got %+v", got)
	}
	// The smallest measured degree is the base when degree 1 is missing.
	got, _ = ChooseDegree([]ScalingPoint{{Degree: 2, Throughput: 100}, {Degree: 4, Throughput: 150}}, 0.8, 0)
	if got.Degree != 2 {
		t.Errorf("base at degree 2: got %+v, want degree 2 (degree 4 has efficiency 0.75)", got)
	}
	if _, ok := ChooseDegree([]ScalingPoint{{Degree: 4, Throughput: 1}}, 0.7, 2); ok {
		t.Error("a choice above maxDegree")
	}
	if _, ok := ChooseDegree([]ScalingPoint{{Degree: 1, Throughput: 0}}, 0.7, 0); ok {
		t.Error("a choice from a zero throughput")
	}
}
