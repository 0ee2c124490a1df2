package policies

import (
	"fmt"
	"math"
	"slices"

	"github.com/coloc-dev/coloc/internal/textlist"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/sim"
)

// SimilarityOptions are the settings of the similarity policy.
type SimilarityOptions struct {
	// K is the number of nearest profiled references a job is matched to;
	// 0 takes the fitted model's own (model.DefaultSimilarityOptions.K
	// unless the fit chose another).
	K int
	// SmallParams is the parameter count below which a model is small.
	// Jobs of small models may share GPUs with each other; all others
	// never share.
	SmallParams float64
}

// DefaultSimilarityOptions: the model's K, and models under 20 million
// parameters are small. The threshold sits between the CIFAR-size CNNs,
// LSTM language models, recommenders and RL agents (0.6 to 14 million
// parameters in features.KnownModels) and the ImageNet-size CNNs and
// Transformers (25 million and more), the usual line between models that
// leave much of a GPU idle at common batch sizes and models that fill it.
// It is a descriptor, known before a job runs; it ignores the batch size.
var DefaultSimilarityOptions = SimilarityOptions{K: 0, SmallParams: 20e6}

// Similarity is the model-similarity policy (Thanapol et al., ACIIDS 2023,
// and its round-based follow-up, Applied Sciences 2024). Every job is
// treated as a new one: it is matched to its K nearest profiled reference
// models by the fitted similarity model (its own workload left out, as
// `coloc similar` does for a known job), and the GPU types of the cluster
// are ranked by how well they suit those references: the mean, over the
// references, of their measured solo throughput on the type relative to
// their best type of the cluster (model.Similarity.Suggest's score,
// restricted to the cluster's types, at the job's number of GPUs, or at
// one GPU when no reference was measured at that number).
//
// Degree: the simulator fixes each job's number of GPUs (the trace's scale
// factor), so the degree the model suggests is not applied; only its GPU
// type ranking is.
//
// Starting jobs (at every arrival and completion): waiting jobs, in arrival
// order, each take free GPUs of the best-ranked type that has room for
// them (one node when one has room, else spread when the job can run
// spread); a job that does not fit does not block those behind it. Only
// when no type has room does a small-model job share the GPUs of a
// small-model job running alone there (View.CanShare must allow the pair),
// choosing the partner that maximises its estimated rate there (type score
// times its predicted co-located normalized throughput, lowest GPU on
// ties). Large models never share.
//
// Rounds (View.Events&sim.Round), while no job waits: running jobs move to
// free GPUs of a better-suited type, and a job that shares moves to free
// GPUs of a type suited at least as well. A free GPU goes to waiting jobs
// first: moving a running job onto it could keep a larger waiting job from
// assembling its GPUs. A move is made when it is estimated to finish the
// job earlier after paying the restart penalty:
//
//	R/r_now > R/r_new + View.RestartPenalty()
//
// with R the iterations left, r_now the job's rate where it runs (its
// measured solo rate there, Env.Solo, what a scheduler observes of a
// running job; times its predicted co-located normalized throughput when
// it shares) and r_new = solo rate there x score(new type) / score(its
// type): the references' relative speed. Of the possible moves the one
// saving most time goes first, then the next, each job at most once a
// round. Scores are fixed per workload, so a job never moves back.
//
// Co-located rates are never measured for the policy: the normalized
// throughput of a next to b is predicted from the measured pairs of a's
// references next to b's (a and b themselves left out), weighted as
// model.Similarity.Predict weighs them; with none, the mean of the slot's
// measured pairs; with none at all 0.5.
//
// A workload the model cannot describe (not in the model, no known model
// family) has no references: it ranks every type alike (by name), is not
// small, and never moves; Warnings names such workloads after a run. The
// policy draws no random numbers and iterates no map in a decision, so a
// run is the same for every seed.
type Similarity struct {
	Opts  SimilarityOptions
	solo  sim.Rates
	s     *suits
	byJob []*typeFit // by job ID, memo of s.fitOf
}

