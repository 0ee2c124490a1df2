package policies

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortFreeMatchesSort checks that sortFree, which sorts from the
// order of its last call, gives the bits slices.Sort gives, over calls
// whose free times change a little (a few GPUs free up or are taken) or
// wholly, with repeated values, zeros of both signs and NaNs.
func TestSortFreeMatchesSort(t *testing.T) {
	topo := simTopo(t, "a v100 3 4", "b k80 5 2", "c v100 2 8")
	rng := rand.New(rand.NewPCG(7, 11))
	r := &Rule{}
	freeAt := make([]float64, len(topo.GPUs))
	now := 100.0
	for i := range freeAt {
		freeAt[i] = now + float64(rng.IntN(50))
	}
	for call := range 400 {
		switch {
		case call%50 == 0: // all anew
			for i := range freeAt {
				freeAt[i] = now + rng.Float64()*1000
			}
		case call%37 == 0: // a zero of each sign and a NaN
			freeAt[rng.IntN(len(freeAt))] = 0
			freeAt[rng.IntN(len(freeAt))] = math.Copysign(0, -1)
			freeAt[rng.IntN(len(freeAt))] = math.NaN()
		default: // time passes, some GPUs free up, some are taken
			now += rng.Float64() * 10
			for i := range freeAt {
				if math.IsNaN(freeAt[i]) || freeAt[i] < now {
					freeAt[i] = now
				}
			}
			for range rng.IntN(4) {
				freeAt[rng.IntN(len(freeAt))] = now + float64(rng.IntN(40))
			}
		}
		for ti, typ := range topo.Types() {
			var want []float64
			for _, ni := range topo.NodesOf(typ) {
				for _, g := range topo.Nodes[ni].GPUs {
					want = append(want, freeAt[g])
				}
			}
			slices.Sort(want)
			got := r.sortFree(topo, ti, typ, freeAt, nil)
			if len(got) != len(want) {
				t.Fatalf("call %d, %s: %d times, want %d", call, typ, len(got), len(want))
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
					t.Fatalf("call %d, %s: sorted %v, want %v", call, typ, got, want)
				}
			}
			ord := slices.Sorted(slices.Values(r.freeOrd[ti]))
			var gpus []int
			for _, ni := range topo.NodesOf(typ) {
				gpus = append(gpus, topo.Nodes[ni].GPUs...)
			}
			if !slices.Equal(ord, gpus) {
				t.Fatalf("call %d, %s: kept order %v is not a permutation of the type's GPUs", call, typ, r.freeOrd[ti])
			}
		}
	}
}
