package decide

import (
	"cmp"
	"math"
	"slices"
)

// margin is how much clearer than a tie (relative) one option's progress
// per GPU must be for settled to take the greedy's choice as known: far
// above the rounding of index x rate x progress / degree (a few units in
// the last place), so that the greedy's order of a job's own options
// cannot differ from the order of their rates per GPU.
const margin = 1e-9

// rank finds, from the options' rates alone, what settled needs: an
// option's value is the job's index times its rate per GPU times a
// constant of the job, so the order of a job's own options, and whether
// its current one kept (times k) comes first, do not depend on the index.
func (a *soloOpts) rank(k float64) {
	n := len(a.opts)
	a.keeps = append(a.keeps[:0], make([]bool, n)...)
	a.grows = append(a.grows[:0], make([]bool, n)...)
	per := func(o *option) float64 { return o.rate / float64(o.d) }
	for i := range a.opts {
		o := &a.opts[i]
		kept := true
		for j := range a.opts {
			if j == i {
				continue
			}
			p := &a.opts[j]
			kept = kept && per(o)*k > per(p)*(1+margin)
			if p.rate > o.rate && (p.tid != o.tid || p.d > o.d) {
				a.grows[i] = true
			}
		}
		a.keeps[i] = kept
	}
	// The greedy's order of a job's own options: by value (rate per
	// GPU), ties in the order of the options (compareCands').
	a.order = a.order[:0]
	for i := range n {
		a.order = append(a.order, i)
	}
	slices.SortStableFunc(a.order, func(x, y int) int { return cmp.Compare(per(&a.opts[y]), per(&a.opts[x])) })
}

// chooser is a candidate that settled places by its options (one of
// index 0, or one that chooses among its options): its places in cands
// and all, and its current placement or its pick among its options (-1
// none).
type chooser struct{ k, i, at int32 }