// NewSimilarity builds the similarity policy from the similarity model in
// models (a directory written by `coloc fit`) and the measured solo rates
// e.Solo; it never uses e.Truth.
func NewSimilarity(e sim.Env, models string, o SimilarityOptions) (*Similarity, error) {
	if models == "" {
		return nil, fmt.Errorf("policy similarity needs the fitted models: give --models, a directory written by 'coloc fit'")
	}
	ls, err := model.LoadDir(models, []string{"similarity"})
	if err != nil {
		return nil, fmt.Errorf("policy similarity: %w", err)
	}
	m, ok := ls[0].Model.(*model.Similarity)
	if !ok {
		return nil, fmt.Errorf("policy similarity: %s: model %q is not the similarity model", models, ls[0].File.Model)
	}
	return NewSimilarityFrom(m, ls[0].File.Space, e.Solo, o)
}

// newSimilarity is the similarity policy with the models of c, at the
// default options.
func newSimilarity(e sim.Env, c Config) (sim.Policy, error) {
	return NewSimilarity(e, c.Models, DefaultSimilarityOptions)
}

// NewSimilarityFrom builds the similarity policy from a loaded similarity
// model, its space, and measured solo rates.
func NewSimilarityFrom(m *model.Similarity, space *model.Space, solo sim.Rates, o SimilarityOptions) (*Similarity, error) {
	switch {
	case m == nil || space == nil:
		return nil, fmt.Errorf("policy similarity: no similarity model")
	case solo == nil:
		return nil, fmt.Errorf("policy similarity: no measured solo rates")
	case o.K < 0:
		return nil, fmt.Errorf("policy similarity: K = %d: want 0 (the model's) or more", o.K)
	case !(o.SmallParams >= 0) || math.IsInf(o.SmallParams, 0):
		return nil, fmt.Errorf("policy similarity: small-model threshold %v parameters: want a finite number >= 0", o.SmallParams)
	}
	k := o.K
	if k == 0 {
		k = m.Opts.K
	}
	if k < 1 {
		return nil, fmt.Errorf("policy similarity: the model has K = %d; give K", m.Opts.K)
	}
	return &Similarity{Opts: o, solo: solo, s: newSuits(m, space, k, o.SmallParams)}, nil
}

// Name returns "similarity".
func (*Similarity) Name() string { return "similarity" }

// Warnings lets the simulator collect the workloads met so far that the model
// could not describe, with why, in the order they were first met.
func (p *Similarity) Warnings() []string {
	var blind []string
	for _, d := range p.s.described() {
		if len(d.refs) == 0 {
			why := "no references"
			if d.err != nil {
				why = d.err.Error()
			}
			blind = append(blind, fmt.Sprintf("%s (%s)", d.name, why))
		}
	}
	if len(blind) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("policy similarity: %d workload(s) the model cannot describe, so their jobs rank every GPU type alike, count as not small and never move: %s", len(blind), textlist.Head(blind, 5, ", "))}
}

// Schedule starts waiting jobs after arrivals and completions and, at a
// round with no job waiting, moves running jobs to better-suited GPUs.
func (p *Similarity) Schedule(v *sim.View) (*sim.Plan, error) {
	start := v.Events&(sim.Arrived|sim.Finished) != 0 && len(v.Waiting) > 0
	round := v.Events&sim.Round != 0 && len(v.Running) > 0
	if !start && (!round || len(v.Waiting) > 0) {
		return nil, nil // moves wait until no job does
	}
	if p.s.setTypes(v.Topology.Types()) {
		p.byJob = nil
	}
	if !start && !p.mayMove(v) {
		return nil, nil
	}
	pl := v.Plan()
	waiting := len(v.Waiting)
	if start {
		waiting = p.start(pl, v)
	}
	if round && waiting == 0 {
		p.revise(pl, v)
	}
	return pl, nil
}

