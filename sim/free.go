package sim

import "slices"

// Helpers that find room in a plan, shared by the baseline policies and
// available to others.

// FreeOnNode returns n GPUs of type t that the plan leaves free, all on one
// node: the node with the fewest free GPUs that still fit n (best fit, so
// big holes stay for big jobs), the lowest node on ties, its lowest free
// GPUs. ok is false when no node has n free GPUs of type t.
func FreeOnNode(p *Plan, t string, n int) (gpus []int, ok bool) {
	topo := p.view.Topology
	best, bestFree := -1, 0
	for _, ni := range topo.NodesOf(t) {
		free := p.avail[ni]
		if free >= n && (best < 0 || free < bestFree) {
			best, bestFree = ni, free
			if free == n {
				break // an exact fit: no later node beats it
			}
		}
	}
	if best < 0 {
		return nil, false
	}
	if n > 0 {
		gpus = make([]int, 0, n)
	}
	for _, g := range topo.Nodes[best].GPUs {
		if p.isFree(g) && len(gpus) < n {
			gpus = append(gpus, g)
		}
	}
	return gpus, true
}

// FreeSpread returns n GPUs of type t that the plan leaves free, taken
// from the nodes with the most free GPUs first (so as few nodes as
// possible), the lowest node on ties. ok is false when fewer than n GPUs
// of type t are free.
func FreeSpread(p *Plan, t string, n int) (gpus []int, ok bool) {
	topo := p.view.Topology
	nodes := topo.NodesOf(t)
	free := make([]int, len(nodes)) // free GPUs by node, -1 once taken
	total := 0
	for i, ni := range nodes {
		free[i] = p.avail[ni]
		total += free[i]
	}
	if total < n {
		return nil, false
	}
	if n > 0 {
		gpus = make([]int, 0, n)
	}
	for len(gpus) < n {
		pick := -1
		for i, f := range free {
			if f >= 0 && (pick < 0 || f > free[pick]) {
				pick = i
			}
		}
		free[pick] = -1
		for _, g := range topo.Nodes[nodes[pick]].GPUs {
			if len(gpus) < n && p.isFree(g) {
				gpus = append(gpus, g)
			}
		}
	}
	return gpus, true
}

// bestFree returns free GPUs for job j on the GPU type where est gives it
// the highest solo rate. On each type it takes one node when a node has
// room, and spreads over nodes only when none has: consolidation first,
// as schedulers usually do, even where the data report a higher rate
// spread (Gavel's K80 measurements often do). Only placements the job can
// run on (View.CanRun) and est has a rate for count; the first type in
// sorted order wins ties. ok is false when no such placement is free.
func bestFree(p *Plan, j *Job, est Rates) (gpus []int, rate float64, ok bool) {
	s := p.view.sim
	for ti, t := range p.view.Topology.Types() {
		if p.free[ti] < j.Scale {
			continue
		}
		if s.canRun(j.ID, ti, j.Scale, false) {
			if g, found := FreeOnNode(p, t, j.Scale); found {
				if r, known := est.Solo(j.Workload, Shape{GPUType: t, GPUs: j.Scale}); known && (!ok || r > rate) {
					gpus, rate, ok = g, r, true
				}
				continue // one node is free: no need to spread
			}
		}
		if j.Scale > 1 && s.canRun(j.ID, ti, j.Scale, true) {
			// FreeSpread may still land on one node: check the shape it gives.
			if g, found := FreeSpread(p, t, j.Scale); found {
				sh := s.shapeOf(g)
				if r, known := est.Solo(j.Workload, sh); known && s.canRun(j.ID, ti, j.Scale, sh.Spread) && (!ok || r > rate) {
					gpus, rate, ok = g, r, true
				}
			}
		}
	}
	return gpus, rate, ok
}

// Partners returns, for job j, the jobs the plan runs alone on a set of
// j.Scale GPUs that j may share (View.CanShare), each by the first GPU of
// its set, in GPU order. Empty when the cluster allows one job per GPU.
func Partners(p *Plan, j *Job) []int { return partnersAt(p, j, j.Scale) }

// partnersAt is Partners for sets of n GPUs.
func partnersAt(p *Plan, j *Job, n int) []int {
	var out []int
	s := p.view.sim
	for _, l := range p.loneOf(n) {
		if l.job != j.ID && s.canShareOn(j.ID, l.job, l.typ, n, l.spread, l.gpus) {
			out = append(out, l.job)
		}
	}
	return out
}

