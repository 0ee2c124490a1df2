package packsort

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDescendingOrder(t *testing.T) {
	vals := []float64{math.Inf(1), 1e300, 3, 1, math.SmallestNonzeroFloat64, 0, math.Copysign(0, -1),
		-math.SmallestNonzeroFloat64, -1, -3, -1e300, math.Inf(-1), math.NaN()}
	for i, x := range vals {
		for j, y := range vals {
			want := cmp.Compare(y, x) // highest first, NaN last
			got := cmp.Compare(Descending(x), Descending(y))
			if got != want {
				t.Errorf("Descending(%v) vs Descending(%v): %d, want %d (places %d, %d)", x, y, got, want, i, j)
			}
		}
	}
}

// TestSortAgreesWithSortFunc sorts values with many ties, values that
// differ only in the bits the place takes, and NaN, and checks the order
// against a sort with the comparison function alone.
func TestSortAgreesWithSortFunc(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 7, 100, 3000} {
		vals := make([]float64, n)
		ties := make([]int, n) // a second key that breaks the value's ties
		for i := range vals {
			switch r.IntN(4) {
			case 0:
				vals[i] = float64(r.IntN(5)) // exact ties
			case 1:
				vals[i] = math.Nextafter(1, 2) + float64(r.IntN(3))*math.Nextafter(0, 1) // differ in the low bits
			case 2:
				vals[i] = r.NormFloat64()
			default:
				vals[i] = math.NaN()
			}
			ties[i] = r.IntN(n)
		}
		order := func(x, y int) int {
			if c := cmp.Compare(vals[y], vals[x]); c != 0 {
				return c
			}
			if c := cmp.Compare(ties[x], ties[y]); c != 0 {
				return c
			}
			return cmp.Compare(x, y)
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		slices.SortFunc(want, order)
		mask := Mask(n)
		keys := make([]uint64, n)
		for i, v := range vals {
			keys[i] = Key(v, i, mask)
		}
		Sort(keys, mask, order)
		got := make([]int, n)
		for i, k := range keys {
			got[i] = int(k & mask)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d: packed order %v, the comparison's %v", n, got[:min(n, 20)], want[:min(n, 20)])
		}
	}
}
