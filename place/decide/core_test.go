package decide

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// rates is a table of solo rates by workload and GPU type (any degree,
// spread or not, at degree times the one-GPU rate) and of normalized
// throughputs by workload pair.
type rates struct {
	solo map[string]map[string]float64 // workload -> type -> iterations/s on one GPU
	pair map[[2]string]float64
}

func (r rates) Solo(w, t string, gpus int, spread bool) (float64, bool) {
	v, ok := r.solo[w][t]
	return v * float64(gpus), ok
}

func (r rates) Pair(w, q, t string, gpus int) (float64, bool) {
	v, ok := r.pair[[2]string{w, q}]
	return v, ok
}

func oneType(ws ...string) rates {
	r := rates{solo: map[string]map[string]float64{}, pair: map[[2]string]float64{}}
	for _, w := range ws {
		r.solo[w] = map[string]float64{"g": 1}
	}
	return r
}

func gpus(n int, typ string) []GPU {
	var g []GPU
	for range n {
		g = append(g, GPU{Node: 0, Type: typ})
	}
	return g
}

func mustNew(t *testing.T, r Rates, o Options) *Core {
	t.Helper()
	c, err := New(r, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// learn has the core see jobs of workload w complete with the given
// sizes (iterations at 1 iteration/s: seconds).
func learn(c *Core, g []GPU, w string, sizes []float64) {
	st := &State{GPUs: g}
	for i := range sizes {
		st.Jobs = append(st.Jobs, Job{ID: 1000 + i, Workload: w, Degrees: []int{1}})
	}
	c.Decide(st)
	for i, s := range sizes {
		c.Observe(st.Jobs[i], s)
	}
}

// With durations unknown and sizes heavy-tailed (most jobs short, a few
// very long), a job that has already run long is likely one of the long
// ones: a new arrival takes its GPU (the Gittins index falls with
// attained service), as least-attained-service schedulers do.
func TestAttainedPreemptsALongRunningJob(t *testing.T) {
	g := gpus(1, "g")
	c := mustNew(t, oneType("a"), Options{Round: 360, MaxPerGPU: 1})
	var sizes []float64
	for i := range 20 {
		if i%10 == 0 {
			sizes = append(sizes, 100000)
		} else {
			sizes = append(sizes, 600)
		}
	}
	learn(c, g, "a", sizes)
	out := c.Decide(&State{Now: 5000, GPUs: g, Jobs: []Job{
		{ID: 1, Workload: "a", Degrees: []int{1}, GPUs: []int{0}, Done: 5000},
		{ID: 2, Workload: "a", Arrival: 5000, Degrees: []int{1}},
	}})
	if want := map[int][]int{2: {0}}; !reflect.DeepEqual(out, want) {
		t.Errorf("decision %v, want %v (the new job runs, the long one pauses)", out, want)
	}
	// A job that has run less than the short ones' size keeps its GPU.
	c = mustNew(t, oneType("a"), Options{Round: 360, MaxPerGPU: 1})
	learn(c, g, "a", sizes)
	out = c.Decide(&State{Now: 300, GPUs: g, Jobs: []Job{
		{ID: 1, Workload: "a", Degrees: []int{1}, GPUs: []int{0}, Done: 300},
		{ID: 2, Workload: "a", Arrival: 300, Degrees: []int{1}},
	}})
	if want := map[int][]int{1: {0}}; !reflect.DeepEqual(out, want) {
		t.Errorf("decision %v, want %v (the job near its likely end keeps running)", out, want)
	}
}

// With durations known the shorter remaining job runs first.
func TestKnownShortestFirst(t *testing.T) {
	c := mustNew(t, oneType("a"), Options{MaxPerGPU: 1, Durations: Known})
	out := c.Decide(&State{GPUs: gpus(1, "g"), Jobs: []Job{
		{ID: 1, Workload: "a", Degrees: []int{1}, Work: 10000},
		{ID: 2, Workload: "a", Arrival: 1, Degrees: []int{1}, Work: 100},
	}})
	if want := map[int][]int{2: {0}}; !reflect.DeepEqual(out, want) {
		t.Errorf("decision %v, want %v", out, want)
	}
}

// With users' estimates, the core learns how far off they are: when
// every completed job ran three times its estimate, a job that has run
// 2.9 times its estimate is nearly done and keeps its GPU against a new
// job with half its estimate (which needs 1.5 of the old one's estimate
// more). Ranked on estimates alone the new job would win.
func TestEstimateLearnsTheUsersError(t *testing.T) {
	g := gpus(1, "g")
	c := mustNew(t, oneType("a"), Options{Round: 360, MaxPerGPU: 1, Durations: Estimate})
	st := &State{GPUs: g}
	for i := range 20 {
		st.Jobs = append(st.Jobs, Job{ID: 1000 + i, Workload: "a", Degrees: []int{1}, Work: float64(100 * (i + 1))})
	}
	c.Decide(st)
	for _, j := range st.Jobs {
		c.Observe(j, 3*j.Work)
	}
	out := c.Decide(&State{Now: 5000, GPUs: g, Jobs: []Job{
		{ID: 1, Workload: "a", Degrees: []int{1}, GPUs: []int{0}, Done: 2900, Work: 1000},
		{ID: 2, Workload: "a", Arrival: 5000, Degrees: []int{1}, Work: 500},
	}})
	if want := map[int][]int{1: {0}}; !reflect.DeepEqual(out, want) {
		t.Errorf("decision %v, want %v (the job at 2.9x its estimate, when jobs run 3x theirs, finishes first)", out, want)
	}
}

// Two jobs share a GPU exactly when, at their predicted normalized
// throughputs, together they make more progress than one alone.
func TestSharesWhenItPays(t *testing.T) {
	for _, c := range []struct {
		norm  float64
		share bool
	}{{0.9, true}, {0.3, false}} {
		r := oneType("a", "b")
		r.pair[[2]string{"a", "b"}], r.pair[[2]string{"b", "a"}] = c.norm, c.norm
		core := mustNew(t, r, Options{MaxPerGPU: 2})
		out := core.Decide(&State{GPUs: gpus(1, "g"), Jobs: []Job{
			{ID: 1, Workload: "a", Degrees: []int{1}},
			{ID: 2, Workload: "b", Degrees: []int{1}},
		}})
		if got := len(out) == 2; got != c.share {
			t.Errorf("normalized throughput %v: decision %v, want sharing %v", c.norm, out, c.share)
		}
		// Without sharing allowed, one job runs.
		core = mustNew(t, r, Options{MaxPerGPU: 1})
		if out := core.Decide(&State{GPUs: gpus(1, "g"), Jobs: []Job{
			{ID: 1, Workload: "a", Degrees: []int{1}},
			{ID: 2, Workload: "b", Degrees: []int{1}},
		}}); len(out) != 1 {
			t.Errorf("max one job per GPU: decision %v", out)
		}
	}
}

// A job goes to the GPU type on which it runs fastest when it is free.
func TestFastestType(t *testing.T) {
	r := rates{solo: map[string]map[string]float64{"a": {"slow": 1, "fast": 3}}}
	g := []GPU{{Node: 0, Type: "slow"}, {Node: 1, Type: "fast"}}
	out := mustNew(t, r, Options{MaxPerGPU: 1}).Decide(&State{GPUs: g, Jobs: []Job{{ID: 1, Workload: "a", Degrees: []int{1}}}})
	if want := map[int][]int{1: {1}}; !reflect.DeepEqual(out, want) {
		t.Errorf("decision %v, want %v", out, want)
	}
}

// A job of several GPUs gets them on one node when a node has room.
func TestWideJobOnOneNode(t *testing.T) {
	g := []GPU{{0, "g"}, {1, "g"}, {1, "g"}, {2, "g"}, {2, "g"}, {2, "g"}, {2, "g"}}
	out := mustNew(t, oneType("a"), Options{MaxPerGPU: 1}).Decide(&State{GPUs: g, Jobs: []Job{{ID: 1, Workload: "a", Degrees: []int{4}}}})
	if want := map[int][]int{1: {3, 4, 5, 6}}; !reflect.DeepEqual(out, want) {
		t.Errorf("decision %v, want %v", out, want)
	}
}

// The same history and state give the same decision.
func TestDeterministic(t *testing.T) {
	run := func() map[int][]int {
		r := oneType("a", "b", "c")
		r.pair[[2]string{"a", "b"}], r.pair[[2]string{"b", "a"}] = 0.8, 0.7
		c := mustNew(t, r, Options{Round: 360, RestartPenalty: 30, MaxPerGPU: 2})
		g := gpus(3, "g")
		learn(c, g, "a", []float64{100, 2000, 300, 50000})
		learn(c, g, "b", []float64{700, 900})
		st := &State{Now: 100, GPUs: g}
		for i := range 12 {
			st.Jobs = append(st.Jobs, Job{ID: i, Workload: []string{"a", "b", "c"}[i%3], Arrival: float64(i), Degrees: []int{1}, Done: float64(i * 37)})
		}
		return c.Decide(st)
	}
	a, b := run(), run()
	if !reflect.DeepEqual(a, b) || len(a) == 0 {
		t.Errorf("two runs: %v and %v", a, b)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{MaxPerGPU: 3}, "max jobs per GPU 3"},
		{Options{MaxPerGPU: 1, Durations: "psychic"}, `durations "psychic"`},
		{Options{MaxPerGPU: 1, Round: -1}, "want values >= 0"},
	} {
		if _, err := New(oneType("a"), c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.o, err, c.want)
		}
	}
}

