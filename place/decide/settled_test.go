package decide

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSettledAgrees replays streams of jobs on a small cluster of three
// types through two cores, one deciding with settled and one always with
// the greedy over every pair (also those a job alone outbids, which the
// first drops), and requires the same decision at every step: arrivals,
// completions (learned from), round ticks, jobs that cannot run, index-0
// jobs (sizes past all those seen), degrees chosen or given, sharing on
// and off, sizes unknown and known. Each stream must take both ways
// (settled's decisions and the greedy's) and, with sharing on, drop pairs,
// so the test can fail either way.
func TestSettledAgrees(t *testing.T) {
	for _, tc := range []struct {
		perGPU    int
		durations string
		degrees   bool // jobs may choose among degrees
		bursty    bool // bursts of short jobs and a few long ones, quiet between
		busy      int  // arrivals times this: a cluster full for long
		seed      uint64
	}{
		{1, Attained, false, false, 1, 1}, {2, Attained, false, false, 1, 2}, {2, Attained, true, false, 1, 3},
		{1, Known, false, false, 1, 4}, {2, Known, true, false, 1, 5}, {2, Attained, false, false, 1, 6},
		{1, Attained, false, true, 1, 7}, {2, Attained, true, false, 3, 8}, {2, Known, false, false, 3, 9},
	} {
		t.Run(fmt.Sprintf("perGPU=%d/%s/degrees=%v/bursty=%v/busy=%d", tc.perGPU, tc.durations, tc.degrees, tc.bursty, tc.busy), func(t *testing.T) {
			pruned := replayBoth(t, tc.perGPU, tc.durations, tc.degrees, tc.bursty, tc.busy, tc.seed)
			if tc.busy > 1 && pruned == 0 {
				t.Fatalf("no pair dropped: the busy replay does not try the rule")
			}
		})
	}
}

// replayBoth replays one stream through both ways and returns how many
// pairs the first way dropped. Bursty streams leave long jobs running
// without a completion for long: their service passes every size the
// core has seen end, and their index falls to 0.
func replayBoth(t *testing.T, perGPU int, durations string, degrees, bursty bool, busy int, seed uint64) int {
	rng := rand.New(rand.NewPCG(seed, 7))
	r := rates{solo: map[string]map[string]float64{}, pair: map[[2]string]float64{}}
	var ws []string
	for i := range 8 {
		w := fmt.Sprintf("w%d", i)
		ws = append(ws, w)
		r.solo[w] = map[string]float64{"k80": 1, "p100": 1 + 2*rng.Float64(), "v100": 2 + 2*rng.Float64()}
		if i == 7 {
			delete(r.solo[w], "v100") // runs on two types only
		}
	}
	r.solo["none"] = map[string]float64{} // runs nowhere
	for _, a := range ws {
		for _, b := range ws {
			r.pair[[2]string{a, b}] = 0.3 + 0.6*rng.Float64()
		}
	}
	var g []GPU
	for n := range 6 {
		for range 4 {
			g = append(g, GPU{Node: n, Type: []string{"k80", "p100", "v100"}[n/2]})
		}
	}
	opt := Options{Round: 360, RestartPenalty: 30, MaxPerGPU: perGPU, Durations: durations}
	fast, full := mustNew(t, r, opt), mustNew(t, r, opt)
	full.fullOnly, full.allPairs = true, true
	type live struct {
		Job
		size float64 // iterations
	}
	var jobs []*live
	now, next := 0.0, 0
	decisions := 0
	steps := 600
	if bursty {
		steps = 1500
	}
	for step := 0; step < steps; step++ {
		// Arrivals, a burst now and then so that the cluster fills.
		n := (rng.IntN(2) + b2i(step%40 < 5)*rng.IntN(5)) * busy
		if bursty {
			n = b2i(step%100 < 3) * (8 + rng.IntN(8))
			if step%5 == 0 {
				// A job that runs nowhere: the state changes, the
				// sizes learned do not.
				jobs = append(jobs, &live{Job: Job{ID: next, Workload: "none", Arrival: now, Degrees: []int{1}}, size: 1})
				next++
			}
		}
		for ; n > 0; n-- {
			w := ws[rng.IntN(len(ws))]
			if rng.IntN(50) == 0 {
				w = "none"
			}
			d := []int{1, 1, 1, 2, 4}[rng.IntN(5)]
			ds := []int{d}
			if degrees && d > 1 {
				ds = []int{1, d}
			}
			size := 100 * float64(int(1)<<rng.IntN(9)) // heavy-tailed in iterations
			if bursty {
				size = 100 + 100*rng.Float64()
				if rng.IntN(4) == 0 {
					size *= 1000
				}
			}
			j := &live{Job: Job{ID: next, Workload: w, Arrival: now, Degrees: ds}, size: size}
			if durations == Known {
				j.Work = size
			}
			jobs = append(jobs, j)
			next++
		}
		st := &State{Now: now, GPUs: g}
		for _, j := range jobs {
			st.Jobs = append(st.Jobs, j.Job)
		}
		a, b := fast.Decide(st), full.Decide(&State{Now: st.Now, GPUs: g, Jobs: slices.Clone(st.Jobs)})
		decisions++
		if !maps.EqualFunc(a, b, slices.Equal[[]int]) {
			t.Fatalf("step %d (time %g, %d jobs): settled decided\n%v\nthe greedy\n%v", step, now, len(jobs), a, b)
		}
		// Run until the next event: the jobs progress at their solo
		// rate on what they hold (shared: at the pair's rate).
		dt := 60 + 600*rng.Float64()
		kept := jobs[:0]
		for _, j := range jobs {
			j.GPUs = a[j.ID]
			if len(j.GPUs) > 0 {
				rate := r.solo[j.Workload][g[j.GPUs[0]].Type] * float64(len(j.GPUs))
				j.Done = min(j.size, j.Done+rate*dt*0.9)
			}
			if j.Done >= j.size {
				fast.Observe(j.Job, j.size)
				full.Observe(j.Job, j.size)
				continue
			}
			kept = append(kept, j)
		}
		jobs = kept
		now += dt
	}
	if fast.settledN == 0 || fast.settledN == decisions {
		t.Fatalf("settled took %d of %d decisions: the replay does not try both ways", fast.settledN, decisions)
	}
	if bursty && fast.settledZeros == 0 {
		t.Fatalf("no job of index 0 in %d decisions: the bursty replay does not reach them", decisions)
	}
	t.Logf("settled took %d of %d decisions (%d jobs of index 0 weighed); %d pairs dropped", fast.settledN, decisions, fast.settledZeros, fast.prunedN)
	return fast.prunedN
}
