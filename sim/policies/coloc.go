package policies

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim"
)

// Placement is the coloc placement applied online: at every arrival and
// completion it places the waiting jobs, in arrival order, with the
// placement engine of the export (package place: GPU type by
// predicted throughput, CLWP node, NLWP GPUs) on the cluster as it is
// then. A job that finds no placement waits; it does not block those
// behind it. It never stops or moves a running job. The simulator fixes
// each job's number of GPUs (the trace's scale factor), so the degree is
// not chosen. Two jobs share only when the simulator allows the pair at
// all (View.CanShare: it was measured, as a memory footprint would be) and
// both are estimated to keep Thresholds.MinNormalized.
//
// Coloc (NewColoc) and Oracle (NewOracle) differ only in the estimator.
type Placement struct {
	name   string
	est    func(v *sim.View) place.Estimator
	params func(workload string) float64
	th     policy.Thresholds
	eng    *place.Engine
	topo   *sim.Topology
	tasks  map[int]*place.Task
}

// NewPlacement returns the online placement policy called name, deciding
// with the estimator est returns for each scheduling point; params gives a
// workload's parameter count (0 when unknown) for the all-reduce cost;
// minNormalized is the co-location threshold (0: the default). The other
// thresholds are policy.DefaultThresholds, MaxPerGPU the simulator's.
func NewPlacement(name string, est func(v *sim.View) place.Estimator, params func(string) float64, minNormalized float64) *Placement {
	th := policy.DefaultThresholds
	if minNormalized > 0 {
		th.MinNormalized = minNormalized
	}
	if params == nil {
		params = knownParams
	}
	return &Placement{name: name, est: est, params: params, th: th, tasks: map[int]*place.Task{}}
}

// Name returns the policy's name.
func (p *Placement) Name() string { return p.name }

// Schedule places every waiting job that fits.
func (p *Placement) Schedule(v *sim.View) (*sim.Plan, error) {
	if v.Events&(sim.Arrived|sim.Finished) == 0 || len(v.Waiting) == 0 {
		return nil, nil
	}
	if err := p.init(v); err != nil {
		return nil, err
	}
	p.eng.Reset()
	for _, j := range v.Running {
		gpus := make([]place.GPU, len(j.GPUs))
		for i, g := range j.GPUs {
			gpu := v.Topology.GPUs[g]
			gpus[i] = place.GPU{Node: gpu.Node, Index: gpu.Index}
		}
		if _, err := p.eng.Occupy(p.task(j), gpus); err != nil {
			return nil, fmt.Errorf("job %d: %w", j.ID, err)
		}
	}
	plan := v.Plan()
	for _, j := range v.Waiting {
		if !plan.Room() {
			break
		}
		if plan.Missed(j) {
			continue
		}
		pl, _ := p.eng.Place(p.task(j))
		if pl == nil {
			plan.Miss(j)
			continue
		}
		ids := make([]int, len(pl.GPUs))
		for i, g := range pl.GPUs {
			ids[i] = v.Topology.Nodes[g.Node].GPUs[g.Index]
		}
		plan.Place(j.ID, ids...)
	}
	return plan, nil
}

// init builds the engine over the view's topology, once.
func (p *Placement) init(v *sim.View) error {
	if p.eng != nil && p.topo == v.Topology {
		p.eng.SetEstimator(p.est(v))
		return nil
	}
	nodes := make([]cluster.Node, len(v.Topology.Nodes))
	for i, n := range v.Topology.Nodes {
		nodes[i] = n.Node
	}
	th := p.th
	th.MaxPerGPU = v.MaxPerGPU()
	eng, err := place.New(nodes, p.est(v), place.Options{Thresholds: th, Unit: datasets.UnitItersPerS})
	if err != nil {
		return fmt.Errorf("policy %s: %w", p.name, err)
	}
	p.eng, p.topo = eng, v.Topology
	return nil
}

func (p *Placement) task(j *sim.Job) *place.Task {
	if t, ok := p.tasks[j.ID]; ok {
		return t
	}
	t := &place.Task{ID: strconv.Itoa(j.ID), Workload: j.Workload, Degrees: []int{j.Scale}, Params: p.params(j.Workload)}
	p.tasks[j.ID] = t
	return t
}

func knownParams(w string) float64 { return features.KnownModels[features.FamilyOf(w)].Params }

