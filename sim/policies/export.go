package policies

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim"
)

// RuleExport takes the decisions of `coloc policy export` with coloc's
// completion-time rule: the decisions the simulator's coloc policy takes
// at its first scheduling point, on the empty cluster, with every job of
// the list waiting at time 0 (a snapshot, as the list is placed at once).
// It runs the same code (Rule.Schedule inside sim.Run) on:
//
//   - the measured solo rates of the export's data and the node-level
//     model's predicted normalized throughputs (ColocRule); a pair may
//     share only where the data hold a status-ok measurement of it, the
//     simulator's rule;
//   - each job's allowed degrees that the data measured, on any GPU type;
//   - its steps, or its duration turned into steps at its measured rate
//     (sim.TraceJobs, as `coloc simulate` reads a job list);
//   - the workload that stands for it (its own, or its nearest reference).
//
// A job the rule leaves waiting gets status waiting, with the GPUs it
// waits for and its predicted start. Memory is not checked by the rule:
// the simulator has no memory model.
type RuleExport struct {
	Durations     Durations
	Order         string // OrderShortest or OrderArrival
	MinNormalized float64
	MaxPerGPU     int // 1 or 2
	// Efficiency turns a duration into steps (sim.TraceJobs).
	Efficiency float64
	// AssumeMultiGPUPairs lets jobs share k > 1 GPUs where the data did
	// not measure their pair at k, at the one-GPU pair's normalized
	// throughputs (the simulator's assumption, assumedData); decisions
	// that rest on it are marked assumed.
	AssumeMultiGPUPairs bool
}

// Decider returns the export's place.Decider: x itself.
func (x RuleExport) Decider() place.Decider { return x }

// Objective is what the rule's decisions minimise, as the policy file
// records it.
func (x RuleExport) Objective() *policy.Objective {
	order := x.Order
	if order == "" {
		order = OrderShortest
	}
	return &policy.Objective{Rule: policy.RuleCompletionTime, Durations: x.Durations.String(), Order: order, MinNormalized: x.MinNormalized,
		Minimize: "the sum of the predicted completion times of the jobs each decision touches (the job and, when it shares, its partner): the average JCT"}
}

// errSnapshot stops the replay after its first scheduling point.
var errSnapshot = errors.New("snapshot taken")

// Decide takes the rule's decisions (place.Decider).
func (x RuleExport) Decide(in place.Input, js []place.Resolved, emit func(policy.Decision) error) error {
	if x.MaxPerGPU != 1 && x.MaxPerGPU != 2 {
		return fmt.Errorf("max jobs per GPU %d: the completion-time rule shares a GPU between two jobs at most (1 or 2)", x.MaxPerGPU)
	}
	ex, err := newExportRun(in, js, x.AssumeMultiGPUPairs, x.Efficiency)
	if err != nil {
		return err
	}
	rule := ColocRule(ex.rates, in.Models, x.Durations, x.MinNormalized)
	if err := rule.SetOrder(x.Order); err != nil {
		return err
	}
	rule.keep, rule.allow = true, ex.allow
	snap := &snapshot{inner: rule, rule: rule, soloOn: rule.soloOn, pairOf: rule.pairOf}
	opt := sim.DefaultOptions
	opt.Round = 0
	return ex.run(snap, opt, x.MaxPerGPU, emit)
}

// exportRun is a job list made a trace the simulator replays up to its
// first scheduling point: every job at time 0, allowed its list's
// degrees, on the export's data as the simulator's rates. It keeps a few
// words a job beside the list: the replay's trace, and which list job
// each simulated job is. CoreExport's has no trace: it does not replay
// (admitList).
type exportRun struct {
	js      []place.Resolved
	topo    *sim.Topology
	rates   sim.Rates
	ids     []int          // list index of each simulated job
	reasons map[int]string // why a list job is not simulated, by list index
	trace   []sim.TraceJob
	// allow narrows a simulated job's degrees to its list's; a job
	// allowed every degree up to its largest has no entry (the replay
	// gives it no other).
	allow map[int][]int
}

func newExportRun(in place.Input, js []place.Resolved, assume bool, efficiency float64) (*exportRun, error) {
	ex, err := admitList(in, js, assume, efficiency, func(ex *exportRun, tj sim.TraceJob, ds []int) {
		if ex.trace == nil {
			ex.trace = make([]sim.TraceJob, 0, len(js))
		}
		if !everyDegreeTo(ds) {
			ex.allow[len(ex.trace)] = ds
		}
		ex.trace = append(ex.trace, tj)
	})
	if err != nil {
		return nil, err
	}
	return ex, nil
}

