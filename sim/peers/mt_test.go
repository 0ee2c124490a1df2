package peers

import (
	"slices"
	"testing"
)

// TestMTMatchesCPython checks draws CPython 3.11 printed for
//
//	r = random.Random(); r.seed(seed)
//	[r.randrange(n) for n in [1, 2, 3, 2, 3, 1, 5, 17, 3, 2]], r.getrandbits(32)
func TestMTMatchesCPython(t *testing.T) {
	ns := []int{1, 2, 3, 2, 3, 1, 5, 17, 3, 2}
	for _, c := range []struct {
		seed  uint64
		draws []int
		bits  uint32
	}{
		{0, []int{0, 1, 0, 1, 2, 0, 3, 9, 1, 1}, 2505606783},
		{1, []int{0, 0, 1, 0, 1, 0, 3, 12, 0, 0}, 2095328386},
		{2, []int{0, 0, 0, 1, 0, 0, 2, 6, 2, 0}, 2496252240},
		{12345, []int{0, 0, 1, 1, 0, 0, 4, 13, 0, 1}, 533722196},
		{1<<40 + 7, []int{0, 1, 2, 0, 2, 0, 4, 11, 1, 1}, 1930265598},
	} {
		m := newMT(c.seed)
		var got []int
		for _, n := range ns {
			got = append(got, m.randrange(n))
		}
		if !slices.Equal(got, c.draws) {
			t.Errorf("seed %d: draws %v, CPython %v", c.seed, got, c.draws)
		}
		if b := m.uint32(); b != c.bits {
			t.Errorf("seed %d: next 32 bits %d, CPython %d", c.seed, b, c.bits)
		}
	}
}
