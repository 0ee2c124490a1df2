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
// placed at once). It runs the same code (corePolicy inside sim.Run) on
// the inputs RuleExport lists: the measured solo rates of the export's
// data, the node-level model's predicted normalized throughputs where the
// data hold a status-ok measurement of the pair, each job's allowed
// degrees, its steps (only with Durations known) and the workload that
// stands for it.
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
	ex, err := newExportRun(in, js, x.AssumeMultiGPUPairs, x.Efficiency)
	if err != nil {
		return err
	}
	mem := newExportMemory(in, js)
	pol, err := newCorePolicy("coloc", sim.Env{}, Config{Durations: x.durations(), MinNormalized: x.MinNormalized}, memoryPairs(predictedPair(in.Models), mem))
	if err != nil {
		return err
	}
	p := pol.(*corePolicy)
	p.solo, p.allow = memoryRates{ex.rates, mem}, ex.allow
	solo := func(j *sim.Job, sh sim.Shape) float64 {
		s, ok := ex.rates.Solo(j.Workload, sh)
		if !ok || !(s > 0) {
			return 0
		}
		return s
	}
	pair := func(v *sim.View, j, q *sim.Job, sh sim.Shape) (float64, bool) {
		return p.pair(v, j.Workload, q.Workload, sh)
	}
	return ex.run(&snapshot{inner: p, soloOn: solo, pairOf: pair}, sim.DefaultOptions, x.MaxPerGPU, emit)
}

// allowed keeps the degrees of ds that the list allows job id (all when
// allow is nil or has no entry for it).
func allowed(ds []int, allow map[int][]int, id int) []int {
	a, ok := allow[id]
	if !ok {
		return ds
	}
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
