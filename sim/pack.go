package sim

import (
	"math/rand/v2"
)

// greedyPack packs jobs Gandiva-style, ignoring interference. Waiting jobs
// are tried in arrival order, and one that does not fit does not block
// the others. A job takes free GPUs when some are (bestFree: the GPU type
// with the best estimated solo rate); when none are, it shares the GPUs
// of a job running alone there that it may share with (View.CanShare),
// choosing the GPU type where its estimated solo rate is highest, the
// lowest GPU on ties. It never stops or moves a job.
//
// With PackFirst it packs first and takes free GPUs only when it cannot
// pack: the densest reading of "packs when a GPU has room".
type greedyPack struct {
	Est       Rates // solo rates are all it uses
	PackFirst bool
}

// NewGreedyPack returns the greedy-pack policy deciding with est.
func NewGreedyPack(est Rates) *greedyPack { return &greedyPack{Est: est} }

// Name returns "greedy-pack".
func (*greedyPack) Name() string { return "greedy-pack" }

// Schedule places every waiting job that fits.
func (g *greedyPack) Schedule(v *View) (*Plan, error) {
	if v.Events&(Arrived|Finished) == 0 || len(v.Waiting) == 0 {
		return nil, nil
	}
	p := v.Plan()
	for j := range p.Untried() {
		if !p.Room() || p.AllMissed() {
			break
		}
		if news, ok := p.PlacedOnFreeSince(j); ok {
			// No room then: no free GPUs now, and only a job placed
			// since may be a partner.
			if !g.packAmong(p, j, PartnersAmong(p, j, news)) {
				p.Miss(j)
			}
			continue
		}
		placed := false
		if g.PackFirst {
			placed = g.pack(p, j) || g.free(p, j)
		} else {
			placed = g.free(p, j) || g.pack(p, j)
		}
		if !placed {
			p.Miss(j)
		}
	}
	return p, nil
}

func (g *greedyPack) free(p *Plan, j *Job) bool {
	gpus, _, ok := bestFree(p, j, g.Est)
	if ok {
		p.Place(j.ID, gpus...)
	}
	return ok
}

func (g *greedyPack) pack(p *Plan, j *Job) bool { return g.packAmong(p, j, Partners(p, j)) }

// packAmong places j next to the partner of ps, as Partners orders them,
// where est gives j the highest solo rate, the first on ties.
func (g *greedyPack) packAmong(p *Plan, j *Job, ps []int) bool {
	best, bestRate := -1, 0.0
	for _, r := range ps {
		sh := p.view.sim.shapeOf(p.GPUsOf(r))
		if rate, ok := g.Est.Solo(j.Workload, sh); ok && (best < 0 || rate > bestRate) {
			best, bestRate = r, rate
		}
	}
	if best < 0 {
		return false
	}
	p.Place(j.ID, p.GPUsOf(best)...)
	return true
}

// randomPack places each waiting job, in arrival order, on a placement
// drawn uniformly from those with room: for a one-GPU job every free GPU
// of a type that can run it and every GPU holding one job it may share
// with; for a larger job one free placement per GPU type (on one node
// when one has room, else spread) and every same-size set of GPUs held by
// one job it may share with. It ignores rates and interference, never
// stops or moves a job, and draws from its own seeded generator.
type randomPack struct {
	rng *rand.Rand
}

// newRandomPack returns the random-pack policy seeded with seed.
func newRandomPack(seed uint64) *randomPack {
	return &randomPack{rng: rand.New(rand.NewPCG(seed, 0x636f6c6f63))}
}

// Name returns "random-pack".
func (*randomPack) Name() string { return "random-pack" }

// Schedule places every waiting job that fits somewhere, at random.
func (rp *randomPack) Schedule(v *View) (*Plan, error) {
	if v.Events&(Arrived|Finished) == 0 || len(v.Waiting) == 0 {
		return nil, nil
	}
	p := v.Plan()
	for _, j := range v.Waiting {
		if !p.Room() {
			break
		}
		if p.missed(j) {
			continue
		}
		cands := rp.candidates(p, j)
		if len(cands) == 0 {
			p.Miss(j)
			continue
		}
		p.Place(j.ID, cands[rp.rng.IntN(len(cands))]...)
	}
	return p, nil
}

func (rp *randomPack) candidates(p *Plan, j *Job) [][]int {
	v, s := p.view, p.view.sim
	var out [][]int
	for ti, t := range v.Topology.Types() {
		if p.free[ti] < j.Scale {
			continue
		}
		if j.Scale == 1 {
			if !s.canRun(j.ID, ti, 1, false) {
				continue
			}
			for _, ni := range v.Topology.NodesOf(t) {
				for _, g := range v.Topology.Nodes[ni].GPUs {
					if p.isFree(g) {
						out = append(out, []int{g})
					}
				}
			}
			continue
		}
		if g, ok := FreeOnNode(p, t, j.Scale); ok && s.canRun(j.ID, ti, j.Scale, false) {
			out = append(out, g)
		} else if g, ok := FreeSpread(p, t, j.Scale); ok && s.canRun(j.ID, ti, j.Scale, s.shapeOf(g).Spread) {
			out = append(out, g)
		}
	}
	for _, r := range Partners(p, j) {
		out = append(out, p.GPUsOf(r))
	}
	return out
}