// PartnersAmong returns the jobs of ids that Partners(p, j) returns, in
// the same order: for a policy that knows the others cannot be partners
// (Plan.PlacedOnFreeSince).
func PartnersAmong(p *Plan, j *Job, ids []int) []int {
	if p.view.MaxPerGPU() < 2 {
		return nil
	}
	s := p.view.sim
	var out []loneJob
	for _, r := range ids {
		gs := p.GPUsOf(r)
		if len(gs) != j.Scale || r == j.ID || gs[0] < 0 || gs[0] >= len(p.base) {
			continue
		}
		if l, ok := p.loneAtGPU(gs[0], j.Scale); ok && l.job == r && s.canShareOn(j.ID, r, l.typ, j.Scale, l.spread, l.gpus) {
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b loneJob) int { return a.first - b.first })
	ps := make([]int, len(out))
	for i, l := range out {
		ps[i] = l.job
	}
	return ps
}

// Lone returns the jobs the plan runs alone on a set of n GPUs, each by
// the first GPU of its set, in GPU order: the jobs a waiting job of n
// GPUs might share with. Empty when the cluster allows one job per GPU.
func Lone(p *Plan, n int) []int {
	ls := p.loneOf(n)
	if ls == nil {
		return nil
	}
	out := make([]int, len(ls))
	for i, l := range ls {
		out[i] = l.job
	}
	return out
}

// loneJob is a job running alone on its GPUs, with their type index and
// whether they span nodes.
type loneJob struct {
	job, typ int
	spread   bool
	first    int   // its lowest GPU
	gpus     []int // its GPUs
}

// loneOf is Lone with the shape of each set, remembered until the plan
// changes. It is revised rather than found anew: only the jobs that
// changes moved, and those on the GPUs they touched, may have become lone
// or stopped being lone. The simulator keeps the answer for its own
// placement the same way (simulation.loneBase), so an answer costs the
// changes since the last one, not the cluster's size.
func (p *Plan) loneOf(n int) []loneJob {
	v := p.view
	if v.MaxPerGPU() < 2 || p.lone == 0 {
		return nil
	}
	m, ok := p.loneMemo[n]
	if ok && m.gen == p.gen {
		return m.jobs
	}
	lim := len(p.base) / 8
	var out []loneJob
	own := true
	switch {
	case ok && len(p.touched) == m.touched && len(p.touchedJobs) == m.touchedJobs:
		out, own = m.jobs, m.own // nothing touched since: the same jobs
	case ok && len(p.touched)-m.touched < lim:
		out = p.reviseLone(n, m.jobs, m.own, p.touched[m.touched:], p.touchedJobs[m.touchedJobs:])
	case !ok && len(p.touched) == 0 && len(p.touchedJobs) == 0:
		// Nothing changed: the simulator's answer, shared until the
		// plan changes (then revised into an array of the plan's own).
		out, own = v.sim.loneBase(v, n), false
	case !ok && len(p.touched) < lim:
		out = p.reviseLone(n, v.sim.loneBase(v, n), false, p.touched, p.touchedJobs)
	default:
		out = p.scanLone(n)
	}
	if p.loneMemo == nil {
		p.loneMemo = map[int]loneAt{}
	}
	p.loneMemo[n] = loneAt{p.gen, len(p.touched), len(p.touchedJobs), out, own}
	return out
}

// loneBase is loneOf for the simulator's placement, revised from the GPUs
// and jobs that starts, stops and completions touched since it was last
// asked for.
func (s *simulation) loneBase(v *View, n int) []loneJob {
	bp := &Plan{view: v, base: s.on}
	m, ok := s.loneMemo[n]
	// The logs' lengths and the memo's offsets count from the start of
	// the replay (trimTouched drops what no memo reads).
	absT, absJ := s.touchedBase+len(s.touched), s.touchedJobsBase+len(s.touchedJobs)
	if ok && m.touched == absT && m.touchedJobs == absJ {
		return m.jobs
	}
	// The last answer is revised in place: the plans that read it were
	// those of earlier calls, gone now (a plan lives during one call,
	// and the simulator's placement changes only between calls).
	var out []loneJob
	if ok && absT-m.touched < len(s.on)/8 {
		out = bp.reviseLone(n, m.jobs, true, s.touched[m.touched-s.touchedBase:], s.touchedJobs[m.touchedJobs-s.touchedJobsBase:])
	} else {
		out = bp.scanLone(n)
	}
	if s.loneMemo == nil {
		s.loneMemo = map[int]loneAt{}
	}
	s.loneMemo[n] = loneAt{0, absT, absJ, out, true}
	return out
}

