package decide

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCandOrder checks that candOrder yields candidates as a sort by
// compareCands orders them, on values that tie exactly, agree in their
// top bits only, differ in sign, and include NaN and both zeros.
func TestCandOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	jobs := make([]info, 40)
	for i := range jobs {
		jobs[i] = info{j: &Job{ID: i, Arrival: float64(r.IntN(5))}}
	}
	base := []float64{1, 1 + 1e-13, 1 + 2e-13, 0.5, math.Copysign(0, -1), 0, -3, math.NaN(), math.Inf(1), 2.5e-7}
	for trial := 0; trial < 50; trial++ {
		var cands []cand
		for i := 0; i < 300; i++ {
			a := &jobs[r.IntN(len(jobs))]
			x := cand{a: a, o: option{tid: int32(r.IntN(2)), d: 1 << r.IntN(3)}, v: base[r.IntN(len(base))]}
			if r.IntN(3) == 0 {
				x.b = &jobs[r.IntN(len(jobs))]
			}
			cands = append(cands, x)
		}
		var o candOrder
		o.reset(cands, nil)
		var got []uint64
		for {
			i, ok := o.next()
			if !ok {
				break
			}
			got = append(got, uint64(i))
		}
		if len(got) != len(cands) {
			t.Fatalf("trial %d: %d candidates yielded of %d", trial, len(got), len(cands))
		}
		want := make([]uint64, len(cands))
		for i := range want {
			want[i] = uint64(i)
		}
		slices.SortStableFunc(want, func(x, y uint64) int { return compareCands(cands[x], cands[y]) })
		for i := range got {
			if c := compareCands(cands[got[i]], cands[want[i]]); c != 0 {
				t.Fatalf("trial %d: place %d holds candidate %d (value %v), a sort by compareCands puts %d (value %v) there", trial, i, got[i], cands[got[i]].v, want[i], cands[want[i]].v)
			}
		}
	}
}

// TestCandOrderLive checks that candOrder, told which candidates are no
// longer live, yields the live ones as a sort by compareCands does: jobs
// die as candidates are taken, and a dead job's candidates never come
// back.
func TestCandOrderLive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	jobs := make([]info, 60)
	for i := range jobs {
		jobs[i] = info{j: &Job{ID: i, Arrival: float64(r.IntN(5))}}
	}
	base := []float64{1, 1 + 1e-13, 0.5, 0, 2, 3, 0.25, 7}
	for trial := 0; trial < 50; trial++ {
		var cands []cand
		for i := 0; i < 400; i++ {
			x := cand{a: &jobs[r.IntN(len(jobs))], b: &jobs[r.IntN(len(jobs))], o: option{tid: int32(r.IntN(2)), d: 1 << r.IntN(3)}, v: base[r.IntN(len(base))]}
			cands = append(cands, x)
		}
		// walk takes candidates in the order next gives, skipping those of
		// dead jobs; after each one taken, seeded draws kill a job.
		walk := func(next func() (int, bool), dead []bool) []int {
			kill := rand.New(rand.NewPCG(uint64(trial), 7))
			var got []int
			for {
				i, ok := next()
				if !ok {
					return got
				}
				if dead[cands[i].a.j.ID] || dead[cands[i].b.j.ID] {
					continue
				}
				got = append(got, i)
				dead[kill.IntN(len(jobs))] = true
			}
		}
		var o candOrder
		dead := make([]bool, len(jobs))
		o.reset(cands, func(x *cand) bool { return !dead[x.a.j.ID] && !dead[x.b.j.ID] })
		got := walk(o.next, dead)
		sorted := make([]int, len(cands))
		for i := range sorted {
			sorted[i] = i
		}
		slices.SortStableFunc(sorted, func(x, y int) int { return compareCands(cands[x], cands[y]) })
		k := 0
		want := walk(func() (int, bool) {
			if k == len(sorted) {
				return 0, false
			}
			k++
			return sorted[k-1], true
		}, make([]bool, len(jobs)))
		if len(got) != len(want) {
			t.Fatalf("trial %d: took %d candidates, a sort by compareCands takes %d", trial, len(got), len(want))
		}
		for i := range got {
			if compareCands(cands[got[i]], cands[want[i]]) != 0 {
				t.Fatalf("trial %d: took %v, a sort by compareCands takes %v", trial, got, want)
			}
		}
		if len(got) < 2 {
			t.Fatalf("trial %d: only %d candidates taken: the test kills too fast to check anything", trial, len(got))
		}
	}
}