// The makespan guard: the job that needs longest alone, when it needs at
// least the backlog's time on the whole cluster, runs first on its
// fastest option, ahead of shorter jobs; a second long job is not
// critical with it (one job sets the makespan).
func TestMakespanGuard(t *testing.T) {
	r := rates{solo: map[string]map[string]float64{"a": {"fast": 2, "slow": 1}}}
	g := []GPU{{Node: 0, Type: "fast"}, {Node: 1, Type: "slow"}}
	c := mustNew(t, r, Options{MaxPerGPU: 1, Durations: Known})
	out := c.Decide(&State{GPUs: g, Jobs: []Job{
		{ID: 1, Workload: "a", Degrees: []int{1}, Work: 40000},
		{ID: 2, Workload: "a", Arrival: 1, Degrees: []int{1}, Work: 30000},
		{ID: 3, Workload: "a", Arrival: 2, Degrees: []int{1}, Work: 100},
	}})
	if want := map[int][]int{1: {0}, 3: {1}}; !reflect.DeepEqual(out, want) {
		t.Errorf("decision %v, want %v (the longest job on the fast GPU, the shortest on the other)", out, want)
	}
	// Without a job past the bound, shortest first takes the fast GPU.
	out = mustNew(t, r, Options{MaxPerGPU: 1, Durations: Known}).Decide(&State{GPUs: g, Jobs: []Job{
		{ID: 1, Workload: "a", Degrees: []int{1}, Work: 300},
		{ID: 2, Workload: "a", Arrival: 1, Degrees: []int{1}, Work: 250},
		{ID: 3, Workload: "a", Arrival: 2, Degrees: []int{1}, Work: 100},
	}})
	if want := map[int][]int{3: {0}, 2: {1}}; !reflect.DeepEqual(out, want) {
		t.Errorf("decision %v, want %v", out, want)
	}
}

