package peers

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// allocString prints an allocation as "job:types" in job order, e.g.
// "0:v100 1: 2:p100" (a job with no share shows no type).
func allocString(st *allocState, a map[entry][]float64) string {
	var out []string
	for _, j := range st.jobs {
		s := fmt.Sprintf("%d:", j.id)
		for k, x := range a[entry{j.id, -1}] {
			if x > 0 {
				s += st.types[k]
			}
		}
		out = append(out, s)
	}
	return fmt.Sprint(out)
}

func fifoState(ids []int, scale map[int]int) *allocState {
	st := &allocState{types: []string{"k80", "p100", "v100"}, counts: []int{2, 1, 1}}
	for _, id := range ids {
		r := []float64{1, 2, 4}
		if id == 2 {
			r[2] = 0 // job 2 cannot run on v100
		}
		sf := 1
		if scale[id] > 0 {
			sf = scale[id]
		}
		st.jobs = append(st.jobs, &gjob{id: id, workload: "w", scale: sf, rate: r})
	}
	return st
}

// TestFIFOAllocAsGavel checks the allocations Gavel's FIFOPolicy (stock
// code, this scenario) printed: 2 k80, 1 p100, 1 v100; jobs 0-4 of one
// GPU and job 5 of two, job 2 unable to run on v100; then job 0 ends and
// job 6 arrives. Nearly every job is given v100, the type last by name
// (the defect fifoAlloc documents); job 2, which cannot run there, gets
// nothing until a completed job's type comes free.
func TestFIFOAllocAsGavel(t *testing.T) {
	for _, c := range []struct {
		seed        uint64
		first, then string
	}{
		{0, "[0:v100 1:v100 2: 3:v100 4:v100 5:v100]", "[1:v100 2:p100 3:v100 4:v100 5:v100 6:k80]"},
		{3, "[0:v100 1:v100 2: 3:v100 4:v100 5:]", "[1:v100 2:p100 3:v100 4:v100 5: 6:]"},
	} {
		f := newFIFOAlloc(c.seed)
		scale := map[int]int{5: 2}
		st := fifoState([]int{0, 1, 2, 3, 4, 5}, scale)
		a, err := f.allocate(st)
		if err != nil {
			t.Fatal(err)
		}
		if got := allocString(st, a); got != c.first {
			t.Errorf("seed %d: first allocation %s, Gavel's %s", c.seed, got, c.first)
		}
		st = fifoState([]int{1, 2, 3, 4, 5, 6}, scale)
		a, err = f.allocate(st)
		if err != nil {
			t.Fatal(err)
		}
		if got := allocString(st, a); got != c.then {
			t.Errorf("seed %d: after job 0 ends, %s, Gavel's %s", c.seed, got, c.then)
		}
	}
}

// TestMaxMinAllocTwoJobs: 1 k80 and 1 v100; job A runs 1 and 4
// iterations/s on them, job B 1 and 2. Each job's proportional rate is
// the mean over the two GPUs (2.5 and 1.5); with both GPUs busy and each
// job at most one GPU at a time, x(A,k80) = x(B,v100) = 1 - x(A,v100), so
// the max-min share is A: 0.4 + 1.2a = B: 4/3 - 2a/3, a = 1/2, both at 1.
func TestMaxMinAllocTwoJobs(t *testing.T) {
	st := &allocState{types: []string{"k80", "v100"}, counts: []int{1, 1}, jobs: []*gjob{
		{id: 0, workload: "a", scale: 1, rate: []float64{1, 4}},
		{id: 1, workload: "b", scale: 1, rate: []float64{1, 2}},
	}}
	a, err := maxMinAlloc{}.allocate(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{0, 1} {
		x := a[entry{id, -1}]
		if math.Abs(x[0]-0.5) > 1e-9 || math.Abs(x[1]-0.5) > 1e-9 {
			t.Errorf("job %d: allocation %v, want [0.5 0.5]", id, x)
		}
	}
}

// TestMaxMinAllocClasses: identical jobs get identical shares, and no
// type is given more GPU time than it has.
func TestMaxMinAllocClasses(t *testing.T) {
	st := &allocState{types: []string{"k80", "v100"}, counts: []int{4, 2}}
	for i := 0; i < 6; i++ {
		w, r := "a", []float64{1, 3}
		if i%2 == 1 {
			w, r = "b", []float64{1, 1.5}
		}
		sf := 1
		if i == 5 {
			sf = 2 // b at two GPUs: its own class
		}
		st.jobs = append(st.jobs, &gjob{id: i, workload: w, scale: sf, rate: r})
	}
	a, err := maxMinAlloc{}.allocate(st)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a[entry{0, -1}], a[entry{2, -1}]) || !slices.Equal(a[entry{1, -1}], a[entry{3, -1}]) {
		t.Errorf("identical jobs differ: %v %v / %v %v", a[entry{0, -1}], a[entry{2, -1}], a[entry{1, -1}], a[entry{3, -1}])
	}
	for k := range st.types {
		used := 0.0
		for _, j := range st.jobs {
			used += a[entry{j.id, -1}][k] * float64(j.scale)
		}
		if used > float64(st.counts[k])+1e-9 {
			t.Errorf("%s: %v GPUs of time given, %d exist", st.types[k], used, st.counts[k])
		}
	}
}

// TestPackedAllocUsesPairs: two jobs on one GPU that run at 0.8 of
// their solo rate together are better off sharing than taking turns
// (0.8 each instead of 0.5): the packed allocation gives the pair time.
func TestPackedAllocUsesPairs(t *testing.T) {
	st := &allocState{types: []string{"v100"}, counts: []int{1}, jobs: []*gjob{
		{id: 0, workload: "a", scale: 1, rate: []float64{2}},
		{id: 1, workload: "b", scale: 1, rate: []float64{1}},
	}, pairRates: func(a, b *gjob, k int) (float64, float64, bool) { return 0.8 * a.rate[k], 0.8 * b.rate[k], true }}
	a, err := packedAlloc{}.allocate(st)
	if err != nil {
		t.Fatal(err)
	}
	if x := a[entry{0, 1}]; x == nil || math.Abs(x[0]-1) > 1e-9 {
		t.Errorf("pair allocation %v, want [1]", x)
	}
	// Without a measured pair, packed is the plain max-min allocation.
	st.pairRates = func(*gjob, *gjob, int) (float64, float64, bool) { return 0, 0, false }
	a, err = packedAlloc{}.allocate(st)
	if err != nil {
		t.Fatal(err)
	}
	if a[entry{0, 1}] != nil || math.Abs(a[entry{0, -1}][0]-0.5) > 1e-9 {
		t.Errorf("no pair: got %v and %v, want no pair and 0.5 each", a[entry{0, 1}], a[entry{0, -1}])
	}
}
