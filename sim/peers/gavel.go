package peers

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/coloc-dev/coloc/internal/packsort"
	"github.com/coloc-dev/coloc/sim"
)

// entry is what Gavel's mechanism allocates time to and schedules: one job
// alone (b < 0), or two jobs sharing the same GPUs (a < b).
type entry struct{ a, b int }

func (e entry) pair() bool { return e.b >= 0 }

// gjob is a job as the mechanism knows it: its solo rate at its scale on
// each GPU type (0 where it has none).
type gjob struct {
	id       int
	wid      int // the workload's number (Mechanism.wids)
	workload string
	scale    int
	rate     []float64 // by type index
}

// ran is an entry of the round that is ending: where it ran and when it
// would have finished its work at the rates it ran at.
type ran struct {
	e      entry
	k      int
	sf     int // the entry's scale
	gpus   []int
	finish float64
}

// allocState is what an allocation is computed from: the active jobs (by
// ID) and the cluster's GPU counts by type.
type allocState struct {
	types  []string
	counts []int
	jobs   []*gjob
	// pairRates returns the rates of a next to b and b next to a on type
	// k at their common scale; ok false when the pair may not share.
	pairRates func(a, b *gjob, k int) (ra, rb float64, ok bool)
}

// allocator computes an allocation: for each entry, the fraction of
// time it should spend on each GPU type.
type allocator interface {
	allocate(st *allocState) (map[entry][]float64, error)
}

// ent is an entry the mechanism keeps books for.
type ent struct {
	e entry
	// order breaks ties as Gavel's insertion-ordered dictionaries do: a
	// job's entry comes right after those of the jobs added before it,
	// then its pairs with them in their order: (position of the later
	// job, 0 alone or 1 + position of the earlier one).
	order   [2]int
	jt      []float64 // time received on each type since the last reset
	deficit []float64
	prio    []float64
	alloc   []float64 // nil: none
}

// Mechanism is Gavel's round-based mechanism (its simulator's
// Scheduler._schedule_jobs_on_workers and what feeds it), the common
// engine of the gavel-* peers: an allocator says what share of time each
// job (or pair) should get on each GPU type; every round the mechanism
// runs the entries that received least of their share so far. It decides
// at round boundaries only (sim.Round events) and ignores arrivals and
// completions in between, as Gavel's simulator does.
//
// Pairs of jobs (packing) are kept only while they have an allocation or
// are owed time (a positive deficit): Gavel keeps every pair of active
// jobs of one scale, but one with neither has priority 0 and comes after
// its jobs' own entries, which take the GPUs first whenever the pair
// could have them, so it is never run; leaving it out changes no
// decision and makes a round cost the entries that matter.
type Mechanism struct {
	name  string
	alloc allocator
	solo  sim.Rates
	pairs sim.Rates // nil: no sharing
	// Reset is the least time, in seconds, between two recomputations of
	// the allocation (Gavel's minimum_time_between_allocation_resets).
	Reset float64
	fifo  bool // skip entries of priority 0 (Gavel's FIFO)

	started    bool
	types      []string
	counts     []int
	order      []int // type indices, fastest first: the order types pick jobs
	jobs       map[int]*gjob
	active     []int       // job IDs in the order they were added
	pos        map[int]int // job ID -> position in the order added (never reused)
	nextPos    int
	ents       map[entry]*ent
	entList    []*ent // ents' values, walked in their place (dropEntries)
	workerTime []float64
	lastReset  float64
	needUpdate bool
	ran        []ran
	// The start and end of the round as Gavel's simulator counts them
	// (current_round_start_time, current_round_end_time).
	qStart, qEnd float64
	haveEnd      bool
	// pairMemo holds pair rates by both workloads' numbers (wids), the
	// scale and the type: a few thousand keys, where keys by job grew
	// with the trace and their lookups were a tenth of a run.
	pairMemo   map[[4]int][2]float64
	wids       map[string]int
	list       []*ent   // pick's buffer
	keys       []uint64 // sortEntries' buffers
	sorted     []*ent
	scales     []int // byScale's buffers
	byScaleBuf []ran
	// pick's and place's sets, emptied and reused at every round (grown
	// anew each round, they cost a twentieth of a backlogged run).
	taken, keep map[int]bool
	prev        map[entry][]int
}