// The guard acts on sizes known only: with users' estimates (or sizes
// learned), a remaining size is an expectation, and the same jobs are
// taken by index, the shortest estimate on the fast GPU.
func TestMakespanGuardNeedsKnownSizes(t *testing.T) {
	r := rates{solo: map[string]map[string]float64{"a": {"fast": 2, "slow": 1}}}
	g := []GPU{{Node: 0, Type: "fast"}, {Node: 1, Type: "slow"}}
	jobs := []Job{
		{ID: 1, Workload: "a", Degrees: []int{1}, Work: 40000},
		{ID: 2, Workload: "a", Arrival: 1, Degrees: []int{1}, Work: 30000},
		{ID: 3, Workload: "a", Arrival: 2, Degrees: []int{1}, Work: 100},
	}
	out := mustNew(t, r, Options{MaxPerGPU: 1, Durations: Estimate}).Decide(&State{GPUs: g, Jobs: jobs})
	if want := map[int][]int{3: {0}, 2: {1}}; !reflect.DeepEqual(out, want) {
		t.Errorf("estimates: decision %v, want %v (shortest estimate first, no job critical)", out, want)
	}
}

// A job running alone on a slow GPU moves to faster GPUs of another type
// that nobody took, although its value per GPU there, kept, is lower,
// unless the move saves less than the restart costs it.
func TestGrowsOntoAnotherType(t *testing.T) {
	r := rates{solo: map[string]map[string]float64{"a": {"fast": 2, "slow": 1.9}}}
	g := []GPU{{Node: 0, Type: "fast"}, {Node: 0, Type: "fast"}, {Node: 1, Type: "slow"}}
	o := Options{MaxPerGPU: 1, Durations: Known, RestartPenalty: 30, Round: 360}
	job := Job{ID: 1, Workload: "a", Degrees: []int{1, 2}, GPUs: []int{2}, Work: 1e6}
	out := mustNew(t, r, o).Decide(&State{GPUs: g, Jobs: []Job{job}})
	if want := map[int][]int{1: {0, 1}}; !reflect.DeepEqual(out, want) {
		t.Errorf("alone on the slow GPU, two fast ones idle: decision %v, want %v", out, want)
	}
	// Near its end (10 iterations left) the move saves less than the
	// restart: it stays.
	job.Done = job.Work - 10
	out = mustNew(t, r, o).Decide(&State{GPUs: g, Jobs: []Job{job}})
	if want := map[int][]int{1: {2}}; !reflect.DeepEqual(out, want) {
		t.Errorf("near its end: decision %v, want %v", out, want)
	}
}