// NewColoc returns the coloc policy: the online placement with the fitted
// models' predictions (IASP at the cluster stage, IAPP at the node stage)
// for co-located rates and the measured solo rates (what profiling each
// job alone gives) for the rest. It never reads the simulator's
// co-located ground truth.
func NewColoc(solo sim.Rates, m *place.Models, minNormalized float64) *Placement {
	params := func(w string) float64 {
		if x := m.Params(w); x > 0 {
			return x
		}
		return knownParams(w)
	}
	est := &predicted{solo: solo, m: m}
	return NewPlacement("coloc", func(v *sim.View) place.Estimator { est.view = v; return est }, params, minNormalized)
}

// NewOracle returns the oracle: the same placement deciding with the
// simulator's ground truth, measured solo and co-located rates: what
// perfect predictions would give coloc's greedy placement. It is not an
// optimum; on a given trace coloc's errors can happen to do better.
func NewOracle(truth sim.Rates, minNormalized float64) *Placement {
	est := measured{truth}
	return NewPlacement("oracle", func(*sim.View) place.Estimator { return est }, nil, minNormalized)
}

// predicted estimates with solo rates and the models' predictions.
type predicted struct {
	solo sim.Rates
	m    *place.Models
	view *sim.View
}

func (p *predicted) Solo(t *place.Task, typ string, d int, spread bool) (float64, bool) {
	return p.solo.Solo(t.Workload, sim.Shape{GPUType: typ, GPUs: d, Spread: spread})
}

func (p *predicted) Normalized(l place.Level, t, q *place.Task, typ string, d int) (float64, string, bool) {
	if !p.view.CanShare(t.Workload, q.Workload, sim.Shape{GPUType: typ, GPUs: d}) {
		return 0, "", false
	}
	y, ok := p.m.Predict(l, t.Workload, q.Workload, typ, d)
	return y, "predicted:" + p.m.Name(l), ok
}

// measured estimates with the ground truth.
type measured struct{ truth sim.Rates }

func (m measured) Solo(t *place.Task, typ string, d int, spread bool) (float64, bool) {
	return m.truth.Solo(t.Workload, sim.Shape{GPUType: typ, GPUs: d, Spread: spread})
}

func (m measured) Normalized(_ place.Level, t, q *place.Task, typ string, d int) (float64, string, bool) {
	sh := sim.Shape{GPUType: typ, GPUs: d}
	co, ok := m.truth.Colocated(t.Workload, q.Workload, sh)
	solo, ok2 := m.truth.Solo(t.Workload, sh)
	if !ok || !ok2 || !(co > 0) || !(solo > 0) {
		return 0, "", false
	}
	return co / solo, "measured", true
}

// ColocRule returns coloc: the completion-time rule (Rule) with the
// measured solo rates and the node-level model's (IAPP) predicted
// normalized throughputs of the pairs the simulator allows (View.CanShare).
func ColocRule(solo sim.Rates, m *place.Models, d Durations, minNormalized float64) *Rule {
	pair := func(v *sim.View, w, q string, sh sim.Shape) (float64, bool) {
		if !v.CanShare(w, q, sh) {
			return 0, false
		}
		return m.Predict(place.NodeLevel, w, q, sh.GPUType, sh.GPUs)
	}
	return NewRule("coloc", solo, pair, d, minNormalized)
}

// OracleRule returns the oracle: the same rule with the simulator's
// measured solo and co-located rates.
func OracleRule(truth sim.Rates, d Durations, minNormalized float64) *Rule {
	pair := func(_ *sim.View, w, q string, sh sim.Shape) (float64, bool) {
		co, ok := truth.Colocated(w, q, sh)
		s, ok2 := truth.Solo(w, sh)
		if !ok || !ok2 || !(co > 0) || !(s > 0) {
			return 0, false
		}
		return co / s, true
	}
	return NewRule("oracle", sim.SoloOnly(truth), pair, d, minNormalized)
}

// newColoc builds coloc from the simulator's environment.
func newColoc(e sim.Env) (sim.Policy, error) {
	if e.Models == "" {
		return nil, errors.New("policy coloc needs --models, a directory written by 'coloc fit' (with iasp and iapp)")
	}
	m, err := place.LoadModels(e.Models, place.DefaultModelNames)
	if err != nil {
		return nil, fmt.Errorf("policy coloc: %w", err)
	}
	d, err := ParseDurations(e.Durations)
	if err != nil {
		return nil, err
	}
	r := ColocRule(e.Solo, m, d, e.MinNormalized)
	return r, r.SetOrder(e.Order)
}

func newOracle(e sim.Env) (sim.Policy, error) {
	if e.Truth == nil {
		return nil, errors.New("policy oracle needs the simulator's ground truth")
	}
	d, err := ParseDurations(e.Durations)
	if err != nil {
		return nil, err
	}
	r := OracleRule(e.Truth, d, e.MinNormalized)
	return r, r.SetOrder(e.Order)
}