// settled decides without the greedy when its outcome is known before it
// runs, and reports whether it could. That is when no pairs are weighed
// (the jobs' smallest degrees fit the cluster, or no GPU is shared), no
// job shares GPUs now, and each job's pick can be told from the rates
// and the order of a few values: a running job's current placement when,
// kept, it clearly beats its other options, or when each option that may
// come before it is on a type that the jobs placed there fill, each of
// them ahead of that option in the greedy's order; a waiting job's (or
// one running where none of its options is) first option, in the order
// of their values, that fits what is left, checked the same way; a job
// of index 0 its first option that fits after all the others, in the
// greedy's order of ties; and all those picks fit the GPUs of their types
// together.
// Then the greedy, whatever else the indices say, takes each job's pick
// first among its options and finds room for it, makeRoom and join find
// no job waiting, and growDegrees no faster option on the GPUs left. A
// critical job must be running where it is fastest. The running jobs
// keep their GPUs and the others are placed as placeAll places them,
// highest index first: the decision is the one choose and
// placeAll would give, at the cost of one pass over the candidates
// (TestSettledAgrees holds the two together).
func (c *Core) settled(st *State, all []ranked, top int, cands []int) (out []Placed, ok bool) {
	if c.opt.MaxPerGPU >= 2 {
		demand := 0
		for _, i := range cands {
			demand += all[i].j.Degrees[0]
		}
		if demand > len(c.topo.gpus) {
			return nil, false
		}
	}
	left := append(c.leftBuf[:0], make([]int, len(c.topo.types))...)
	for t, name := range c.topo.types {
		left[t] = c.topo.count[name]
	}
	c.leftBuf = left
	used := append(c.usedBuf[:0], make([]bool, len(st.GPUs))...)
	c.usedBuf = used
	// kf is the least keep factor: a running job's own (keepOf) is more
	// when it may end within the round. Checked with kf, a running job's
	// kept value and each type's first value are at most what the greedy
	// weighs, so every check below that passes would pass with the jobs'
	// own factors, and those that fail leave the decision to the greedy:
	// settled may give up where it need not, never decide otherwise.
	kf := c.keep()
	// first is, by type, the value at which the last job placed there
	// comes in the greedy's order (the critical job comes before all);
	// blocked holds the running jobs to check against it (their places
	// in all, and options).
	first := append(c.firstBuf[:0], make([]float64, len(c.topo.types))...)
	for t := range first {
		first[t] = math.Inf(1)
	}
	blocked := c.blockedBuf[:0]
	kept := c.keptBuf[:0] // the running jobs that stay, by place in all
	zeros := c.zeroBuf[:0]
	waits := c.waitsBuf[:0] // the jobs that choose among their options
	// The jobs placeAll finds GPUs for, by place in cands, and their
	// picks; and the picks with a faster option growDegrees may give.
	keys, picks := c.waitBuf[:0], c.optBuf[:0]
	grows := c.growBuf[:0]
	defer func() {
		c.firstBuf, c.blockedBuf, c.waitBuf, c.optBuf = first, blocked, keys, picks
		c.growBuf, c.keptBuf, c.zeroBuf, c.waitsBuf = grows, kept, zeros, waits
	}()
	for k, i := range cands {
		x := &all[i]
		j := x.j
		if !(x.index >= 0) || math.IsInf(x.index, 1) {
			return nil, false // not a number
		}
		prog := float64(x.ref.degree) / x.ref.rate
		a := c.soloOf(x)
		at := -1 // its current placement among its options
		if len(j.GPUs) > 0 {
			g0 := j.GPUs[0]
			for _, id := range c.byGPU[g0] {
				if id != j.ID {
					return nil, false // it shares
				}
			}
			cur := option{tid: int32(c.topo.tid[g0]), d: len(j.GPUs)}
			for _, g := range j.GPUs {
				cur.spread = cur.spread || c.topo.gpus[g].Node != c.topo.gpus[g0].Node
			}
			for o := range a.opts {
				if sameOpt(&a.opts[o], &cur) {
					at = o
				}
			}
		}
		if x.index == 0 {
			c.settledZeros++
			if i == top {
				return nil, false
			}
			zeros = append(zeros, chooser{k: int32(k), i: int32(i), at: int32(at)})
			continue
		}
		if at < 0 {
			// Waiting, or running where none of its options is (spread
			// where its option is on one node): choose weighs its
			// options as a waiting job's, and placeAll finds it GPUs.
			if i == top {
				return nil, false
			}
			if len(a.opts) > 0 {
				waits = append(waits, chooser{k: int32(k), i: int32(i)})
			}
			continue // with no option it cannot run: it waits
		}
		for _, g := range j.GPUs {
			if used[g] {
				return nil, false
			}
			used[g] = true
		}
		o := &a.opts[at]
		switch {
		case i == top:
			// choose places the critical job first, on its fastest
			// option (its current one on a tie), all GPUs free.
			for p := range a.opts {
				if a.opts[p].rate > o.rate && a.opts[p].d <= c.topo.count[c.topo.types[a.opts[p].tid]] {
					return nil, false
				}
			}
		default:
			first[o.tid] = min(first[o.tid], x.index*o.rate*prog/float64(o.d)*kf)
			if !a.keeps[at] {
				blocked = append(blocked, int32(i), int32(at))
			}
		}
		left[o.tid] -= o.d
		if a.grows[at] {
			grows = append(grows, growRef{a, int32(at)})
		}
		kept = append(kept, int32(i))
	}
	// The jobs that choose (waiting, or running where none of their
	// options is), by their best value: each is guessed to take its
	// first option, in the order of their values, that fits what is left;
	// the guess is checked with the others below.
	value := func(x *ranked, o *option) float64 {
		return x.index * o.rate * (float64(x.ref.degree) / x.ref.rate) / float64(o.d)
	}
	best := func(w chooser) float64 {
		x := &all[w.i]
		a := x.ref.solo
		return value(x, &a.opts[a.order[0]])
	}
	nRunning := len(blocked) / 2
	slices.SortFunc(waits, func(x, y chooser) int {
		if c := cmp.Compare(best(y), best(x)); c != 0 {
			return c
		}
		return cmp.Compare(x.k, y.k)
	})
	for w := range waits {
		x := &all[waits[w].i]
		a := x.ref.solo
		pick := -1
		for _, o := range a.order {
			if left[a.opts[o].tid] >= a.opts[o].d {
				pick = o
				break
			}
		}
		if pick < 0 {
			return nil, false // it waits, and makeRoom or join may act for it
		}
		o := a.opts[pick]
		left[o.tid] -= o.d
		first[o.tid] = min(first[o.tid], value(x, &o))
		if a.grows[pick] {
			grows = append(grows, growRef{a, int32(pick)})
		}
		keys = append(keys, waitKey{index: x.index, i: waits[w].k})
		picks = append(picks, o)
		blocked = append(blocked, waits[w].i, int32(pick))
		waits[w].at = int32(pick)
	}
	for _, n := range left {
		if n < 0 {
			return nil, false
		}
	}
	// A job stays on its pick (a running job where it is, kept) when every
	// option that may come before the pick in the greedy's order is on a
	// type that the jobs placed there fill, each of them coming before
	// that option: when such an option comes, it finds no room.
	for b := 0; b < len(blocked); b += 2 {
		x := &all[blocked[b]]
		a := x.ref.solo
		at := &a.opts[blocked[b+1]]
		kept := value(x, at)
		if b < 2*nRunning {
			kept *= kf // a running job's current option
		}
		for o := range a.opts {
			p := &a.opts[o]
			if p == at {
				continue
			}
			v := value(x, p)
			if v*(1+margin) <= kept {
				continue // it comes after the pick
			}
			if left[p.tid] >= p.d || v*(1+margin) >= first[p.tid] {
				return nil, false
			}
		}
	}
	// The jobs of index 0 come last in the greedy's order, all their
	// options at value 0: by arrival, then ID, each option in the order
	// of its type's name and its degree (compareCands), which is the
	// order of its options. Each takes the first that fits.
	slices.SortFunc(zeros, func(x, y chooser) int {
		a, b := all[x.i].j, all[y.i].j
		if c := cmp.Compare(a.Arrival, b.Arrival); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for _, z := range zeros {
		x := &all[z.i]
		a := x.ref.solo
		pick := -1
		for o := range a.opts {
			if left[a.opts[o].tid] >= a.opts[o].d {
				pick = o
				break
			}
		}
		if pick < 0 {
			if len(a.opts) > 0 {
				return nil, false // it waits, and makeRoom or join may act for it
			}
			continue
		}
		o := a.opts[pick]
		left[o.tid] -= o.d
		if a.grows[pick] {
			grows = append(grows, growRef{a, int32(pick)})
		}
		if int(z.at) == pick {
			for _, g := range x.j.GPUs {
				if used[g] {
					return nil, false
				}
				used[g] = true
			}
			kept = append(kept, z.i)
			continue
		}
		keys = append(keys, waitKey{index: 0, i: z.k})
		picks = append(picks, o)
	}
	// growDegrees gives a job a faster option only on GPUs left over.
	for _, g := range grows {
		at := &g.a.opts[g.at]
		for o := range g.a.opts {
			if p := &g.a.opts[o]; p.rate > at.rate && growsTo(at, p, left) {
				return nil, false
			}
		}
	}
	out = c.placed[:0]
	for _, i := range kept {
		out = append(out, Placed{c.posOf(int(i)), all[i].j.GPUs})
	}
	c.rankBuf = sortWait(c.rankBuf, keys)
	for _, r := range c.rankBuf {
		i := cands[keys[r].i]
		if g := c.freeGPUs(used, &picks[r], all[i].j.Workload, nil); g != nil {
			for _, y := range g {
				used[y] = true
			}
			out = append(out, Placed{c.posOf(i), g})
		}
	}
	slices.SortFunc(out, func(a, b Placed) int { return cmp.Compare(a.Job, b.Job) })
	c.placed = out
	return out, true
}