// noSpread are rates that no job may run at spread over nodes.
type noSpread struct{ rates }

func (r noSpread) Solo(w, t string, gpus int, spread bool) (float64, bool) {
	if spread {
		return 0, false
	}
	return r.rates.Solo(w, t, gpus, spread)
}

// A job that may grow onto two fast GPUs by their count, but finds no node
// holding both free (another job holds one of node 0's, and it may not
// run spread), keeps the GPU it runs on rather than wait.
func TestGrowFallsBackWhenNoNodeHolds(t *testing.T) {
	r := noSpread{rates{solo: map[string]map[string]float64{
		"a": {"fast": 2, "slow": 1.9},
		"b": {"fast": 2, "slow": 1},
	}}}
	g := []GPU{{Node: 0, Type: "fast"}, {Node: 0, Type: "fast"}, {Node: 1, Type: "fast"}, {Node: 2, Type: "slow"}}
	o := Options{MaxPerGPU: 1, Durations: Known, RestartPenalty: 30, Round: 360}
	out := mustNew(t, r, o).Decide(&State{GPUs: g, Jobs: []Job{
		{ID: 1, Workload: "a", Degrees: []int{1, 2}, GPUs: []int{3}, Work: 1e6},
		{ID: 2, Workload: "b", Degrees: []int{1}, GPUs: []int{0}, Work: 1e6},
	}})
	if want := map[int][]int{1: {3}, 2: {0}}; !reflect.DeepEqual(out, want) {
		t.Errorf("decision %v, want %v (each where it runs)", out, want)
	}
}

