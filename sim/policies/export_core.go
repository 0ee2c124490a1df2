package policies

import (
	"fmt"
	"slices"

	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/decide"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim"
)

// CoreExport takes the decisions of `coloc policy export` with coloc's
// decision core (package place/decide): the decisions the simulator's
// coloc policy takes at its first scheduling point, on the empty cluster,
// with every job of the list waiting at time 0 (a snapshot, as the list is
// placed at once). It takes them without the replay: each job is admitted
// by the simulator's code (sim.PolicyAdmission), the core is made and
// asked once as corePolicy makes and asks it, and its answer is recorded
// as the replay's plan would be (TestCoreExportIsReplay checks the
// decisions against corePolicy inside sim.Run on every shipped list), so
// that a list of a million jobs holds no simulated job or trace beside the
// core's. The inputs are those RuleExport lists: the measured solo rates
// of the export's data, the node-level model's predicted normalized
// throughputs where the data hold a status-ok measurement of the pair,
// each job's allowed degrees, its steps (only with Durations known) and
// the workload that stands for it.
//
// With Durations attained (the default) the core knows nothing of the
// jobs' sizes and has seen none complete: every job has the same
// priority, and the GPUs go by progress per GPU (a job on the type and
// degree where it runs fastest relative to its best) while they last;
// jobs share GPUs only when the jobs ask more GPUs than the cluster has.
// A job left without GPUs gets status waiting. The core's decisions have
// no rule record: they are not costed per option. Memory is checked as
// the spec and the list give it (exportMemory): no job goes to a GPU
// type whose memory it exceeds, and no two jobs share a GPU their
// memory does not fit together.
type CoreExport struct {
	Durations     string // decide.Attained (default) or decide.Known
	MinNormalized float64
	MaxPerGPU     int // 1 or 2
	// Efficiency turns a duration into steps (sim.TraceJobs).
	Efficiency          float64
	AssumeMultiGPUPairs bool
}

// Decider returns the export's place.Decider: x itself.
func (x CoreExport) Decider() place.Decider { return x }

func (x CoreExport) durations() string {
	if x.Durations == "" {
		return decide.Attained
	}
	return x.Durations
}

// Objective is what the core's decisions aim at, as the policy file
// records it.
func (x CoreExport) Objective() *policy.Objective {
	return &policy.Objective{Rule: policy.RuleDecisionCore, Durations: x.durations(), Order: policy.OrderGittins, MinNormalized: x.MinNormalized,
		Minimize: "the average JCT: GPUs go to the jobs of highest value per GPU (a Gittins-index priority learned from completed jobs times progress per GPU); two jobs share GPUs only while the jobs ask more GPUs than the cluster has"}
}

// Decide takes the core's decisions (place.Decider).
func (x CoreExport) Decide(in place.Input, js []place.Resolved, emit func(policy.Decision) error) error {
	if x.MaxPerGPU != 1 && x.MaxPerGPU != 2 {
		return fmt.Errorf("max jobs per GPU %d: the decision core shares a GPU between two jobs at most (1 or 2)", x.MaxPerGPU)
	}
	if d := x.durations(); d != decide.Attained && d != decide.Known {
		return fmt.Errorf("durations %q: an export knows %s or %s", d, decide.Attained, decide.Known)
	}
	mem := newExportMemory(in, js)
	pol, err := newCorePolicy("coloc", sim.Env{}, Config{Durations: x.durations(), MinNormalized: x.MinNormalized}, memoryPairs(predictedPair(in.Models), mem))
	if err != nil {
		return err
	}
	p := pol.(*corePolicy)
	// The jobs as the replay's coloc policy sees them at its first
	// scheduling point: admitted by the simulator's code, all waiting at
	// time 0, in list order; only what the core reads is kept of each.
	// Jobs of one workload, request and list of degrees are admitted
	// alike: once, their degrees shared (nothing changes them).
	type class struct {
		workload   string
		request    int
		narrowedTo string // the list's degrees when they narrow the replay's
	}
	type admitted struct {
		degrees []int
		ok      bool
	}
	admit := map[class]admitted{}
	known := x.durations() == decide.Known
	var waiting []decide.Job
	ex, err := admitList(in, js, x.AssumeMultiGPUPairs, x.Efficiency, func(ex *exportRun, tj sim.TraceJob, ds []int) {
		k := class{workload: tj.Workload, request: tj.Scale}
		if !everyDegreeTo(ds) {
			k.narrowedTo = joinDegrees(ds)
		}
		a, seen := admit[k]
		if !seen {
			degrees, why := sim.PolicyAdmission(ex.topo, ex.rates, tj.Workload, tj.Scale, 0)
			if a.ok = why == ""; a.ok && k.narrowedTo != "" {
				degrees = keepDegrees(degrees, ds)
			}
			a.degrees = degrees
			admit[k] = a
		}
		if !a.ok {
			return // the replay never admits it: unplaceable (snapshot.decision)
		}
		degrees := a.degrees
		if waiting == nil {
			waiting = make([]decide.Job, 0, len(js))
		}
		j := decide.Job{ID: len(ex.ids), Workload: tj.Workload, Degrees: degrees}
		if known {
			j.Work = float64(tj.Steps)
		}
		waiting = append(waiting, j)
	})
	if err != nil {
		return err
	}
	p.solo = memoryRates{ex.rates, mem}
	opt := sim.DefaultOptions
	opt.Degree, opt.MaxPerGPU, opt.MaxDegree = sim.DegreePolicy, x.MaxPerGPU, 0
	v, err := sim.EmptyView(ex.topo, ex.rates, opt)
	if err != nil {
		return err
	}
	if err := p.start(v); err != nil {
		return err
	}
	out := p.core.Decide(&decide.State{GPUs: p.gpus, Jobs: waiting})
	solo := func(w string, sh sim.Shape) float64 {
		r, ok := ex.rates.Solo(w, sh)
		if !ok || !(r > 0) {
			return 0
		}
		return r
	}
	pair := func(w, q string, sh sim.Shape) (float64, bool) { return p.pair(v, w, q, sh) }
	snap := &snapshot{}
	snap.took(v, waiting, len(ex.ids), out, solo, pair)
	// The core and its jobs are not used past here: the collector may
	// take them while the decisions are written.
	return ex.emit(snap, emit)
}