// admitList is an exportRun without its trace: add is given, in list
// order, each job the policy can consider (it becomes the replay's job
// len(ex.ids), and is added to ids after add returns), as a trace job at
// time 0 asking its largest allowed degree, with its list's degrees.
func admitList(in place.Input, js []place.Resolved, assume bool, efficiency float64, add func(ex *exportRun, tj sim.TraceJob, ds []int)) (*exportRun, error) {
	topo, err := sim.NewTopology(in.Cluster)
	if err != nil {
		return nil, err
	}
	ex := &exportRun{js: js, topo: topo, rates: dataRates{in.Data}, reasons: map[int]string{}, allow: map[int][]int{}, ids: make([]int, 0, len(js))}
	if assume {
		ex.rates = assumedData{dataRates{in.Data}}
	}
	// The jobs the policy can consider, with the workload standing for each.
	for i, r := range js {
		if r.Workload == "" {
			continue
		}
		if !runnable(topo, ex.rates, r.Workload, r.Job.Degrees) {
			ex.reasons[i] = fmt.Sprintf("no GPU type of the cluster has a measured rate for %s at an allowed degree (%s) on as many GPUs as it has", r.Workload, joinDegrees(r.Job.Degrees))
			continue
		}
		j := *r.Job
		j.Workload = r.Workload
		tj, _ := sim.TraceJobOf(&j, topo, ex.rates, efficiency)
		tj.Arrival, tj.Scale = 0, slices.Max(j.Degrees)
		add(ex, tj, j.Degrees)
		ex.ids = append(ex.ids, i)
	}
	return ex, nil
}

// everyDegreeTo reports whether ds (ascending, distinct) holds every
// degree from 1 to its largest: then no degree the replay gives a job of
// request max(ds) is one its list forbids.
func everyDegreeTo(ds []int) bool { return ds[len(ds)-1] == len(ds) }

// run replays up to the first scheduling point under snap and gives emit
// the decision of every job of the list, in order.
func (ex *exportRun) run(snap *snapshot, opt sim.Options, perGPU int, emit func(policy.Decision) error) error {
	// Degrees up to the request only: allow is kept for lists that narrow
	// them (newExportRun).
	opt.Degree, opt.MaxPerGPU, opt.MaxDegree = sim.DegreePolicy, perGPU, 0
	snap.jobs = len(ex.trace)
	if _, err := sim.Run(ex.topo, ex.trace, ex.rates, snap, opt); err != nil && !errors.Is(err, errSnapshot) {
		return err
	}
	// The snapshot holds what the decisions need: the policy, the replay
	// and its trace go (the decision core holds some hundreds of bytes for
	// each job it saw).
	if snap.rule == nil {
		snap.inner = nil
	}
	snap.soloOn, snap.pairOf = nil, nil
	ex.trace, ex.allow = nil, nil
	return ex.emit(snap, emit)
}

// emit gives emit the decision of every job of the list, in order, from
// what snap took at the first scheduling point.
func (ex *exportRun) emit(snap *snapshot, emit func(policy.Decision) error) error {
	k := 0 // the next simulated job
	for i, r := range ex.js {
		var d policy.Decision
		if k < len(ex.ids) && ex.ids[k] == i {
			d = snap.decision(k, ex)
			k++
		} else {
			d = policy.Decision{Status: policy.StatusUnplaceable, Reason: r.Reason}
			if why, ok := ex.reasons[i]; ok {
				d.Reason = why
			}
		}
		if err := emit(d); err != nil {
			return err
		}
	}
	return nil
}

// job returns the list job of simulated job k and the workload standing
// for it.
func (ex *exportRun) job(k int) (*jobs.Job, string) {
	r := ex.js[ex.ids[k]]
	return r.Job, r.Workload
}

// snapshot runs a policy at the first scheduling point and stops the
// replay, keeping what it decided.
type snapshot struct {
	inner sim.Policy
	// rule is the completion-time rule when it is inner (its options
	// explain the decisions); nil for the decision core.
	rule    *Rule
	soloOn  func(j *sim.Job, sh sim.Shape) float64
	pairOf  func(v *sim.View, j, q *sim.Job, sh sim.Shape) (float64, bool)
	jobs    int               // jobs of the replay
	seen    []bool            // jobs the simulator admitted, by ID
	gpus    map[int][]int     // placed jobs' GPUs
	with    map[int][]int     // partners on the same GPUs
	norm    map[int]float64   // predicted normalized throughput where placed
	solo    map[int]float64   // solo rate where placed
	chosen  map[int]option    // the options taken
	shapes  map[int]sim.Shape // where placed
	assumed map[int]bool      // shares on an assumed multi-GPU pair
	first   int
}