// With GPUs to spare no job shares, however well a pair would do: each
// job runs faster alone. When they are scarce, the pair that does more
// together shares.
func TestSharesOnlyWhenGPUsAreScarce(t *testing.T) {
	ws := []string{"a", "b", "c", "d"}
	r := oneType(ws...)
	for _, x := range ws {
		for _, y := range ws {
			r.pair[[2]string{x, y}] = 0.9
		}
	}
	var jobs []Job
	for i, w := range ws {
		jobs = append(jobs, Job{ID: i, Workload: w, Arrival: float64(i), Degrees: []int{1}})
	}
	distinct := func(out map[int][]int) int {
		used := map[int]bool{}
		for _, g := range out {
			used[g[0]] = true
		}
		return len(used)
	}
	out := mustNew(t, r, Options{MaxPerGPU: 2}).Decide(&State{GPUs: gpus(8, "g"), Jobs: jobs})
	if len(out) != 4 || distinct(out) != 4 {
		t.Errorf("four jobs on eight GPUs: %v, want one GPU each", out)
	}
	out = mustNew(t, r, Options{MaxPerGPU: 2}).Decide(&State{GPUs: gpus(2, "g"), Jobs: jobs})
	if len(out) != 4 || distinct(out) != 2 {
		t.Errorf("four jobs on two GPUs: %v, want all four running, two a GPU", out)
	}
}

// TestPairsOf checks that the options two jobs may share, worked out once
// per pair of classes (workload and degrees), are those found for the two
// jobs themselves (sharedOpts): jobs of one workload at other degrees
// have other options, and a pair of workloads without a rate shares none.
func TestPairsOf(t *testing.T) {
	r := rates{solo: map[string]map[string]float64{
		"a": {"k80": 1, "v100": 3},
		"b": {"k80": 2},
		"c": {"v100": 2},
	}, pair: map[[2]string]float64{
		{"a", "a"}: 0.6, {"a", "b"}: 0.7, {"b", "a"}: 0.8, {"a", "c"}: 0.5, {"b", "b"}: 0.9,
		// c|a is missing: a and c never share.
	}}
	var g []GPU
	for n := range 4 {
		for range 4 {
			g = append(g, GPU{Node: n, Type: []string{"k80", "v100"}[n/2]})
		}
	}
	c := mustNew(t, r, Options{Round: 360, MaxPerGPU: 2})
	st := &State{GPUs: g}
	for i, x := range []struct {
		w       string
		degrees []int
	}{{"a", []int{1}}, {"a", []int{1, 2}}, {"a", []int{1}}, {"b", []int{1, 2, 4}}, {"b", []int{1}}, {"c", []int{1}}, {"a", []int{1, 2}}} {
		st.Jobs = append(st.Jobs, Job{ID: i, Workload: x.w, Degrees: x.degrees})
	}
	c.Decide(st) // sets up the topology
	all, top := c.rank(st)
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	infos := c.infos(all, top, idx)
	shared := 0
	for _, a := range infos {
		for _, b := range infos {
			want := c.sharedOpts(a, b)
			got := c.pairsOf(a, b)
			if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				t.Errorf("jobs %d (%s %v) and %d (%s %v): pairsOf %v, job by job %v", a.j.ID, a.j.Workload, a.j.Degrees, b.j.ID, b.j.Workload, b.j.Degrees, got, want)
			}
			shared += len(want)
		}
	}
	// Jobs 0 and 2 are one class, 1 and 6 another.
	if n := len(c.classes); n != 5 {
		t.Errorf("%d classes, want 5 (a at {1} and {1,2}, b at {1,2,4} and {1}, c)", n)
	}
	if shared == 0 {
		t.Fatal("no pair may share: the test checks nothing")
	}
}

