package sim

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
		free := 0
		for _, g := range topo.Nodes[ni].GPUs {
			if p.Free(g) {
				free++
			}
		}
		if free >= n && (best < 0 || free < bestFree) {
			best, bestFree = ni, free
		}
	}
	if best < 0 {
		return nil, false
	}
	for _, g := range topo.Nodes[best].GPUs {
		if p.Free(g) && len(gpus) < n {
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
	free := make([][]int, len(nodes))
	total := 0
	for i, ni := range nodes {
		for _, g := range topo.Nodes[ni].GPUs {
			if p.Free(g) {
				free[i] = append(free[i], g)
			}
		}
		total += len(free[i])
	}
	if total < n {
		return nil, false
	}
	used := make([]bool, len(nodes))
	for len(gpus) < n {
		pick := -1
		for i := range nodes {
			if !used[i] && (pick < 0 || len(free[i]) > len(free[pick])) {
				pick = i
			}
		}
		used[pick] = true
		for _, g := range free[pick] {
			if len(gpus) < n {
				gpus = append(gpus, g)
			}
		}
	}
	return gpus, true
}

// BestFree returns free GPUs for job j on the GPU type where est gives it
// the highest solo rate. On each type it takes one node when a node has
// room, and spreads over nodes only when none has: consolidation first,
// as schedulers usually do, even where the data report a higher rate
// spread (Gavel's K80 measurements often do). Only placements the job can
// run on (View.CanRun) and est has a rate for count; the first type in
// sorted order wins ties. ok is false when no such placement is free.
func BestFree(p *Plan, j *Job, est Rates) (gpus []int, rate float64, ok bool) {
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
func Partners(p *Plan, j *Job) []int { return PartnersAt(p, j, j.Scale) }

// PartnersAt is Partners for sets of n GPUs.
func PartnersAt(p *Plan, j *Job, n int) []int {
	var out []int
	s := p.view.sim
	for _, l := range p.loneOf(n) {
		if l.job != j.ID && s.canShareOn(j.ID, l.job, l.typ, n, l.spread, p.GPUsOf(l.job)) {
			out = append(out, l.job)
		}
	}
	return out
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
}

// loneOf is Lone with the shape of each set, remembered until the plan
// changes.
func (p *Plan) loneOf(n int) []loneJob {
	v := p.view
	if v.MaxPerGPU() < 2 || p.lone == 0 {
		return nil
	}
	if m, ok := p.loneMemo[n]; ok && m.gen == p.gen {
		return m.jobs
	}
	var out []loneJob
	for g := range p.base {
		js := p.jobsOn(g)
		if len(js) != 1 {
			continue
		}
		r := js[0]
		if v.sim.lookup(r) == nil {
			continue
		}
		gs := p.GPUsOf(r)
		if len(gs) != n || gs[0] != g || !p.alone(r, gs) {
			continue
		}
		out = append(out, loneJob{r, v.sim.typeOf[g], v.sim.shapeOf(gs).Spread})
	}
	if p.loneMemo == nil {
		p.loneMemo = map[int]loneAt{}
	}
	p.loneMemo[n] = loneAt{p.gen, out}
	return out
}

// loneAt is the answer of loneOf for one size at one generation of a plan.
type loneAt struct {
	gen  int
	jobs []loneJob
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
