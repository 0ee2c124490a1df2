package policies

import (
	"slices"

	"github.com/coloc-dev/coloc/sim"
)

// What the rule asks of a waiting job depends, but for its remaining
// work, on its workload and degree only: the GPU types it may run on and
// its solo rates there (shapes), and, until the plan changes, the jobs
// running alone it may share with and the rates of each pair
// (planState.sharesOf). Both are remembered, so that deciding a job
// that can only wait costs a few operations per GPU type, not a walk
// over the types' rules and the running jobs; the decisions are those of
// asking anew (TestRuleIndexesMatchScan).

// shapeOpt is a GPU type a workload may run on at a degree: the shape it
// gets there (spread when no node of the type holds it) and its solo rate.
type shapeOpt struct {
	ti int // index in Topology.Types
	t  string
	sh sim.Shape
	s  float64
	// Whether the workload may run on one node of the type at the
	// degree, and spread over nodes (View.CanRun).
	onNode, spread bool
}

// shapeSet is what the rule asks of a workload at a degree: the types it
// may run or wait on (opts, in type order), and the solo rates by which
// the makespan guard bounds its GPU time (least).
type shapeSet struct {
	opts  []shapeOpt
	least []float64
	// By type index: whether the workload may run on one node, and
	// spread over nodes (View.CanRun).
	onNode, spread []bool
	set            bool
}

// shapes returns j's shapeSet at degree d, remembered by workload index
// and degree (for the topology of the first call: a rule serves one
// simulation).
func (r *Rule) shapes(v *sim.View, j *sim.Job, d int) *shapeSet {
	w := int(r.widOf(j))
	for len(r.shapeTab) <= w {
		r.shapeTab = append(r.shapeTab, nil)
	}
	for len(r.shapeTab[w]) <= d {
		r.shapeTab[w] = append(r.shapeTab[w], shapeSet{})
	}
	ss := &r.shapeTab[w][d]
	if ss.set {
		return ss
	}
	topo := v.Topology
	for ti, t := range topo.Types() {
		sh := sim.Shape{GPUType: t, GPUs: d}
		on := v.CanRun(j.Workload, sh)
		spread := d > 1 && v.CanRun(j.Workload, sim.Shape{GPUType: t, GPUs: d, Spread: true})
		o := shapeOpt{ti: ti, t: t, onNode: on, spread: spread}
		ss.onNode, ss.spread = append(ss.onNode, on), append(ss.spread, spread)
		if !on || topo.LargestNode(t) < d {
			sh.Spread = true // no node of t holds it: spread or nothing
			if spread && topo.Count(t) >= d {
				if o.sh, o.s = sh, r.soloOn(j, sh); o.s > 0 {
					ss.opts = append(ss.opts, o)
				}
			}
		} else if o.sh, o.s = sh, r.soloOn(j, sh); o.s > 0 {
			ss.opts = append(ss.opts, o)
		}
		// The guard's bound asks the rate on one node where one holds
		// the degree, whether or not the workload may run there.
		hs := sim.Shape{GPUType: t, GPUs: d, Spread: topo.LargestNode(t) < d}
		if s := r.soloOn(j, hs); s > 0 {
			ss.least = append(ss.least, s)
		}
	}
	ss.set = true
	return ss
}

// shareKey names the partners of a workload at a degree.
type shareKey struct {
	wid int32
	d   int
}

// shareCand is a job running alone that a workload may share with, and
// what the rule needs of the pair: the GPUs and their type, both solo
// rates and normalized throughputs there, and the partner's remaining
// work.
type shareCand struct {
	q      int
	first  int // its lowest GPU (its GPUs: the plan's, Plan.GPUsOf)
	ti     int
	sj, sq float64
	xj, xq float64
	wq     float64
}

// byKey is a table by degree, then workload index: the partner lists
// of a plan (and their first plan's copies), asked at every decision.
type byKey[T any] [][]T

// at returns the entry of k, the zero value when none.
func (t byKey[T]) at(k shareKey) T {
	if k.d < len(t) && int(k.wid) < len(t[k.d]) {
		return t[k.d][k.wid]
	}
	var zero T
	return zero
}

// put sets the entry of k; hint is the number of workloads known.
func (t *byKey[T]) put(k shareKey, v T, hint int) {
	for len(*t) <= k.d {
		*t = append(*t, nil)
	}
	row := (*t)[k.d]
	if len(row) <= int(k.wid) {
		// Room for the workloads known so far (hint) at once.
		row = append(row, make([]T, max(int(k.wid)+1, hint)-len(row))...)
	}
	row[k.wid] = v
	(*t)[k.d] = row
}