// TestRanksByCurrentRefs checks that the references rank reads beside the
// last decision's are the core's own, over a stream where jobs arrive,
// start, complete and pass their IDs on to new jobs of other workloads.
func TestRanksByCurrentRefs(t *testing.T) {
	r := rates{solo: map[string]map[string]float64{"a": {"g": 1}, "b": {"g": 5}, "c": {"g": 2}}, pair: map[[2]string]float64{}}
	c := mustNew(t, r, Options{Round: 360, MaxPerGPU: 1})
	g := gpus(4, "g")
	rng := rand.New(rand.NewPCG(11, 12))
	var jobs []Job
	next, reused := 0, 0
	for step := 0; step < 300; step++ {
		st := &State{Now: float64(step), GPUs: g, Jobs: jobs}
		out := c.Decide(st)
		for i := range jobs {
			jobs[i].GPUs = out[jobs[i].ID]
		}
		for k, x := range c.rankedBuf {
			want, ok := c.refs[x.j.ID]
			if !ok || want != x.ref || c.rankIDs[k] != x.j.ID {
				t.Fatalf("step %d: job %d ranked with %+v, the core holds %+v (%v)", step, x.j.ID, x.ref, want, ok)
			}
			if w := c.widOf(x.j.Workload); x.ref.wid != w {
				t.Fatalf("step %d: job %d of %s ranked as workload %d, want %d", step, x.j.ID, x.j.Workload, x.ref.wid, w)
			}
		}
		// A running job completes now and then, twenty at once at
		// times; its ID may come back at once as a new job of another
		// workload.
		n := rng.IntN(2)
		if step%50 == 49 {
			n = 20
		}
		for ; n > 0 && len(jobs) > 0; n-- {
			i := rng.IntN(len(jobs))
			c.Observe(jobs[i], 100)
			id := jobs[i].ID
			jobs = append(jobs[:i], jobs[i+1:]...)
			if rng.IntN(2) == 0 {
				jobs = append(jobs, Job{ID: id, Workload: []string{"a", "b", "c"}[rng.IntN(3)], Degrees: []int{1}})
				reused++
			}
		}
		for k := rng.IntN(3); k > 0; k-- {
			jobs = append(jobs, Job{ID: next, Workload: []string{"a", "b", "c"}[rng.IntN(3)], Degrees: []int{1}})
			next++
		}
	}
	if reused == 0 {
		t.Fatal("no ID passed on: the test checks little")
	}
}

// TestSortPlaced checks sortPlaced against a sort, on answers sorted up
// to a short or a long tail, and shuffled.
func TestSortPlaced(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 200; trial++ {
		n := rng.IntN(300)
		var out []Placed
		for i := 0; i < n; i++ {
			out = append(out, Placed{Job: i * 2})
		}
		switch tail := rng.IntN(100); trial % 3 {
		case 0: // a tail of up to 100 jobs drawn anywhere
			for i := 0; i < tail; i++ {
				out = append(out, Placed{Job: 2*rng.IntN(n+1) + 1 + 2*n*rng.IntN(2)})
			}
		case 1:
			rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		}
		want := slices.Clone(out)
		slices.SortStableFunc(want, func(a, b Placed) int { return cmp.Compare(a.Job, b.Job) })
		got := sortPlaced(out)
		for i := range want {
			if got[i].Job != want[i].Job {
				t.Fatalf("trial %d: place %d holds job %d, a sort puts %d there", trial, i, got[i].Job, want[i].Job)
			}
		}
	}
}

// TestNearby checks the lookup beside a last call's list: the next place
// or one of the two after it, nothing further.
func TestNearby(t *testing.T) {
	ids := []int{10, 11, 12, 13, 14}
	for _, c := range []struct{ p, id, want int }{
		{0, 10, 0}, {0, 12, 2}, {0, 13, -1}, {3, 14, 4}, {4, 14, 4}, {5, 14, -1}, {1, 10, -1},
	} {
		if got := nearby(ids, c.p, c.id); got != c.want {
			t.Errorf("nearby(%v, %d, %d) = %d, want %d", ids, c.p, c.id, got, c.want)
		}
	}
	if got := nearby(nil, 0, 10); got != -1 {
		t.Errorf("nearby(nil, 0, 10) = %d, want -1", got)
	}
}