// TestSortWait checks sortWait against a sort by compareWait on indices
// that tie, agree in their top bits only, or are NaN, with arrivals that
// tie too.
func TestSortWait(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	base := []float64{2, 2 + 1e-13, 2 + 3e-13, 0.25, math.Copysign(0, -1), 0, math.NaN(), 7e-9}
	for trial := 0; trial < 50; trial++ {
		keys := make([]waitKey, 200)
		for i := range keys {
			keys[i] = waitKey{index: base[r.IntN(len(base))], arrival: float64(r.IntN(4)), i: int32(i)}
		}
		got := sortWait(nil, keys)
		want := slices.Clone(keys)
		slices.SortFunc(want, compareWait)
		for i := range got {
			if keys[got[i]] != want[i] && !(math.IsNaN(want[i].index) && math.IsNaN(keys[got[i]].index) && want[i].i == keys[got[i]].i) {
				t.Fatalf("trial %d: place %d holds %+v, a sort by compareWait puts %+v there", trial, i, keys[got[i]], want[i])
			}
		}
	}
}

// TestCandidates checks that candidates keeps the running jobs and the
// critical one in the order given, then the waiting jobs (in the order
// given when they are 2N+16 at most, else the first 2N+16 of a sort of
// them by compareWait), on queues shorter and longer than that, with
// indices and arrivals that tie and NaN.
func TestCandidates(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	base := []float64{2, 2 + 1e-13, 0.25, 0, math.NaN(), 7e-9, 1e-300}
	c := &Core{}
	for trial := 0; trial < 60; trial++ {
		gpus := 1 + r.IntN(20)
		n := r.IntN(6*gpus + 40)
		jobs := make([]Job, n)
		all := make([]ranked, n)
		top := -1
		if n > 0 && r.IntN(2) == 0 {
			top = r.IntN(n)
		}
		for i := range all {
			jobs[i] = Job{ID: i, Arrival: float64(r.IntN(5))}
			if r.IntN(4) == 0 {
				jobs[i].GPUs = []int{0}
			}
			all[i] = ranked{j: &jobs[i], index: base[r.IntN(len(base))]}
		}
		var want, wait []int
		var keys []waitKey
		for i := range all {
			if len(jobs[i].GPUs) > 0 || i == top {
				want = append(want, i)
			} else {
				keys = append(keys, waitKey{all[i].index, jobs[i].Arrival, int32(len(wait))})
				wait = append(wait, i)
			}
		}
		if len(wait) <= 2*gpus+16 {
			want = append(want, wait...) // all of them, in the order given
		} else {
			slices.SortFunc(keys, compareWait)
			for _, k := range keys[:2*gpus+16] {
				want = append(want, wait[k.i])
			}
		}
		if got := c.candidates(all, top, gpus); !slices.Equal(got, want) {
			t.Fatalf("trial %d (%d jobs, %d GPUs): candidates %v, want %v", trial, n, gpus, got, want)
		}
	}
}

// topByIndex gives the first n of a stable sort by index, highest first
// (NaN last), of the infos its filter keeps: what join and pairs took
// from a sort of every waiting job.
func TestTopByIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	base := []float64{2, 2 + 1e-13, 0.25, 0, math.NaN(), 7e-9, 1e-300}
	c := &Core{}
	for trial := 0; trial < 80; trial++ {
		infos := make([]*info, r.IntN(200))
		for i := range infos {
			infos[i] = &info{index: base[r.IntN(len(base))], critical: r.IntN(5) == 0}
		}
		keep := func(in *info) bool { return !in.critical }
		n := 1 + r.IntN(80)
		var want []*info
		for _, in := range infos {
			if keep(in) {
				want = append(want, in)
			}
		}
		slices.SortStableFunc(want, func(a, b *info) int { return cmp.Compare(b.index, a.index) })
		want = want[:min(n, len(want))]
		if got := c.topByIndex(infos, keep, n); !slices.Equal(got, want) {
			t.Fatalf("trial %d (%d infos, n %d): got %d infos, want %d, or another order", trial, len(infos), n, len(got), len(want))
		}
	}
}