// shareList is what sharesOf remembers for a workload at a degree: a job
// of the workload (to ask its rates) and its partners.
type shareList struct {
	rep *sim.Job
	cs  []shareCand
	// shared: cs is also the first plan's copy (baseLists), to be copied
	// before it is changed.
	shared bool
}

// sharesOf returns the jobs running alone on d GPUs that j's workload may
// share with (both solo rates known, both normalized throughputs
// positive and at least the floor), in the order of the lone list (by
// lowest GPU). It is remembered and revised as the plan changes
// (reviseShares). It may hold j itself, which the caller skips.
func (ps *planState) sharesOf(r *Rule, j *sim.Job, d int) []shareCand {
	k := shareKey{r.widOf(j), d}
	if l := ps.shares.at(k); l != nil && !r.plain {
		return l.cs
	}
	if cs, ok := r.carry.plan(ps, r, j, k); ok {
		return cs
	}
	l := &shareList{rep: j, cs: []shareCand{}}
	if r.plain {
		for _, q := range ps.loneAt(d) {
			if c, ok := ps.shareWith(r, j, q); ok {
				l.cs = append(l.cs, c)
			}
		}
	} else {
		l.cs = r.partnersAmong(ps, j, k.wid, ps.lonesOf(r, d), ps.loneKinds[d])
	}
	ps.shares.put(k, l, len(r.wids))
	if ps.base != nil && !ps.placed {
		ps.base.shares.put(k, &shareList{rep: j, cs: slices.Clip(l.cs)}, len(r.wids))
		l.shared = true
	}
	return l.cs
}

// partnersAmong returns the lone jobs of ls that j's workload (index
// wid) may share with, in ls's order; kinds holds one job of each
// workload and shape of ls. Most workloads may share with none of the
// kinds: then none of the jobs is looked at. The list is gathered in a
// buffer kept by the rule, then copied at its size (one allocation per
// list instead of a growing one).
func (r *Rule) partnersAmong(ps *planState, j *sim.Job, wid int32, ls, kinds []loneInfo) []shareCand {
	if !slices.ContainsFunc(kinds, func(li loneInfo) bool {
		_, ok := r.pairing(ps, j, wid, li)
		return ok
	}) {
		return []shareCand{}
	}
	buf := r.candBuf[:0]
	for _, li := range ls {
		if c, ok := r.pairing(ps, j, wid, li); ok {
			buf = append(buf, c)
		}
	}
	out := append([]shareCand{}, buf...)
	clear(buf)
	r.candBuf = buf[:0]
	return out
}

// loneInfo is a job running alone, with what sharesOf asks of it.
type loneInfo struct {
	gpus   []int
	q      int
	ti     int32
	slot   int32 // of its shape: (GPUs, spread, type)
	wid    int32
	spread bool // its GPUs span nodes
	// born is the carried generation in which the job was found alone
	// there (carried.gen; 0 in a plan's own lists).
	born uint64
}

// lonesOf returns the jobs running alone on d GPUs with their shapes,
// found once a plan generation.
func (ps *planState) lonesOf(r *Rule, d int) []loneInfo {
	if ls, ok := ps.loneInfo[d]; ok {
		return ls
	}
	lone := ps.loneAt(d)
	ls := make([]loneInfo, 0, len(lone))
	for _, q := range lone {
		if li, ok := ps.loneOf(r, q); ok {
			ls = append(ls, li)
		}
	}
	var kinds []loneInfo
	r.kindGen++
	for _, li := range ls {
		if r.newKind(li) {
			kinds = append(kinds, li)
		}
	}
	if ps.loneInfo == nil {
		ps.loneInfo, ps.loneKinds = map[int][]loneInfo{}, map[int][]loneInfo{}
	}
	ps.loneInfo[d], ps.loneKinds[d] = ls, kinds
	delete(ps.loneShared, d)
	if ps.base != nil && !ps.placed {
		if ps.base.lones == nil {
			ps.base.lones, ps.base.kinds = map[int][]loneInfo{}, map[int][]loneInfo{}
		}
		if !r.plain {
			r.carry.found(r, d, ls, kinds)
		}
		ps.base.lones[d], ps.base.kinds[d] = slices.Clip(ls), slices.Clip(kinds)
		ps.loneInfo[d], ps.loneKinds[d] = ps.base.lones[d], ps.base.kinds[d]
		ps.shareLones(d)
	}
	return ls
}

