package peers

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortEntriesIsGavelsOrder checks the packed sort of a round's
// entries against a plain sort by compareEntries on lists where the
// first key differs, where every priority is 0 (the pick's second list:
// packed by deficit), and where priority and deficit are the same for
// all (packed by allocation), with ties left to the later keys.
func TestSortEntriesIsGavelsOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const T = 2
	draw := func(n, levels int) float64 { return float64(r.IntN(levels)) / float64(n) }
	var m Mechanism
	for c, shape := range []struct{ prio, deficit int }{{5, 5}, {1, 4}, {1, 1}, {3, 1}} {
		for _, n := range []int{1, 2, 50, 700} {
			list := make([]*ent, n)
			for i := range list {
				x := &ent{prio: make([]float64, T), deficit: make([]float64, T), order: [2]int{r.IntN(n), i}}
				for k := range T {
					x.prio[k] = draw(n, shape.prio)
					x.deficit[k] = draw(n, shape.deficit) - 0.5
				}
				if r.IntN(4) > 0 {
					x.alloc = []float64{draw(n, 3), draw(n, 3)}
				}
				list[i] = x
			}
			for k := range T {
				want := slices.Clone(list)
				slices.SortFunc(want, func(x, y *ent) int { return compareEntries(x, y, k) })
				got := slices.Clone(list)
				m.sortEntries(got, k)
				if !slices.Equal(got, want) {
					t.Fatalf("case %d, %d entries, type %d: the packed sort's order differs from compareEntries'", c, n, k)
				}
			}
		}
	}
}