// fitFor returns how the cluster's types suit job j.
func (p *Similarity) fitFor(j *sim.Job) *typeFit {
	if j.ID < len(p.byJob) {
		if f := p.byJob[j.ID]; f != nil && f.scale == j.Scale && f.w.name == j.Workload {
			return f
		}
	}
	f := p.s.fitOf(j.Workload, j.Scale)
	for len(p.byJob) <= j.ID {
		p.byJob = append(p.byJob, nil)
	}
	p.byJob[j.ID] = f
	return f
}

// start places waiting jobs in arrival order and returns how many still
// wait.
func (p *Similarity) start(pl *sim.Plan, v *sim.View) int {
	left := len(v.Waiting)
	for j := range pl.Untried() {
		if !pl.Room() || pl.AllMissed() {
			break
		}
		placed := false
		if news, ok := pl.PlacedOnFreeSince(j); ok {
			// No room then: no free GPUs now, and only a job placed
			// since may be a partner.
			placed = p.fitFor(j).w.small && p.share(pl, v, j, sim.PartnersAmong(pl, j, news))
		} else {
			placed = p.place(pl, v, j)
		}
		if placed {
			left--
		} else {
			pl.Miss(j)
		}
	}
	return left
}

// place starts job j on free GPUs of its best-ranked type with room or,
// for a small model when no type has room, next to a small-model job.
func (p *Similarity) place(pl *sim.Plan, v *sim.View, j *sim.Job) bool {
	f := p.fitFor(j)
	for _, ti := range f.rank {
		if g, ok := p.freeOn(pl, v, f, j, ti); ok {
			pl.Place(j.ID, g...)
			return true
		}
	}
	if !f.w.small {
		return false
	}
	return p.share(pl, v, j, sim.Partners(pl, j))
}

// share places small-model job j next to the small-model job of partners
// (sim.Partners' order) where its estimated rate is highest, the first on
// ties.
func (p *Similarity) share(pl *sim.Plan, v *sim.View, j *sim.Job, partners []int) bool {
	f := p.fitFor(j)
	if !f.w.small {
		return false
	}
	best, bestRate := -1, 0.0
	for _, r := range partners {
		rj := v.Job(r)
		if rj == nil || !p.fitFor(rj).w.small {
			continue
		}
		typ := v.Topology.GPUs[pl.GPUsOf(r)[0]].Type
		score := f.score[slices.Index(p.s.types, typ)]
		if math.IsNaN(score) {
			score = 0
		}
		rate := score * p.s.colocated(j.Workload, rj.Workload, typ, j.Scale)
		if best < 0 || rate > bestRate {
			best, bestRate = r, rate
		}
	}
	if best < 0 {
		return false
	}
	pl.Place(j.ID, pl.GPUsOf(best)...)
	return true
}

// freeOn returns free GPUs of type index ti for job j: on one node when
// one has room and j can run there, else spread over nodes when j can run
// spread.
func (p *Similarity) freeOn(pl *sim.Plan, v *sim.View, f *typeFit, j *sim.Job, ti int) ([]int, bool) {
	t := p.s.types[ti]
	if pl.FreeOf(t) < j.Scale {
		return nil, false
	}
	if p.canRun(v, f, j, ti, false) {
		if g, ok := sim.FreeOnNode(pl, t, j.Scale); ok {
			return g, true
		}
	}
	if j.Scale > 1 && p.canRun(v, f, j, ti, true) {
		if g, ok := sim.FreeSpread(pl, t, j.Scale); ok {
			if sh, err := v.Topology.ShapeOf(g); err == nil && sh.Spread {
				return g, true
			}
		}
	}
	return nil, false
}

func (p *Similarity) canRun(v *sim.View, f *typeFit, j *sim.Job, ti int, spread bool) bool {
	i := 0
	if spread {
		i = 1
	}
	if f.canRun[ti][i] == 0 {
		f.canRun[ti][i] = 2
		if v.CanRun(j.Workload, sim.Shape{GPUType: p.s.types[ti], GPUs: j.Scale, Spread: spread}) {
			f.canRun[ti][i] = 1
		}
	}
	return f.canRun[ti][i] == 1
}