// newKind reports whether li is the first job of its workload and shape
// that lonesOf has seen since it last advanced Rule.kindGen: the kinds
// seen are marked in a table by workload and shape slot, instead of
// comparing each lone job with every kind found.
func (r *Rule) newKind(li loneInfo) bool {
	w, sl := int(li.wid), li.slot
	for len(r.kindSeen) <= w {
		r.kindSeen = append(r.kindSeen, nil)
	}
	row := r.kindSeen[w]
	for len(row) <= int(sl) {
		row = append(row, 0)
	}
	r.kindSeen[w] = row
	if row[sl] == r.kindGen {
		return false
	}
	row[sl] = r.kindGen
	return true
}

// addKind adds li to kinds unless a job of its workload and shape is
// there.
func addKind(kinds []loneInfo, li loneInfo) []loneInfo {
	for _, k := range kinds {
		if k.wid == li.wid && k.slot == li.slot {
			return kinds
		}
	}
	return append(kinds, li)
}

// loneOf describes job q, running alone, for lonesOf.
func (ps *planState) loneOf(r *Rule, q int) (loneInfo, bool) {
	qj := ps.v.Job(q)
	if qj == nil {
		return loneInfo{}, false
	}
	gpus := ps.p.GPUsOf(q)
	sh, _ := shapeOf(ps.v, gpus)
	ti := ps.typeOf(gpus[0])
	sl := len(gpus) * 2
	if sh.Spread {
		sl++
	}
	return loneInfo{q: q, gpus: gpus, spread: sh.Spread, ti: int32(ti), slot: int32(sl*len(ps.types) + ti), wid: r.widOf(qj)}, true
}

// reviseLones brings the lone jobs of lonesOf up to date after job id
// was placed on gpus next to partner (-1: on free GPUs), as
// reviseShares does for the partner lists.
func (ps *planState) reviseLones(r *Rule, id int, gpus []int, partner int, moved bool) {
	if moved || r.plain {
		clear(ps.loneInfo)
		clear(ps.loneKinds)
		return
	}
	ls, ok := ps.loneInfo[len(gpus)]
	if !ok {
		return
	}
	if ps.loneShared[len(gpus)] {
		ls = slices.Clone(ls)
		delete(ps.loneShared, len(gpus))
	}
	if partner >= 0 {
		ps.loneInfo[len(gpus)] = slices.DeleteFunc(ls, func(l loneInfo) bool { return l.q == partner })
		return
	}
	li, ok := ps.loneOf(r, id)
	if !ok {
		return
	}
	i, _ := slices.BinarySearchFunc(ls, li.gpus[0], func(x loneInfo, g int) int { return x.gpus[0] - g })
	ps.loneInfo[len(gpus)] = slices.Insert(ls, i, li)
	ps.loneKinds[len(gpus)] = addKind(ps.loneKinds[len(gpus)], li)
}

// baseLists are the lone jobs and partner lists a plan found before it
// changed anything: the same for every plan of one scheduling call.
type baseLists struct {
	sorted [][]float64 // planState.byType
	lones  map[int][]loneInfo
	kinds  map[int][]loneInfo
	shares byKey[*shareList]
}

// startFrom gives a new plan copies of the lists of b.
func (ps *planState) startFrom(b baseLists) {
	if ps.plain {
		return
	}
	for ti, ts := range b.sorted {
		if ts != nil {
			ps.byType[ti], ps.dirty[ti], ps.sortedShared[ti] = ts, false, true
		}
	}
	ps.loneInfo, ps.loneKinds = map[int][]loneInfo{}, map[int][]loneInfo{}
	clear(ps.loneShared)
	for d, ls := range b.lones {
		ps.loneInfo[d], ps.loneKinds[d] = ls, b.kinds[d]
		ps.shareLones(d)
	}
	ps.shares = nil
	for d, row := range b.shares {
		for w, l := range row {
			if l != nil {
				ps.shares.put(shareKey{int32(w), d}, &shareList{rep: l.rep, cs: l.cs, shared: true}, len(row))
			}
		}
	}
}

// shareLones marks the lone jobs of degree d as the first plan's copy
// (baseLists), which reviseLones copies before changing: the lists are
// shared, not copied, with the base and by startFrom, as most plans
// change none of them. The base's lists have no spare capacity, so
// appending to one (loneKinds) never writes into the base's array.
func (ps *planState) shareLones(d int) {
	if ps.loneShared == nil {
		ps.loneShared = map[int]bool{}
	}
	ps.loneShared[d] = true
}