// countingRates answers every pair with a value of its own and counts
// the questions.
type countingRates struct{ asked map[string]int }

func (r countingRates) Solo(w, t string, gpus int, spread bool) (float64, bool) {
	return float64(gpus), true
}

func (r countingRates) Pair(w, q, t string, gpus int) (float64, bool) {
	k := fmt.Sprint(w, "|", q, "|", t, "|", gpus)
	r.asked[k]++
	return float64(len(k)%7) / 10, gpus != 3
}

// TestPairMemo checks that the pair memo answers what the rates say for
// every pair of 60 workloads, two types and degrees up to 16 (its key
// packs them all), and asks each of them once.
func TestPairMemo(t *testing.T) {
	r := countingRates{asked: map[string]int{}}
	c := mustNew(t, r, Options{MaxPerGPU: 2})
	c.topo = newTopology([]GPU{{0, "a"}, {0, "b"}})
	infos := make([]info, 60)
	for i := range infos {
		w := fmt.Sprint("w", i)
		infos[i] = info{j: &Job{ID: i, Workload: w}, wid: c.widOf(w)}
	}
	for pass := 0; pass < 2; pass++ {
		for i := range infos {
			for j := range infos {
				for tid, typ := range c.topo.types {
					for _, d := range []int{1, 3, 8, 9, 16} {
						o := &option{tid: int32(tid), d: d}
						n, ok := c.pair(&infos[i], &infos[j], o)
						wn, wok := r.Pair(infos[i].j.Workload, infos[j].j.Workload, typ, d)
						if n != wn || ok != wok {
							t.Fatalf("pair %s, %s on %s x%d: %v %v, want %v %v", infos[i].j.Workload, infos[j].j.Workload, typ, d, n, ok, wn, wok)
						}
					}
				}
			}
		}
	}
	for k, n := range r.asked {
		// Each key was asked once by the memo, twice by the test.
		if n != 3 {
			t.Fatalf("pair %s asked %d times of the rates, want once (and twice by the test)", k, n-2)
		}
	}
}

// TestFits checks that fits reports an option that fits exactly while
// one is counted with a degree within the GPUs left of its type.
func TestFits(t *testing.T) {
	types := []string{"a", "b"} // left[0] is a's, left[1] b's
	a := []option{{tid: 0, d: 4}, {tid: 1, d: 2}}
	b := []option{{tid: 0, d: 1}}
	var f fits
	f.reset(len(types))
	f.add(a, 1)
	f.add(b, 1)
	for _, c := range []struct {
		left []int
		want bool
	}{
		{[]int{0, 0}, false},
		{[]int{1, 0}, true}, // b's degree 1
		{[]int{0, 2}, true},
		{[]int{0, 1}, false},
	} {
		if got := f.any(c.left); got != c.want {
			t.Errorf("left %v, both waiting: %v, want %v", c.left, got, c.want)
		}
	}
	f.add(b, -1) // b got GPUs: only a's options count
	if f.any([]int{3, 1}) {
		t.Error("a needs 4 of a or 2 of b; 3 and 1 left: nothing fits, fits says something does")
	}
	if !f.any([]int{4, 0}) {
		t.Error("4 of a left: a's option fits, fits says none does")
	}
}