// Gavel's defaults.
const (
	// GavelReset is Gavel's minimum time between allocation resets.
	GavelReset = 1920
	// priorityScale makes a job with an allocation and no time yet the
	// first to run (Gavel multiplies the allocation by 1e9).
	priorityScale = 1e9
	// gavelHalfRound is the time an entry's count starts at: half of
	// Gavel's 360 s round (it does not follow the round length).
	gavelHalfRound = 180
)

func newMechanism(name string, a allocator, solo, pairs sim.Rates, fifo bool) *Mechanism {
	return &Mechanism{name: name, alloc: a, solo: solo, pairs: pairs, fifo: fifo, Reset: GavelReset}
}

// Name returns the policy's name.
func (m *Mechanism) Name() string { return m.name }

func (m *Mechanism) start(v *sim.View) {
	m.started = true
	m.types = v.Topology.Types()
	m.counts = make([]int, len(m.types))
	for k, t := range m.types {
		m.counts[k] = v.Topology.Count(t)
	}
	m.order = speedOrder(m.types, m.solo, v)
	m.jobs = map[int]*gjob{}
	m.pos = map[int]int{}
	m.ents = map[entry]*ent{}
	m.workerTime = make([]float64, len(m.types))
	m.pairMemo = map[[4]int][2]float64{}
	m.wids = map[string]int{}
}

// speedOrder returns the type indices from the fastest to the slowest by
// the geometric mean, over the jobs' workloads, of the solo rate on one
// GPU relative to the best type: Gavel's fixed order v100, p100, k80 on
// its data, found from the rates instead of the names.
func speedOrder(types []string, solo sim.Rates, v *sim.View) []int {
	ws := map[string]bool{}
	for _, j := range v.Waiting {
		ws[j.Workload] = true
	}
	for _, j := range v.Running {
		ws[j.Workload] = true
	}
	score := make([]float64, len(types))
	for w := range ws {
		best := 0.0
		rs := make([]float64, len(types))
		for k, t := range types {
			if r, ok := solo.Solo(w, sim.Shape{GPUType: t, GPUs: 1}); ok && r > 0 {
				rs[k] = r
				best = max(best, r)
			}
		}
		if best == 0 {
			continue
		}
		for k := range types {
			score[k] += math.Log(max(rs[k], 1e-9*best) / best)
		}
	}
	order := make([]int, len(types))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
	return order
}

// Schedule runs one round boundary of the mechanism.
func (m *Mechanism) Schedule(v *sim.View) (*sim.Plan, error) {
	if v.Events&sim.Round == 0 {
		return nil, nil
	}
	if !m.started {
		m.start(v)
	}
	now := v.Now
	m.account(now)
	m.depart(v)
	m.arrive(v)
	if v.Events&sim.Idle != 0 {
		m.lastReset = 0 // Gavel forces a reset when the cluster idles at the end
	}
	if err := m.updatePriorities(now); err != nil {
		return nil, fmt.Errorf("%s: %w", m.name, err)
	}
	picked := m.pick(v)
	return m.place(v, picked), nil
}

// account adds the round that ends now to the time each entry and each
// type received (Gavel's _done_callback).
func (m *Mechanism) account(now float64) {
	if len(m.ran) == 0 {
		return
	}
	if m.haveEnd {
		m.qStart = m.qEnd
	}
	m.qEnd, m.haveEnd = now, true
	for _, r := range m.ran {
		exec := min(now, r.finish) - m.qStart
		if x, ok := m.ents[r.e]; ok {
			x.jt[r.k] += exec
			m.workerTime[r.k] += exec
		}
	}
	m.ran = m.ran[:0]
}