// pairStatic is what shareWith finds for a pair of workloads on a shape,
// which does not change: both solo rates and normalized throughputs, and
// whether they may share.
type pairStatic struct {
	sj, sq, xj, xq float64
	ok, set        bool
}

// pairing is shareWith for a lone job described by li, from the pair's
// rates remembered by workload indices and shape (Rule.pairTab).
func (r *Rule) pairing(ps *planState, j *sim.Job, wj int32, li loneInfo) (shareCand, bool) {
	for len(r.pairTab) <= int(wj) {
		r.pairTab = append(r.pairTab, nil)
	}
	row := r.pairTab[wj]
	for len(row) <= int(li.wid) {
		row = append(row, nil)
	}
	r.pairTab[wj] = row
	cell := row[li.wid]
	for len(cell) <= int(li.slot) {
		cell = append(cell, pairStatic{})
	}
	row[li.wid] = cell
	st := &cell[li.slot]
	if !st.set {
		st.set = true
		qj, sh := ps.v.Job(li.q), ps.shapeOfLone(li)
		st.sj, st.sq = r.soloOn(j, sh), r.soloOn(qj, sh)
		if st.sj != 0 && st.sq != 0 {
			xj, ok1 := r.pairOf(ps.v, j, qj, sh)
			xq, ok2 := r.pairOf(ps.v, qj, j, sh)
			st.xj, st.xq = xj, xq
			st.ok = ok1 && ok2 && xj > 0 && xq > 0 && xj >= r.floor && xq >= r.floor
		}
	}
	if !st.ok {
		return shareCand{}, false
	}
	return shareCand{q: li.q, first: li.gpus[0], ti: int(li.ti), sj: st.sj, sq: st.sq, xj: st.xj, xq: st.xq, wq: r.remaining(ps.v.Job(li.q), st.sq)}, true
}

// shapeOfLone returns the shape of the lone job li.
func (ps *planState) shapeOfLone(li loneInfo) sim.Shape {
	return sim.Shape{GPUType: ps.types[li.ti], GPUs: len(li.gpus), Spread: li.spread}
}

// shareWith returns job q, running alone, as a partner of j's workload,
// ok false when the two may not share: the rule's plain question, which
// pairing answers from remembered rates.
func (ps *planState) shareWith(r *Rule, j *sim.Job, q int) (shareCand, bool) {
	v := ps.v
	qj := v.Job(q)
	if qj == nil {
		return shareCand{}, false
	}
	gpus := ps.p.GPUsOf(q)
	sh, _ := shapeOf(v, gpus)
	sj, sq := r.soloOn(j, sh), r.soloOn(qj, sh)
	if sj == 0 || sq == 0 {
		return shareCand{}, false
	}
	xj, ok1 := r.pairOf(v, j, qj, sh)
	xq, ok2 := r.pairOf(v, qj, j, sh)
	if !ok1 || !ok2 || !(xj > 0) || !(xq > 0) || xj < r.floor || xq < r.floor {
		return shareCand{}, false
	}
	return shareCand{q: q, first: gpus[0], ti: ps.typeOf(gpus[0]), sj: sj, sq: sq, xj: xj, xq: xq, wq: r.remaining(qj, sq)}, true
}

// reviseShares brings the remembered partners up to date after job id
// was placed on gpus next to partner (-1: on free GPUs). Only the lists
// of its size change: the partner no longer runs alone, or the job now
// does (a partner for the workloads that may share with it, at its place
// in GPU order). A job moved from elsewhere may leave a partner alone:
// then all is forgotten.
func (ps *planState) reviseShares(r *Rule, id int, gpus []int, partner int, moved bool) {
	if moved {
		ps.shares = nil
		return
	}
	if len(gpus) >= len(ps.shares) {
		return
	}
	for _, l := range ps.shares[len(gpus)] {
		if l == nil {
			continue
		}
		if l.shared {
			l.cs, l.shared = slices.Clone(l.cs), false
		}
		if partner >= 0 {
			l.cs = slices.DeleteFunc(l.cs, func(c shareCand) bool { return c.q == partner })
			continue
		}
		c, ok := ps.shareWith(r, l.rep, id)
		if !ok {
			continue
		}
		i, _ := slices.BinarySearchFunc(l.cs, c.first, func(x shareCand, g int) int { return x.first - g })
		l.cs = slices.Insert(l.cs, i, c)
	}
}
