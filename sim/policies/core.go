package policies

import (
	"errors"
	"fmt"
	"slices"

	"github.com/coloc-dev/coloc/place/decide"
	"github.com/coloc-dev/coloc/sim"
)

// corePolicy runs the decision core (package place/decide) in the
// simulator: at every scheduling point it tells the core of the jobs that
// completed since, hands it the cluster and its jobs, and turns its
// answer into a plan (stop the running jobs it moves or pauses, place the
// others).
type corePolicy struct {
	name      string
	core      *decide.Core
	durations string
	estimate  func(j *sim.Job) float64
	estimates map[int]float64 // by job ID: drawn once, asked at every call
	gpus      []decide.GPU
	solo      sim.Rates
	pair      PairRate
	floor     float64
	// alone keeps every job on GPUs of its own (sharing off), whatever
	// the simulator allows.
	alone bool
	// allow, when set, restricts a job's degrees to its list's (export).
	allow map[int][]int
	view  *sim.View    // during Schedule
	jobs  []decide.Job // the last state's jobs, reused
}

// coreRates adapts the simulator's estimators to the core's Rates.
type coreRates struct {
	p *corePolicy
}

func (r coreRates) Solo(w, t string, gpus int, spread bool) (float64, bool) {
	v, ok := r.p.solo.Solo(w, sim.Shape{GPUType: t, GPUs: gpus, Spread: spread && gpus > 1})
	return v, ok && v > 0
}

func (r coreRates) Pair(w, q, t string, gpus int) (float64, bool) {
	y, ok := r.p.pair(r.p.view, w, q, sim.Shape{GPUType: t, GPUs: gpus})
	if !ok || y < r.p.floor {
		return 0, false
	}
	return y, true
}

func (p *corePolicy) Name() string { return p.name }

func (p *corePolicy) Schedule(v *sim.View) (*sim.Plan, error) {
	if err := p.start(v); err != nil {
		return nil, err
	}
	for _, j := range v.Finished {
		p.core.Observe(p.job(j), float64(j.Steps))
	}
	// The state's job list is reused from one decision to the next (the
	// core keeps nothing of it), grown once to its size: appending a
	// million waiting jobs to an empty list would copy it a dozen times.
	st := &decide.State{Now: v.Now, GPUs: p.gpus, Jobs: slices.Grow(p.jobs[:0], len(v.Running)+len(v.Waiting))}
	for _, set := range [][]*sim.Job{v.Running, v.Waiting} {
		for _, j := range set {
			st.Jobs = append(st.Jobs, p.job(j))
		}
	}
	p.jobs = st.Jobs
	// The answer is in the state's order: the running jobs (the first
	// len(v.Running) places), then the waiting ones.
	out := p.core.Assign(st)
	plan := v.Plan()
	k := 0
	for i, j := range v.Running {
		var g []int
		if k < len(out) && out[k].Job == i {
			g = out[k].GPUs
			k++
		}
		if !decide.SameGPUs(g, j.GPUs) {
			plan.Stop(j.ID)
		}
	}
	for _, x := range out {
		if x.Job < len(v.Running) {
			if j := v.Running[x.Job]; !decide.SameGPUs(x.GPUs, j.GPUs) {
				plan.Place(j.ID, x.GPUs...)
			}
			continue
		}
		plan.Place(v.Waiting[x.Job-len(v.Running)].ID, x.GPUs...)
	}
	return plan, nil
}

// start makes the core at the first call and points the rates at v.
func (p *corePolicy) start(v *sim.View) error {
	p.view = v
	if p.core != nil {
		return nil
	}
	perGPU := v.MaxPerGPU()
	if p.alone {
		perGPU = 1
	}
	c, err := decide.New(coreRates{p}, decide.Options{RestartPenalty: v.RestartPenalty(), Round: v.Round(), MaxPerGPU: perGPU, Durations: p.durations})
	if err != nil {
		return fmt.Errorf("policy %s: %w", p.name, err)
	}
	p.core = c
	for _, g := range v.Topology.GPUs {
		p.gpus = append(p.gpus, decide.GPU{Node: g.Node, Type: g.Type})
	}
	return nil
}