// revise moves running jobs to better-suited free GPUs, the largest
// estimated saving first, each job at most once.
func (p *Similarity) revise(pl *sim.Plan, v *sim.View) {
	penalty := v.RestartPenalty()
	moved := map[int]bool{}
	for p.anyFree(pl) {
		best, bestSave := -1, 0.0
		var bestGPUs []int
		for _, j := range v.Running {
			if moved[j.ID] {
				continue
			}
			if g, save, ok := p.better(pl, v, j, penalty); ok && save > bestSave {
				best, bestSave, bestGPUs = j.ID, save, g
			}
		}
		if best < 0 {
			return
		}
		pl.Place(best, bestGPUs...)
		moved[best] = true
	}
}

// mayMove reports whether some running job has free GPUs of a type that
// suits it better (or as well, when it shares) than where it runs: a
// cheap test, without a plan, of whether a round can move anything.
func (p *Similarity) mayMove(v *sim.View) bool {
	free := make([]bool, len(p.s.types))
	anyFree := false
	for g, gpu := range v.Topology.GPUs {
		if len(v.JobsOn(g)) == 0 {
			free[slices.Index(p.s.types, gpu.Type)] = true
			anyFree = true
		}
	}
	if !anyFree {
		return false
	}
	for _, j := range v.Running {
		f := p.fitFor(j)
		sa := f.score[slices.Index(p.s.types, v.Topology.GPUs[j.GPUs[0]].Type)]
		if !(sa > 0) {
			continue
		}
		shared := len(v.JobsOn(j.GPUs[0])) > 1
		for ti, st := range f.score {
			if free[ti] && (st > sa || (shared && st == sa)) {
				return true
			}
		}
	}
	return false
}

func (p *Similarity) anyFree(pl *sim.Plan) bool {
	for _, t := range p.s.types {
		if pl.FreeOf(t) > 0 {
			return true
		}
	}
	return false
}

// better returns the move of running job j that saves the most estimated
// time after the restart penalty, if any saves time.
func (p *Similarity) better(pl *sim.Plan, v *sim.View, j *sim.Job, penalty float64) ([]int, float64, bool) {
	cur := pl.GPUsOf(j.ID)
	if len(cur) == 0 {
		return nil, 0, false
	}
	f := p.fitFor(j)
	typ := v.Topology.GPUs[cur[0]].Type
	a := slices.Index(p.s.types, typ)
	sa := f.score[a]
	if !(sa > 0) {
		return nil, 0, false
	}
	var partner *sim.Job
	for _, o := range pl.JobsOn(cur[0]) {
		if o != j.ID {
			partner = v.Job(o)
		}
	}
	if partner == nil && !(f.score[f.rank[0]] > sa) {
		return nil, 0, false // alone on a type suited best already
	}
	sh, err := v.Topology.ShapeOf(cur)
	if err != nil {
		return nil, 0, false
	}
	r0, ok := p.solo.Solo(j.Workload, sh)
	if !ok || !(r0 > 0) {
		return nil, 0, false
	}
	left := float64(j.Steps) - j.Done
	if !(left > 0) {
		return nil, 0, false
	}
	now, shared := r0, partner != nil
	if shared {
		now = r0 * p.s.colocated(j.Workload, partner.Workload, typ, j.Scale)
	}
	for _, ti := range f.rank {
		st := f.score[ti]
		if math.IsNaN(st) || st < sa {
			break // ranked best first: no better type follows
		}
		if st == sa && !shared {
			continue
		}
		g, ok := p.freeOn(pl, v, f, j, ti)
		if !ok {
			continue
		}
		if save := left/now - (left/(r0*st/sa) + penalty); save > 0 {
			return g, save, true
		}
		return nil, 0, false // lower-ranked types save less
	}
	return nil, 0, false
}