// depart removes the jobs that completed.
func (m *Mechanism) depart(v *sim.View) {
	gone := map[int]bool{}
	kept := m.active[:0]
	for _, id := range m.active {
		if v.Job(id) != nil {
			kept = append(kept, id)
			continue
		}
		gone[id] = true
		delete(m.jobs, id)
		m.needUpdate = true
	}
	m.active = kept
	if len(gone) == 0 {
		return
	}
	m.dropEntries(func(x *ent) bool { return gone[x.e.a] || (x.e.pair() && gone[x.e.b]) })
}

// arrive adds the jobs that arrived since the last boundary, by ID.
func (m *Mechanism) arrive(v *sim.View) {
	var ids []int
	for _, js := range [][]*sim.Job{v.Waiting, v.Running} {
		for _, j := range js {
			if _, known := m.jobs[j.ID]; !known {
				ids = append(ids, j.ID)
			}
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		j := v.Job(id)
		w, ok := m.wids[j.Workload]
		if !ok {
			w = len(m.wids)
			m.wids[j.Workload] = w
		}
		g := &gjob{id: id, wid: w, workload: j.Workload, scale: j.Scale, rate: make([]float64, len(m.types))}
		for k, t := range m.types {
			if r, ok := m.solo.Solo(j.Workload, sim.Shape{GPUType: t, GPUs: j.Scale}); ok && r > 0 {
				g.rate[k] = r
			}
		}
		m.jobs[id] = g
		m.pos[id] = m.nextPos
		m.nextPos++
		m.active = append(m.active, id)
		m.entry(entry{id, -1}, gavelHalfRound)
		m.needUpdate = true
	}
}

// entry returns e's books, made with each type's count at t0 when new.
func (m *Mechanism) entry(e entry, t0 float64) *ent {
	if x, ok := m.ents[e]; ok {
		return x
	}
	T := len(m.types)
	x := &ent{e: e, jt: make([]float64, T), deficit: make([]float64, T), prio: make([]float64, T)}
	x.order = [2]int{m.pos[e.a], 0}
	if e.pair() {
		pa, pb := m.pos[e.a], m.pos[e.b]
		x.order = [2]int{max(pa, pb), 1 + min(pa, pb)}
	}
	for k := range x.jt {
		x.jt[k] = t0
	}
	m.ents[e] = x
	m.entList = append(m.entList, x)
	return x
}

// dropEntries removes the entries for which drop holds. The loops over
// every entry walk entList, not the map (walks of the map cost a
// twentieth of a backlogged run); none depends on the order, as pick
// sorts by a total order.
func (m *Mechanism) dropEntries(drop func(*ent) bool) {
	kept := m.entList[:0]
	for _, x := range m.entList {
		if drop(x) {
			delete(m.ents, x.e)
			continue
		}
		kept = append(kept, x)
	}
	clear(m.entList[len(kept):])
	m.entList = kept
}

// updatePriorities recomputes the allocation when jobs came or went and
// Reset seconds have passed since the last recomputation, then sets each
// entry's priority on each type: its allocation over the fraction of the
// type's time it received since then (Gavel's _update_priorities).
func (m *Mechanism) updatePriorities(now float64) error {
	if m.needUpdate && (now-m.lastReset >= m.Reset || m.lastReset == 0) {
		m.resetTimes(now)
		st := &allocState{types: m.types, counts: m.counts, pairRates: m.pairRates}
		for _, id := range m.active {
			st.jobs = append(st.jobs, m.jobs[id])
		}
		a, err := m.alloc.allocate(st)
		if err != nil {
			return err
		}
		for _, x := range m.entList {
			x.alloc = nil
		}
		for e, al := range a {
			if e.pair() && slices.Max(al) <= 0 {
				continue
			}
			m.entry(e, gavelHalfRound).alloc = al
		}
		// A pair with no allocation and no time owed is dormant (see
		// Mechanism).
		m.dropEntries(func(x *ent) bool { return x.e.pair() && x.alloc == nil && slices.Max(x.deficit) <= 0 })
		m.needUpdate = false
	}
	for k := range m.types {
		wt := m.workerTime[k]
		for _, x := range m.entList {
			if x.alloc == nil || x.alloc[k] == 0 || !m.runs(x.e, k) {
				x.prio[k] = 0
				continue
			}
			p := x.alloc[k] * priorityScale
			if wt > 0 {
				if f := x.jt[k] / wt; f > 0 {
					p = x.alloc[k] / f
				}
			}
			x.prio[k] = p
		}
	}
	return nil
}

// resetTimes adds to each entry's deficit the time it should have had
// since the last reset minus what it had, and starts the count again at
// half a round each (Gavel's _reset_time_run_so_far).
func (m *Mechanism) resetTimes(now float64) {
	elapsed := now - m.lastReset
	for k := range m.types {
		m.workerTime[k] = 0
		for _, x := range m.entList {
			got := x.jt[k] - gavelHalfRound
			should := 0.0
			if x.alloc != nil {
				should = x.alloc[k] * elapsed
			}
			x.deficit[k] += should - got
			x.jt[k] = gavelHalfRound
			m.workerTime[k] += gavelHalfRound
		}
	}
	m.lastReset = now
}

// runs reports whether entry e has a positive rate on type k.
func (m *Mechanism) runs(e entry, k int) bool {
	if !e.pair() {
		return m.jobs[e.a].rate[k] > 0
	}
	ra, rb, ok := m.pairRates(m.jobs[e.a], m.jobs[e.b], k)
	return ok && ra > 0 && rb > 0
}

func (m *Mechanism) pairRates(a, b *gjob, k int) (float64, float64, bool) {
	if m.pairs == nil || a.scale != b.scale {
		return 0, 0, false
	}
	key := [4]int{a.wid, b.wid, a.scale, k}
	if r, ok := m.pairMemo[key]; ok {
		return r[0], r[1], r[0] > 0
	}
	sh := sim.Shape{GPUType: m.types[k], GPUs: a.scale}
	ra, oka := m.pairs.Colocated(a.workload, b.workload, sh)
	rb, okb := m.pairs.Colocated(b.workload, a.workload, sh)
	if !oka || !okb || !(ra > 0) || !(rb > 0) {
		ra, rb = 0, 0
	}
	m.pairMemo[key] = [2]float64{ra, rb}
	return ra, rb, ra > 0
}

// pick chooses the entries of the next round: each type's entries in
// decreasing priority (then deficit, then allocation; ties in the order
// they were added), the types from the fastest, each entry taking its
// scale of the type's GPUs while they last (Gavel's
// _schedule_jobs_on_workers_helper).
func (m *Mechanism) pick(v *sim.View) []ran {
	left := slices.Clone(m.counts)
	if m.taken == nil {
		m.taken = map[int]bool{}
	}
	taken := m.taken
	clear(taken)
	var out []ran
	for _, k := range m.order {
		try := func(x *ent) {
			e := x.e
			if left[k] == 0 || taken[e.a] || (e.pair() && taken[e.b]) || !m.runs(e, k) {
				return
			}
			if m.fifo && x.prio[k] <= 0 {
				return
			}
			sf := m.jobs[e.a].scale
			if e.pair() && m.jobs[e.b].scale != sf {
				return
			}
			if sf > left[k] || !m.placeable(v, e, k) {
				return
			}
			left[k] -= sf
			taken[e.a] = true
			if e.pair() {
				taken[e.b] = true
			}
			out = append(out, ran{e: e, k: k, sf: sf})
		}
		// Entries of positive priority first, in Gavel's order; those of
		// priority 0 only while GPUs of the type are left.
		m.list = m.list[:0]
		for _, x := range m.entList {
			if x.prio[k] > 0 {
				m.list = append(m.list, x)
			}
		}
		m.sortEntries(m.list, k)
		for _, x := range m.list {
			if left[k] == 0 {
				break // try would take no other
			}
			try(x)
		}
		if left[k] == 0 || m.fifo {
			continue
		}
		m.list = m.list[:0]
		for _, x := range m.entList {
			if x.prio[k] <= 0 {
				m.list = append(m.list, x)
			}
		}
		m.sortEntries(m.list, k)
		for _, x := range m.list {
			if left[k] == 0 {
				break
			}
			try(x)
		}
	}
	return out
}

// sortEntries puts list in compareEntries' order on type k.
func (m *Mechanism) sortEntries(list []*ent, k int) {
	// As packed integers (packsort) of the first of Gavel's keys that
	// is not the same for every entry (the entries of priority 0 all
	// agree in it: by deficit), then by the rest of its order.
	first := func(x *ent) float64 { return x.prio[k] }
	if same(list, first) {
		first = func(x *ent) float64 { return x.deficit[k] }
		if same(list, first) {
			first = func(x *ent) float64 { return x.allocOn(k) }
		}
	}
	mask := packsort.Mask(len(list))
	keys := m.keys[:0]
	for i, x := range list {
		keys = append(keys, packsort.Key(first(x), i, mask))
	}
	packsort.Sort(keys, mask, func(i, j int) int { return compareEntries(list[i], list[j], k) })
	m.keys = keys
	was := append(m.sorted[:0], list...)
	for i, key := range keys {
		list[i] = was[key&mask]
	}
	clear(was)
	m.sorted = was[:0]
}

// compareEntries is Gavel's order of entries on type k: priority,
// deficit and allocation, each highest first, then the order its
// dictionaries would give (a total order).
func compareEntries(x, y *ent, k int) int {
	if c := cmp.Compare(y.prio[k], x.prio[k]); c != 0 {
		return c
	}
	if c := cmp.Compare(y.deficit[k], x.deficit[k]); c != 0 {
		return c
	}
	if c := cmp.Compare(y.allocOn(k), x.allocOn(k)); c != 0 {
		return c
	}
	if c := cmp.Compare(x.order[0], y.order[0]); c != 0 {
		return c
	}
	return cmp.Compare(x.order[1], y.order[1])
}

// allocOn is the entry's allocation on type k (0 with none).
func (x *ent) allocOn(k int) float64 {
	if x.alloc == nil {
		return 0
	}
	return x.alloc[k]
}

// same reports whether key is the same for every entry of list, as
// cmp.Compare orders values (-0 as 0, NaN as NaN).
func same(list []*ent, key func(*ent) float64) bool {
	for _, x := range list[min(1, len(list)):] {
		if packsort.Descending(key(x)) != packsort.Descending(key(list[0])) {
			return false
		}
	}
	return true
}

// placeable reports whether the simulator can run e's jobs on type k at
// their scale: on one node of the type, or spread where the data (or the
// settings) allow a spread placement.
func (m *Mechanism) placeable(v *sim.View, e entry, k int) bool {
	t := m.types[k]
	sf := m.jobs[e.a].scale
	spread := v.Topology.LargestNode(t) < sf
	for _, id := range []int{e.a, e.b} {
		if id < 0 {
			continue
		}
		if !v.CanRun(m.jobs[id].workload, sim.Shape{GPUType: t, GPUs: sf, Spread: spread}) {
			return false
		}
	}
	return true
}

// place turns the picked entries into a plan: an entry that ran last
// round on the same type keeps its GPUs when no larger entry took them
// (Gavel's extend_placement); the others take free GPUs of the type, on
// one node where one has room, else spread (largest scale first, as Gavel
// assigns workers). Jobs not picked stop.
func (m *Mechanism) place(v *sim.View, picked []ran) *sim.Plan {
	p := v.Plan()
	if m.keep == nil {
		m.keep, m.prev = map[int]bool{}, map[entry][]int{}
	}
	keep, prev := m.keep, m.prev
	clear(keep)
	clear(prev)
	for _, r := range picked {
		var gpus []int
		if j := v.Job(r.e.a); j != nil && len(j.GPUs) > 0 {
			gpus = j.GPUs
		}
		if gpus == nil {
			continue
		}
		if r.e.pair() {
			jb := v.Job(r.e.b)
			if jb == nil || !slices.Equal(jb.GPUs, gpus) {
				continue
			}
		} else if len(v.JobsOn(gpus[0])) != 1 {
			continue // it shared last round: its GPUs change hands
		}
		if sh, err := v.Topology.ShapeOf(gpus); err == nil && sh.GPUType == m.types[r.k] {
			prev[r.e] = gpus
		}
	}
	// Largest scale first, then the order picked.
	picked = m.byScale(picked)
	for i, r := range picked {
		if g, ok := prev[r.e]; ok {
			picked[i].gpus = g
			keep[r.e.a] = true
			if r.e.pair() {
				keep[r.e.b] = true
			}
		}
	}
	for _, j := range v.Running {
		if !keep[j.ID] {
			p.Stop(j.ID)
		}
	}
	out := m.ran[:0] // account emptied it
	for _, r := range picked {
		t := m.types[r.k]
		sf := m.jobs[r.e.a].scale
		if r.gpus == nil {
			g, ok := sim.FreeOnNode(p, t, sf)
			if !ok && sf > 1 {
				g, ok = sim.FreeSpread(p, t, sf)
				if ok {
					sh, _ := v.Topology.ShapeOf(g)
					ok = v.CanRun(m.jobs[r.e.a].workload, sh) && (!r.e.pair() || v.CanRun(m.jobs[r.e.b].workload, sh))
				}
			}
			if !ok {
				continue
			}
			r.gpus = g
			p.Place(r.e.a, g...)
			if r.e.pair() {
				p.Place(r.e.b, g...)
			}
		}
		r.finish = m.finish(v, r)
		out = append(out, r)
	}
	m.ran = out
	return p
}

// byScale returns the picked entries by scale, largest first, in the
// order picked among equals (a stable sort, by a pass per scale: a round
// has few), in a buffer it reuses.
func (m *Mechanism) byScale(picked []ran) []ran {
	scales := m.scales[:0]
	for _, r := range picked {
		if !slices.Contains(scales, r.sf) {
			scales = append(scales, r.sf)
		}
	}
	slices.Sort(scales)
	m.scales = scales
	out := m.byScaleBuf[:0]
	for i := len(scales) - 1; i >= 0; i-- {
		for _, r := range picked {
			if r.sf == scales[i] {
				out = append(out, r)
			}
		}
	}
	m.byScaleBuf = out
	return out
}

// finish predicts when the entry's work of this round ends at the rates
// it runs at: what the mechanism counts as its time in the round.
func (m *Mechanism) finish(v *sim.View, r ran) float64 {
	sh, _ := v.Topology.ShapeOf(r.gpus)
	start := v.Now
	moved := false
	end := start
	for i, id := range []int{r.e.a, r.e.b} {
		if id < 0 {
			continue
		}
		j := v.Job(id)
		if !slices.Equal(j.GPUs, r.gpus) && j.Starts > 0 {
			moved = true
		}
		var rate float64
		var ok bool
		if r.e.pair() {
			o := r.e.b
			if i == 1 {
				o = r.e.a
			}
			rate, ok = m.pairs.Colocated(j.Workload, v.Job(o).Workload, sh)
		} else {
			rate, ok = m.solo.Solo(j.Workload, sh)
		}
		if !ok || !(rate > 0) {
			return math.Inf(1)
		}
		// Gavel counts a round's time as its micro-task's: the whole
		// iterations of a round at this rate, or what is left.
		steps := min(math.Floor(rate*v.Round()), float64(j.Steps)-j.Done)
		end = max(end, start+steps/rate)
	}
	if moved {
		end += v.RestartPenalty()
	}
	return end
}
