package place

import (
	"math"
	"sort"
)

// The two stages of a placement on one GPU type: CLWP ranks the nodes,
// NLWP picks the GPUs on a node (see the package doc).

// nodeCand is a node CLWP ranks, with its cost.
type nodeCand struct {
	node int
	cost float64
	free bool // the node has d free GPUs
	left int  // free GPUs left after placing t there
}

// clwp ranks the nodes of type ti that can take t's d tasks by the
// cluster-level objective: the lowest predicted interference of t with
// the jobs already there (0 when d GPUs are free) plus the communication
// cost of d tasks on the node; then free GPUs before sharing, the fewest
// free GPUs left (best fit), the node order.
func (e *Engine) clwp(t *Task, ti, d int, step float64, stepOK bool) []int {
	var cands []nodeCand
	for _, ni := range e.ofType[ti] {
		n := &e.nodes[ni]
		if len(n.gpus) < d || !memFits(t.MemoryGB, 0, n.spec.MemoryGB) {
			continue
		}
		c := nodeCand{node: ni, cost: math.Inf(1)}
		if n.free >= d {
			c.cost, c.free, c.left = 0, true, n.free-d
		} else {
			for _, g := range n.groups {
				if !e.canJoin(t, g, d, n) {
					continue
				}
				if cost, _, ok := e.joinCost(ClusterLevel, t, g); ok && cost < c.cost {
					c.cost = cost
				}
			}
			c.left = n.free
		}
		if math.IsInf(c.cost, 1) {
			continue
		}
		c.cost += commFrac(CommSeconds(t.Params, d, n.spec.LinkGBs), step, stepOK)
		cands = append(cands, c)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		switch {
		case a.cost != b.cost:
			return a.cost < b.cost
		case a.free != b.free:
			return a.free
		case a.left != b.left:
			return a.left < b.left
		}
		return a.node < b.node
	})
	out := make([]int, len(cands))
	for i, c := range cands {
		out[i] = c.node
	}
	return out
}

// nlwp picks t's GPUs on node ni by the node-level objective: the
// predicted slowdown added to t and to the jobs it would share with, plus
// the communication cost; free GPUs (no slowdown) when d are free, the
// lowest-numbered ones.
func (e *Engine) nlwp(t *Task, ti, d, ni int, rate, step float64, stepOK bool) *option {
	n := &e.nodes[ni]
	commS := CommSeconds(t.Params, d, n.spec.LinkGBs)
	frac := commFrac(commS, step, stepOK)
	var best *option
	if n.free >= d {
		gpus := make([]GPU, 0, d)
		for i, g := range n.gpus {
			if g == nil && len(gpus) < d {
				gpus = append(gpus, GPU{Node: ni, Index: i})
			}
		}
		best = &option{typ: ti, degree: d, gpus: gpus, rate: rate, y: 1, cost: frac, commS: commS, frac: frac}
	}
	for _, g := range n.groups {
		if !e.canJoin(t, g, d, n) {
			continue
		}
		cost, y, ok := e.joinCost(NodeLevel, t, g)
		if !ok {
			continue
		}
		if best == nil || cost+frac < best.cost-1e-12 {
			best = &option{typ: ti, degree: d, grp: g, rate: rate, y: y, cost: cost + frac, commS: commS, frac: frac}
		}
	}
	return best
}

// spread takes d free GPUs of type ti from the nodes with the most free
// GPUs first (so as few nodes as possible), the faster network first on
// ties; the all-reduce crosses the slowest network among them. It returns
// nil when fewer than d are free or they all lie on one node.
func (e *Engine) spread(t *Task, ti, d int, rate float64) *option {
	var nodes []int
	total := 0
	for _, ni := range e.ofType[ti] {
		n := &e.nodes[ni]
		if n.free > 0 && memFits(t.MemoryGB, 0, n.spec.MemoryGB) {
			nodes = append(nodes, ni)
			total += n.free
		}
	}
	if total < d {
		return nil
	}
	sort.SliceStable(nodes, func(i, j int) bool {
		a, b := &e.nodes[nodes[i]], &e.nodes[nodes[j]]
		if a.free != b.free {
			return a.free > b.free
		}
		return a.spec.NetworkGB > b.spec.NetworkGB
	})
	var gpus []GPU
	net := math.Inf(1)
	for _, ni := range nodes {
		if len(gpus) == d {
			break
		}
		n := &e.nodes[ni]
		net = math.Min(net, n.spec.NetworkGB)
		for i, g := range n.gpus {
			if g == nil && len(gpus) < d {
				gpus = append(gpus, GPU{Node: ni, Index: i})
			}
		}
	}
	if gpus[0].Node == gpus[len(gpus)-1].Node {
		return nil
	}
	step, stepOK := StepTime(rate, e.opt.Unit, d, t.BatchSize)
	commS := CommSeconds(t.Params, d, net)
	frac := commFrac(commS, step, stepOK)
	return &option{typ: ti, degree: d, gpus: sortGPUs(gpus), spread: true, rate: rate, y: 1, cost: frac, commS: commS, frac: frac}
}

// canJoin reports whether t's d tasks may join group g on node n: same
// GPUs count, one node, fewer than MaxPerGPU jobs, memory fits.
func (e *Engine) canJoin(t *Task, g *group, d int, n *node) bool {
	return len(g.gpus) == d && !g.spread && len(g.members) < e.opt.Thresholds.MaxPerGPU &&
		memFits(t.MemoryGB, g.memGB, n.spec.MemoryGB)
}

// joinCost is the cost of t joining group g at level l, and t's predicted
// normalized throughput there. Next to several jobs a job's normalized
// throughput is the product of its pairwise ones (our choice: the data
// measure pairs only). Values are capped at 1 (clip1). ok is false when a
// pair may not share or a job would fall below Thresholds.MinNormalized.
// At the cluster level the cost is the throughput lost, t's (1 - y) plus
// what its partners lose; at the node level the slowdown added, t's (1/y
// - 1) plus the increase of its partners' slowdowns.
func (e *Engine) joinCost(l Level, t *Task, g *group) (cost, y float64, ok bool) {
	typ, d := e.types[g.typ], len(g.gpus)
	minY := e.opt.Thresholds.MinNormalized
	y = 1
	for _, m := range g.members {
		v, _, known := e.est.Normalized(l, t, m.Task, typ, d)
		if !known || !(v > 0) {
			return 0, 0, false
		}
		y *= clip1(v)
	}
	if y < minY {
		return 0, 0, false
	}
	if l == ClusterLevel {
		cost = 1 - y
	} else {
		cost = 1/y - 1
	}
	for _, m := range g.members {
		cur := 1.0
		for _, o := range g.members {
			if o != m {
				if v, _, known := e.est.Normalized(l, m.Task, o.Task, typ, d); known && v > 0 {
					cur *= clip1(v)
				}
			}
		}
		v, _, known := e.est.Normalized(l, m.Task, t, typ, d)
		if !known || !(v > 0) {
			return 0, 0, false
		}
		next := cur * clip1(v)
		if next < minY {
			return 0, 0, false
		}
		if l == ClusterLevel {
			cost += cur - next
		} else {
			cost += 1/next - 1/cur
		}
	}
	return cost, y, true
}