// TestJobOrder checks that jobOrder, passed over option by option, yields
// every option of every job not yet picked as a sort of the candidates
// alone by compareCands orders them: values that tie (within a job and
// across jobs), NaN and both zeros, running jobs whose current option
// counts keep times, picked jobs left out, options that do not fit the
// GPUs left passed over, and jobs whose class's order of their options
// (where reset starts) is right, wrong or missing.
func TestJobOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	base := []float64{1, 1, 2, 0.5, math.Copysign(0, -1), 0, math.NaN(), 1 + 1e-13}
	types := []string{"k80", "p100", "v100"}
	for trial := 0; trial < 50; trial++ {
		jobs := make([]info, 30)
		var infos []*info
		var want []cand
		for i := range jobs {
			in := &jobs[i]
			*in = info{j: &Job{ID: i, Arrival: float64(r.IntN(4))}, partner: -1}
			for tid := range types {
				for _, d := range []int{1, 2} {
					if r.IntN(4) > 0 {
						in.opts = append(in.opts, option{tid: int32(tid), d: d, spread: r.IntN(3) == 0, value: base[r.IntN(len(base))]})
					}
				}
			}
			if len(in.opts) > 0 && r.IntN(3) == 0 {
				in.curOpt = in.opts[r.IntN(len(in.opts))]
				in.cur = &in.curOpt
				// Each running job its own factor (keepOf): 1.25 or
				// more for a job near its end.
				in.keep = 1.25 + float64(r.IntN(3))
				if r.IntN(4) == 0 {
					in.partner = 99 // sharing: no keep on its own
				}
			}
			if r.IntN(6) == 0 {
				in.pick = &pick{}
			}
			// Its class's order of its options, which reset starts from
			// and checks: any arrangement (the right one, or not) must
			// end in the same order.
			if x := r.IntN(3); x > 0 {
				in.ref.solo = &soloOpts{opts: in.opts, order: r.Perm(len(in.opts))}
				if x == 2 {
					in.ref.solo.rank(1)
				}
			}
			infos = append(infos, in)
			if in.pick != nil {
				continue
			}
			for _, o := range in.opts {
				v := o.value
				if in.cur != nil && in.partner < 0 && sameOpt(&o, in.cur) {
					v *= in.keep
				}
				want = append(want, cand{a: in, o: o, v: v})
			}
		}
		slices.SortStableFunc(want, compareCands)
		// A quarter of the trials pass with few GPUs left of each type:
		// a job's options after its first that do not fit them are
		// passed over with the one before (the first is yielded all the
		// same). The others leave room for every option.
		left := []int{2, 2, 2}
		if trial%4 >= 2 {
			left = []int{r.IntN(3), r.IntN(3), r.IntN(3)}
			seen := map[*info]bool{}
			kept := want[:0]
			for _, x := range want {
				if !seen[x.a] || left[x.o.tid] >= x.o.d {
					kept = append(kept, x)
				}
				seen[x.a] = true
			}
			want = kept
		}
		var o jobOrder
		o.reset(infos)
		// Half the trials pass over every option; the others also drop
		// the top job, or pick another job, as the greedy does, and the
		// options of a job dropped or picked leave the sorted list.
		mixed := trial%2 == 1
		gone := map[*info]bool{}
		for i := 0; ; i++ {
			for len(want) > 0 && gone[want[0].a] {
				want = want[1:]
			}
			a, opt, v, ok := o.top()
			if !ok {
				if len(want) != 0 {
					t.Fatalf("trial %d: %d options yielded, %d left", trial, i, len(want))
				}
				break
			}
			if len(want) == 0 {
				t.Fatalf("trial %d: more options yielded than the jobs not picked have", trial)
			}
			if got := (cand{a: a, o: *opt, v: v}); compareCands(got, want[0]) != 0 {
				t.Fatalf("trial %d: place %d holds job %d's type %d x%d (value %v), a sort by compareCands puts job %d's type %d x%d (value %v) there", trial, i, a.j.ID, opt.tid, opt.d, v, want[0].a.j.ID, want[0].o.tid, want[0].o.d, want[0].v)
			}
			switch x := r.IntN(6); {
			case mixed && x == 0:
				o.drop()
				gone[a] = true
			case mixed && x == 1:
				other := infos[r.IntN(len(infos))]
				if other.pick == nil {
					other.pick = &pick{} // picked elsewhere (a pair)
					gone[other] = true
				}
				continue // the top stays, unless it was the one picked
			default:
				o.pass(left)
				want = want[1:]
			}
		}
	}
}

// posOf maps the k-th job rank kept back to its place in the state's
// jobs, whichever places rank left out.
func TestPosOf(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	c := &Core{}
	for trial := 0; trial < 200; trial++ {
		n := r.IntN(40)
		c.skipped = c.skipped[:0]
		var kept []int
		for i := 0; i < n; i++ {
			if r.IntN(3) == 0 {
				c.skipped = append(c.skipped, i)
			} else {
				kept = append(kept, i)
			}
		}
		for k, want := range kept {
			if got := c.posOf(k); got != want {
				t.Fatalf("trial %d: left out %v: posOf(%d) = %d, want %d", trial, c.skipped, k, got, want)
			}
		}
	}
}
