package decide

import (
	"reflect"
	"testing"
)

// A job near its end is not moved to a faster GPU when the restart would
// cost it more than the speed saves; far from its end it is. With one
// keep factor for every job (1 + 30/360) both moved.
func TestKeepNearTheEnd(t *testing.T) {
	r := rates{solo: map[string]map[string]float64{"a": {"slow": 1, "fast": 1.5}}}
	g := []GPU{{Node: 0, Type: "slow"}, {Node: 1, Type: "fast"}}
	decide := func(c *Core, done, work float64) map[int][]int {
		return c.Decide(&State{Now: done, GPUs: g, Jobs: []Job{
			{ID: 1, Workload: "a", Degrees: []int{1}, GPUs: []int{0}, Done: done, Work: work},
		}})
	}
	stay, move := map[int][]int{1: {0}}, map[int][]int{1: {1}}
	o := Options{RestartPenalty: 30, Round: 360, MaxPerGPU: 1, Durations: Known}
	// 40 s left: 40 s where it is, 30 + 40/1.5 = 57 s moved.
	if got := decide(mustNew(t, r, o), 960, 1000); !reflect.DeepEqual(got, stay) {
		t.Errorf("known, 40 s left: decision %v, want %v", got, stay)
	}
	// 1,000 s left: 1,000 s where it is, 697 s moved.
	if got := decide(mustNew(t, r, o), 1000, 2000); !reflect.DeepEqual(got, move) {
		t.Errorf("known, 1,000 s left: decision %v, want %v", got, move)
	}
	// Sizes unknown: every completed job of its workload ran 600
	// iterations, and the fast type is 1.1 times the slow one: its
	// expected remaining size is what the sizes leave beyond its
	// service. Half-way (300 s left where it is, 30 + 273 s moved) it
	// stays, although 1.1 is above 1 + 30/360; from the start (600 s
	// against 575 s) it moves. The distribution's bins are 9% wide,
	// which is why the sizes here are short next to the round.
	r = rates{solo: map[string]map[string]float64{"a": {"slow": 1, "fast": 1.1}}}
	for _, c := range []struct {
		done float64
		want map[int][]int
	}{{450, stay}, {0, move}} {
		core := mustNew(t, r, Options{RestartPenalty: 30, Round: 360, MaxPerGPU: 1})
		learn(core, g, "a", []float64{600, 600, 600, 600, 600, 600, 600, 600})
		if got := decide(core, c.done, 0); !reflect.DeepEqual(got, c.want) {
			t.Errorf("attained, %v of 600 iterations done: decision %v, want %v", c.done, got, c.want)
		}
	}
}