// scanLone finds loneOf's answer by looking at every GPU.
func (p *Plan) scanLone(n int) []loneJob {
	var out []loneJob
	for g := range p.base {
		if l, ok := p.loneAtGPU(g, n); ok {
			out = append(out, l)
		}
	}
	return out
}

// loneAtGPU reports the job of size n that holds GPU g alone, g its
// lowest GPU, each of its GPUs holding it only.
func (p *Plan) loneAtGPU(g, n int) (loneJob, bool) {
	js := p.jobsOn(g)
	if len(js) != 1 {
		return loneJob{}, false
	}
	r := js[0]
	if p.view.sim.lookup(r) == nil {
		return loneJob{}, false
	}
	gs := p.GPUsOf(r)
	if len(gs) != n || gs[0] != g || !p.alone(r, gs) {
		return loneJob{}, false
	}
	return loneJob{r, p.view.sim.typeOf[g], p.view.sim.shapeOf(gs).Spread, g, gs}, true
}

// reviseLone brings was, loneOf's answer for size n before changes that
// touched gpus and moved jobs, up to date: it drops the jobs moved or on
// those GPUs, finds which of them are lone now, and keeps the answer
// ordered by lowest GPU, as a scan of the GPUs gives it. When own, was
// is the caller's to overwrite: the answer is revised in its array
// (only the kept jobs after a dropped one move), else in a new one.
func (p *Plan) reviseLone(n int, was []loneJob, own bool, gpus, jobs []int) []loneJob {
	cand := append([]int(nil), jobs...)
	for _, g := range gpus {
		cand = append(cand, p.jobsOn(g)...)
	}
	slices.Sort(cand)
	cand = slices.Compact(cand)
	var add []loneJob
	for _, r := range cand {
		gs := p.GPUsOf(r)
		if len(gs) == 0 || gs[0] < 0 || gs[0] >= len(p.base) {
			continue
		}
		if l, ok := p.loneAtGPU(gs[0], n); ok && l.job == r {
			add = append(add, l)
		}
	}
	slices.SortFunc(add, func(a, b loneJob) int { return a.first - b.first })
	if !own {
		out := make([]loneJob, 0, len(was)+len(add))
		for _, l := range was {
			if _, gone := slices.BinarySearch(cand, l.job); gone {
				continue
			}
			for len(add) > 0 && add[0].first < l.first {
				out = append(out, add[0])
				add = add[1:]
			}
			out = append(out, l)
		}
		return append(out, add...)
	}
	k := 0
	for i := range was {
		if _, gone := slices.BinarySearch(cand, was[i].job); gone {
			continue
		}
		if k != i {
			was[k] = was[i]
		}
		k++
	}
	clear(was[k:])
	return mergeLone(was[:k], add)
}

// mergeLone merges add into out, both ordered by lowest GPU, in out's
// array when it has room: from the back, an added job before a kept one
// only when its lowest GPU is lower.
func mergeLone(out, add []loneJob) []loneJob {
	if len(add) == 0 {
		return out
	}
	i := len(out) - 1
	out = append(out, add...)
	k := len(out) - 1
	for j := len(add) - 1; j >= 0; k-- {
		if i >= 0 && out[i].first > add[j].first {
			out[k] = out[i]
			i--
		} else {
			out[k] = add[j]
			j--
		}
	}
	return out
}

// loneAt is the answer of loneOf for one size at one generation of a
// plan (or of the simulator's placement), and how many GPUs and jobs the
// changes had touched then.
type loneAt struct {
	gen, touched, touchedJobs int
	jobs                      []loneJob
	own                       bool // jobs is the holder's array, not shared
}

// alone reports whether job r is the only job on each of gpus.
func (p *Plan) alone(r int, gpus []int) bool {
	for _, g := range gpus {
		if js := p.jobsOn(g); len(js) != 1 || js[0] != r {
			return false
		}
	}
	return true
}
