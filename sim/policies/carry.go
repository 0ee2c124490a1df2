package policies

import (
	"slices"

	"github.com/coloc-dev/coloc/sim"
)

// Most of what a scheduling call finds about the jobs running alone is
// what the previous call found: a call places a few jobs and a
// completion frees a few GPUs. The rule therefore keeps the lone jobs
// (by degree) and the partner lists (by workload and degree) that the
// first plans of the calls found before placing anything, and brings
// them up to date at the next call instead of finding them anew:
//
//   - a lone list is walked beside the simulator's lone jobs now (both in
//     GPU order): a job still alone on the same GPUs keeps its
//     description and the generation in which it was found (born), the
//     others are dropped or described, and a list that changed gets a new
//     generation;
//   - a partner list, when a plan first asks for it in a call, keeps the
//     partners still alone, asks the pair's (remembered) rates of the
//     jobs found alone since the generation it was made at, and estimates
//     every partner's remaining work again;
//   - a plan that has already placed jobs when it first asks for a
//     partner list takes the carried list and replays its placements on
//     it, as reviseShares would have (after a move, it finds the list
//     anew, as reviseShares forgets every list then).
//
// The lists are those found anew: TestRuleIndexesMatchScan compares every
// job's result with the plain scan (Rule.plain, which carries nothing).

// carried is what the rule keeps between scheduling calls.
type carried struct {
	gen    uint64 // advanced whenever a lone list changes
	call   uint64 // the scheduling calls that placed waiting jobs
	lones  map[int]*carriedLones
	shares byKey[*carriedShares]
}

// carriedLones is the lone list of one degree: current for call.
type carriedLones struct {
	ls, kinds []loneInfo
	spare     []loneInfo // the array of an earlier list, to reuse
	gen, call uint64
}

// carriedShares is a partner list made from the lone list of generation
// gen, with the partners' remaining work as of call.
type carriedShares struct {
	rep       *sim.Job
	cs        []shareCand
	gen, call uint64
}

// placement is one change a plan made (planState.place).
type placement struct {
	id      int
	gpus    []int
	partner int
	moved   bool
}

// found keeps the lone list lonesOf found for degree d before the plan
// placed anything.
func (c *carried) found(r *Rule, d int, ls, kinds []loneInfo) {
	if c.lones == nil {
		c.lones = map[int]*carriedLones{}
	}
	c.gen++
	for i := range ls {
		ls[i].born = c.gen
	}
	// Without spare capacity: plans append to the kinds they are given
	// (addKind), which must not write into each other's.
	c.lones[d] = &carriedLones{ls: slices.Clip(ls), kinds: slices.Clip(kinds), gen: c.gen, call: c.call}
}

// carryOver starts a call: the carried lone lists are brought up to date
// with the placement now and given to the first plan ps (and its base).
func (r *Rule) carryOver(ps *planState) {
	c := &r.carry
	c.call++
	if r.plain || len(c.lones) == 0 {
		return
	}
	b := ps.base
	b.lones, b.kinds = make(map[int][]loneInfo, len(c.lones)), make(map[int][]loneInfo, len(c.lones))
	for d, cl := range c.lones {
		if now, changed := ps.reviseLoneList(r, cl.ls, cl.spare[:0], d, c.gen+1); changed {
			c.gen++
			// The list of the last call becomes the next one's buffer:
			// only the plans of this call will hold now.
			cl.ls, cl.spare, cl.gen = now, cl.ls, c.gen
			r.kindGen++
			var kinds []loneInfo
			for _, li := range now {
				if r.newKind(li) {
					kinds = append(kinds, li)
				}
			}
			cl.kinds = slices.Clip(kinds)
		}
		cl.call = c.call
		b.lones[d], b.kinds[d] = cl.ls, cl.kinds
	}
	ps.startFrom(*b)
}

// reviseLoneList returns the jobs running alone on d GPUs in ps's plan,
// described as lonesOf does, reusing the descriptions of was for the
// jobs still alone on the same GPUs and marking the others born gen;
// changed is false when the list is was.
func (ps *planState) reviseLoneList(r *Rule, was, buf []loneInfo, d int, gen uint64) ([]loneInfo, bool) {
	now, i, changed := buf[:0], 0, false
	for _, q := range ps.loneAt(d) {
		gpus := ps.p.GPUsOf(q)
		for i < len(was) && was[i].gpus[0] < gpus[0] {
			i, changed = i+1, true // no longer alone there
		}
		if i < len(was) && was[i].q == q && slices.Equal(was[i].gpus, gpus) {
			now = append(now, was[i])
			i++
			continue
		}
		if i < len(was) && was[i].gpus[0] == gpus[0] {
			i++ // another job is alone there now
		}
		changed = true
		if li, ok := ps.loneOf(r, q); ok {
			li.born = gen
			now = append(now, li)
		}
	}
	if !changed && i == len(was) {
		return was, false
	}
	return now, true
}