// took records the core's answer out for the waiting jobs (the replay's
// jobs 0 to n-1 not among them were never admitted) as Schedule records
// the replay's plan.
func (s *snapshot) took(v *sim.View, waiting []decide.Job, n int, out map[int][]int, solo func(w string, sh sim.Shape) float64, pair func(w, q string, sh sim.Shape) (float64, bool)) {
	s.seen, s.gpus, s.with = make([]bool, n), map[int][]int{}, map[int][]int{}
	s.norm, s.solo, s.shapes = map[int]float64{}, map[int]float64{}, map[int]sim.Shape{}
	s.assumed = map[int]bool{}
	s.first = -1
	a := answer{gpus: map[int][]int{}, on: map[int][]int{}}
	ids := make([]int, len(waiting))
	workload := map[int]string{}
	for k, j := range waiting {
		ids[k] = j.ID
		g := out[j.ID]
		if len(g) == 0 {
			continue
		}
		g = slices.Sorted(slices.Values(g))
		a.gpus[j.ID], workload[j.ID] = g, j.Workload
		for _, x := range g {
			a.on[x] = append(a.on[x], j.ID)
		}
	}
	w := func(id int) string { return workload[id] }
	s.keep(v, ids, a, w,
		func(id int, sh sim.Shape) float64 { return solo(w(id), sh) },
		func(id, q int, sh sim.Shape) (float64, bool) { return pair(w(id), w(q), sh) })
}

// answer is the core's answer as a placedOn: each placed job's GPUs,
// sorted, and the jobs on a GPU in the order the replay's plan places
// them (that of the state's jobs).
type answer struct {
	gpus, on map[int][]int
}

func (a answer) GPUsOf(id int) []int  { return a.gpus[id] }
func (a answer) JobsOn(gpu int) []int { return a.on[gpu] }

// allowed keeps the degrees of ds that the list allows job id (all when
// allow is nil or has no entry for it).
func allowed(ds []int, allow map[int][]int, id int) []int {
	a, ok := allow[id]
	if !ok {
		return ds
	}
	return keepDegrees(ds, a)
}

// keepDegrees is a copy of ds without the degrees a lacks.
func keepDegrees(ds, a []int) []int {
	return slices.DeleteFunc(slices.Clone(ds), func(d int) bool { return !slices.Contains(a, d) })
}

// ExportSettings are the choices of `coloc policy export`: the rule
// (policy.RuleDecisionCore or policy.RuleCompletionTime) and its inputs.
type ExportSettings struct {
	Rule, Durations     string
	Order               string // the completion-time rule's; the core's is its priority
	MinNormalized       float64
	MaxPerGPU           int
	Efficiency          float64
	AssumeMultiGPUPairs bool
}

// Decider returns the export's decider for the rule the settings name.
func (s ExportSettings) Decider() (place.Decider, error) {
	switch s.Rule {
	case policy.RuleDecisionCore:
		if s.Order != "" && s.Order != OrderShortest {
			return nil, fmt.Errorf("order %q: the decision core orders by its Gittins-index priority; an order is the completion-time rule's", s.Order)
		}
		return CoreExport{Durations: s.Durations, MinNormalized: s.MinNormalized, MaxPerGPU: s.MaxPerGPU,
			Efficiency: s.Efficiency, AssumeMultiGPUPairs: s.AssumeMultiGPUPairs}.Decider(), nil
	case policy.RuleCompletionTime:
		d, err := ParseDurations(s.Durations)
		if err != nil {
			return nil, err
		}
		if err := (&Rule{}).SetOrder(s.Order); err != nil {
			return nil, err
		}
		return RuleExport{Durations: d, Order: s.Order, MinNormalized: s.MinNormalized, MaxPerGPU: s.MaxPerGPU,
			Efficiency: s.Efficiency, AssumeMultiGPUPairs: s.AssumeMultiGPUPairs}.Decider(), nil
	}
	return nil, fmt.Errorf("rule %q: want %s or %s", s.Rule, policy.RuleDecisionCore, policy.RuleCompletionTime)
}