func (s *snapshot) Name() string { return s.inner.Name() }

func (s *snapshot) Schedule(v *sim.View) (*sim.Plan, error) {
	p, err := s.inner.Schedule(v)
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = v.Plan()
	}
	s.seen, s.gpus, s.with = make([]bool, s.jobs), map[int][]int{}, map[int][]int{}
	s.norm, s.solo, s.shapes = map[int]float64{}, map[int]float64{}, map[int]sim.Shape{}
	s.assumed = map[int]bool{}
	s.first = -1
	if s.rule != nil {
		s.chosen, s.first = s.rule.chosen, s.rule.first
	}
	ids := make([]int, len(v.Waiting))
	for k, j := range v.Waiting {
		ids[k] = j.ID
	}
	workload := func(id int) string { return v.Job(id).Workload }
	solo := func(id int, sh sim.Shape) float64 { return s.soloOn(v.Job(id), sh) }
	pair := func(id, q int, sh sim.Shape) (float64, bool) { return s.pairOf(v, v.Job(id), v.Job(q), sh) }
	s.keep(v, ids, p, workload, solo, pair)
	return nil, errSnapshot
}

// placedOn is where a plan puts the jobs: sim.Plan, or the decision
// core's answer (answer).
type placedOn interface {
	GPUsOf(id int) []int // sorted; nil: it waits
	JobsOn(gpu int) []int
}

// keep keeps what the decisions need of placement pl for the admitted
// jobs ids (all of them waiting at the first scheduling point): each placed
// job's GPUs, shape, solo rate there, partners, predicted normalized
// throughput next to them, and whether the pair's rates are assumed.
func (s *snapshot) keep(v *sim.View, ids []int, pl placedOn, workload func(id int) string, solo func(id int, sh sim.Shape) float64, pair func(id, q int, sh sim.Shape) (float64, bool)) {
	for _, id := range ids {
		s.seen[id] = true
		gpus := pl.GPUsOf(id)
		if len(gpus) == 0 {
			continue
		}
		s.gpus[id] = gpus
		sh, _ := shapeOf(v, gpus)
		s.shapes[id] = sh
		s.solo[id] = solo(id, sh)
		s.norm[id] = 1
		for _, q := range pl.JobsOn(gpus[0]) {
			if q == id {
				continue
			}
			s.with[id] = append(s.with[id], q)
			s.assumed[id] = s.assumed[id] || (len(gpus) > 1 && v.Assumed(workload(id), workload(q), sh))
			if x, ok := pair(id, q, sh); ok {
				s.norm[id] = x
			}
		}
	}
}