// job is what the core sees of j: its size only as the durations mode
// allows (nothing, a user's estimate, or the truth).
func (p *corePolicy) job(j *sim.Job) decide.Job {
	d := decide.Job{ID: j.ID, Workload: j.Workload, Arrival: j.Arrival, Degrees: allowed(j.Degrees, p.allow, j.ID), GPUs: j.GPUs, Done: j.Done}
	switch p.durations {
	case decide.Known:
		d.Work = float64(j.Steps)
	case decide.Estimate:
		w, ok := p.estimates[j.ID]
		if !ok {
			w = p.estimate(j)
			p.estimates[j.ID] = w
		}
		d.Work = w
	}
	return d
}

// newCorePolicy builds a core policy named name deciding pairs with pair,
// with the durations, order, floor and estimates of c (checked by
// c.Check).
func newCorePolicy(name string, e sim.Env, c Config, pair PairRate) (sim.Policy, error) {
	dur := c.Durations
	if dur == "" {
		dur = decide.Attained
	}
	if c.Order != "" && c.Order != OrderShortest {
		return nil, fmt.Errorf("policy %s: order %q: coloc orders jobs by their Gittins index (docs/simulation.md); --order is coloc-rule's and oracle-rule's", name, c.Order)
	}
	p := &corePolicy{name: name, durations: dur, solo: e.Solo, pair: pair, floor: c.MinNormalized}
	if dur == decide.Estimate {
		p.estimate = func(j *sim.Job) float64 { return sim.Estimate(j, e.Seed, c.EstimateMedian, c.EstimateSigma) }
		p.estimates = map[int]float64{}
	}
	return p, nil
}

// newColoc is coloc: the decision core with the measured solo rates and
// the fitted models' predicted normalized throughputs (IAPP).
func newColoc(e sim.Env, c Config) (sim.Policy, error) {
	m, err := loadModels("coloc", c)
	if err != nil {
		return nil, err
	}
	return newCorePolicy("coloc", e, c, predictedPair(m))
}

// newColocNoSharing is coloc with sharing off: what the interference
// predictions are worth, measured in one run beside coloc.
func newColocNoSharing(e sim.Env, c Config) (sim.Policy, error) {
	m, err := loadModels("coloc-no-sharing", c)
	if err != nil {
		return nil, err
	}
	p, err := newCorePolicy("coloc-no-sharing", e, c, predictedPair(m))
	if err != nil {
		return nil, err
	}
	p.(*corePolicy).alone = true
	return p, nil
}

// colocDeciding is coloc deciding on the job sizes durations gives,
// whatever --durations says, under the name name: a variant beside coloc
// in one run.
func colocDeciding(name, durations string) builder {
	return func(e sim.Env, c Config) (sim.Policy, error) {
		m, err := loadModels(name, c)
		if err != nil {
			return nil, err
		}
		c.Durations = durations
		return newCorePolicy(name, e, c, predictedPair(m))
	}
}

// newColocEstimate is coloc deciding on users' estimates of job sizes
// (--durations estimate): the requested time limits of a batch cluster.
var newColocEstimate = colocDeciding("coloc-estimate", decide.Estimate)

// newColocKnown is coloc deciding on the true job sizes (--durations
// known): a foresight reference, not a peer and not a policy a cluster
// could run. It shows how much of a goal over the peers is within reach
// of the core at all when sizes are known, so that what is left to the
// priority with sizes unknown reads off the page.
var newColocKnown = colocDeciding("coloc-known", decide.Known)

// newOracle is the oracle: the decision core with the measured pair
// rates (perfect predictions), each perturbed by --oracle-noise.
func newOracle(e sim.Env, c Config) (sim.Policy, error) {
	if e.Truth == nil {
		return nil, errors.New("policy oracle needs the simulator's ground truth")
	}
	return newCorePolicy("oracle", e, c, measuredPair(e.Truth, c.OracleNoise, e.Seed))
}