// plan returns the partners of j's workload at degree k.d in ps's plan
// from the carried lists, ok false when it cannot (nothing carried for
// the degree in this call, the rule in plain mode, or a job moved in the
// plan).
func (c *carried) plan(ps *planState, r *Rule, j *sim.Job, k shareKey) ([]shareCand, bool) {
	cl := c.lones[k.d]
	if r.plain || cl == nil || cl.call != c.call {
		return nil, false
	}
	s := c.partners(ps, r, j, k, cl)
	cs, copied, ok := ps.replay(r, s.rep, s.cs, k.d)
	if !ok {
		return nil, false
	}
	ps.shares.put(k, &shareList{rep: s.rep, cs: cs, shared: !copied}, len(r.wids))
	return cs, true
}

// partners returns the carried partner list of k, brought up to date
// with the lone list cl of this call (made when nothing was carried).
func (c *carried) partners(ps *planState, r *Rule, j *sim.Job, k shareKey, cl *carriedLones) *carriedShares {
	s := c.shares.at(k)
	switch {
	case s == nil:
		s = &carriedShares{rep: j, cs: r.partnersAmong(ps, j, k.wid, cl.ls, cl.kinds)}
		c.shares.put(k, s, len(r.wids))
	case s.call == c.call:
		return s
	case s.gen == cl.gen:
		// The lone jobs are those it was made from: only their remaining
		// work changed. No plan of this call has read the list yet.
		for i := range s.cs {
			s.cs[i].wq = r.remaining(ps.v.Job(s.cs[i].q), s.cs[i].sq)
		}
	default:
		s.cs = r.revisePartners(ps, s, cl.ls)
	}
	s.gen, s.call = cl.gen, c.call
	return s
}

// revisePartners returns the partners of s's workload among the lone jobs
// now: those of s.cs still alone, and those of the jobs found alone since
// s was made that may share with it.
func (r *Rule) revisePartners(ps *planState, s *carriedShares, now []loneInfo) []shareCand {
	out := r.candBuf[:0]
	cs, k := s.cs, 0
	wid := r.widOf(s.rep)
	for _, li := range now {
		for k < len(cs) && cs[k].first < li.gpus[0] {
			k++ // no longer alone
		}
		if li.born > s.gen {
			if k < len(cs) && cs[k].first == li.gpus[0] {
				k++ // the partner that was alone there
			}
			if c, ok := r.pairing(ps, s.rep, wid, li); ok {
				out = append(out, c)
			}
			continue
		}
		if k < len(cs) && cs[k].q == li.q {
			c := cs[k]
			c.wq = r.remaining(ps.v.Job(c.q), c.sq)
			out = append(out, c)
			k++
		}
	}
	// Into s.cs's own array: no plan of this call has it yet, and the
	// plans of earlier calls are gone.
	res := append(s.cs[:0], out...)
	clear(out)
	r.candBuf = out[:0]
	return res
}

// replay applies the plan's placements so far to base, a partner list of
// rep's workload at degree d from before them, as reviseShares would
// have; ok false after a move. base is returned unchanged (not copied)
// when no placement was of degree d; copied tells.
func (ps *planState) replay(r *Rule, rep *sim.Job, base []shareCand, d int) (cs []shareCand, copied, ok bool) {
	cs = base
	for _, pl := range ps.log {
		if pl.moved {
			return nil, false, false
		}
		if len(pl.gpus) != d {
			continue
		}
		if !copied {
			cs, copied = slices.Clone(base), true
		}
		if pl.partner >= 0 {
			cs = slices.DeleteFunc(cs, func(c shareCand) bool { return c.q == pl.partner })
			continue
		}
		c, ok := ps.shareWith(r, rep, pl.id)
		if !ok {
			continue
		}
		i, _ := slices.BinarySearchFunc(cs, c.first, func(x shareCand, g int) int { return x.first - g })
		cs = slices.Insert(cs, i, c)
	}
	return cs, copied, true
}