// decision is the policy file's decision of simulated job k of ex.
func (s *snapshot) decision(k int, ex *exportRun) policy.Decision {
	topo := ex.topo
	name := func(q int) string {
		j, _ := ex.job(q)
		return j.ID
	}
	d := policy.Decision{}
	if !s.seen[k] {
		j, w := ex.job(k)
		d.Status = policy.StatusUnplaceable
		d.Reason = fmt.Sprintf("no GPU type of the cluster has a measured rate for %s at an allowed degree (%s)", w, joinDegrees(j.Degrees))
		return d
	}
	o, chose := s.chosen[k]
	gpus := s.gpus[k]
	if len(gpus) == 0 {
		d.Status = policy.StatusWaiting
		if !chose {
			d.Reason = "waits: no GPU of the cluster is free or shareable for it at time 0"
			if s.rule == nil {
				d.Reason = "waits: the GPUs went to jobs of higher value per GPU (priority times progress per GPU), and sharing with one is not worth more"
			}
			return d
		}
		d.GPUType, d.Degree = o.waitFor, o.degree
		d.Reason = fmt.Sprintf("waits for %d %s GPU(s): predicted to start at %.0f s and complete at %.0f s, sooner than on any GPUs free or shareable now",
			o.degree, o.waitFor, o.start, o.endJ)
		d.Rule = s.record(k, o, name)
		return d
	}
	sh := s.shapes[k]
	d.Status, d.GPUType, d.Degree = policy.StatusPlaced, sh.GPUType, len(gpus)
	for _, g := range gpus {
		gp := topo.GPUs[g]
		node := topo.Nodes[gp.Node].Name
		if n := len(d.Placement); n == 0 || d.Placement[n-1].Node != node {
			d.Placement = append(d.Placement, policy.NodeGPUs{Node: node})
		}
		last := &d.Placement[len(d.Placement)-1]
		last.GPUs = append(last.GPUs, gp.Index)
	}
	for _, q := range s.with[k] {
		d.ColocatedWith = append(d.ColocatedWith, name(q))
	}
	d.PredictedNormalized = s.norm[k]
	d.PredictedThroughput = s.solo[k] * s.norm[k]
	var b strings.Builder
	switch {
	case chose && o.partner >= 0:
		fmt.Fprintf(&b, "shares the GPUs of %s: predicted to complete at %.0f s at normalized throughput %.3f, delaying %s by %.0f s (cost %.0f s), less than running alone or waiting",
			name(o.partner), o.endJ, o.norm, name(o.partner), o.pdelay, o.cost)
	case chose:
		fmt.Fprintf(&b, "runs now on %d free %s GPU(s): predicted to complete at %.0f s, the least predicted completion time of its options", d.Degree, d.GPUType, o.endJ)
	case s.rule == nil && len(s.with[k]) > 0:
		fmt.Fprintf(&b, "shares %d %s GPU(s) with %s: the jobs ask more GPUs than the cluster has, and the pair, at predicted normalized throughput %.3f for this job, is worth more per GPU than the jobs left waiting",
			d.Degree, d.GPUType, strings.Join(d.ColocatedWith, ", "), s.norm[k])
	case s.rule == nil:
		fmt.Fprintf(&b, "runs on %d %s GPU(s): among the highest values per GPU of the jobs (priority times progress per GPU) on its best option", d.Degree, d.GPUType)
	}
	if len(s.with[k]) > 0 && s.rule != nil && !(chose && o.partner >= 0) {
		fmt.Fprintf(&b, "; then %s shares its GPUs: predicted normalized throughput %.3f", strings.Join(d.ColocatedWith, ", "), s.norm[k])
	}
	if sh.Spread {
		fmt.Fprintf(&b, "; spread over %d nodes", len(d.Placement))
	}
	if s.assumed[k] {
		d.Assumed = true
		fmt.Fprintf(&b, "; the pair's rates on %d GPUs are assumed (its normalized throughputs on one GPU), not measured", d.Degree)
	}
	d.Reason = b.String()
	if chose {
		d.Rule = s.record(k, o, name)
	}
	return d
}

// record is the rule record of option o of job k.
func (s *snapshot) record(k int, o option, name func(int) string) *policy.RuleRecord {
	rec := &policy.RuleRecord{Option: policy.OptionRun, CostS: o.cost, CompletionS: o.endJ, SoloThroughput: o.solo, Normalized: o.norm, Critical: k == s.first}
	switch {
	case o.gpus == nil:
		rec.Option, rec.StartS = policy.OptionWait, o.start
	case o.partner >= 0:
		rec.Option, rec.Partner, rec.PartnerNormalized, rec.PartnerDelayS = policy.OptionShare, name(o.partner), o.pnorm, math.Max(o.pdelay, 0)
	}
	return rec
}

func joinDegrees(ds []int) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = strconv.Itoa(d)
	}
	return strings.Join(s, ", ")
}

// runnable reports whether some GPU type of the cluster runs workload w
// at one of the degrees ds, on one node or spread.
func runnable(topo *sim.Topology, rates sim.Rates, w string, ds []int) bool {
	for _, d := range ds {
		for _, t := range topo.Types() {
			if topo.Count(t) < d {
				continue
			}
			if r, ok := rates.Solo(w, sim.Shape{GPUType: t, GPUs: d}); ok && r > 0 && topo.LargestNode(t) >= d {
				return true
			}
			if r, ok := rates.Solo(w, sim.Shape{GPUType: t, GPUs: d, Spread: true}); d > 1 && ok && r > 0 {
				return true
			}
		}
	}
	return false
}

// dataRates are the export's data as the simulator's rates: measured solo
// rates, and the co-located rate of a status-ok measured pair.
type dataRates struct{ d *place.Data }

func (x dataRates) Solo(w string, sh sim.Shape) (float64, bool) {
	return x.d.Solo(w, sh.GPUType, sh.GPUs, sh.Spread && sh.GPUs > 1, 0)
}

func (x dataRates) Colocated(w, q string, sh sim.Shape) (float64, bool) {
	if sh.Spread {
		return 0, false // the data measure pairs on one node
	}
	y, status, ok := x.d.Pair(w, q, sh.GPUType, sh.GPUs)
	if !ok || status != datasets.StatusOK {
		return 0, false
	}
	s, ok := x.Solo(w, sh)
	if !ok {
		return 0, false
	}
	return y * s, true
}
