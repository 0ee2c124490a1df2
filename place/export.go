package place

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/internal/textlist"
	"github.com/coloc-dev/coloc/internal/version"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
)

// Input is what an export is computed from.
type Input struct {
	Cluster     *cluster.Spec
	ClusterFile string // for provenance; "" when built in code
	Jobs        *jobs.List
	JobsFile    string
	Data        *Data
	Models      *Models
}

// Resolved is a job of the list as the export resolved it: the workload
// of the data that stands for it (its own, or its nearest reference), or
// why it cannot be placed.
type Resolved struct {
	Job      *jobs.Job
	Workload string // "" when the job cannot be placed; Reason says why
	Reason   string
}

// Decider takes an export's decisions in place of the placement engine:
// one decision per resolved job, in the same order, and the objective
// they minimise. Export fills in each decision's job, workload and
// reference, and prefixes the reason of a job never profiled with its
// reference. The simulator's coloc rule is one (package sim/policies).
type Decider func(in Input, jobs []Resolved) ([]policy.Decision, *policy.Objective, error)

// ExportOptions are the parameters of an export.
type ExportOptions struct {
	Thresholds policy.Thresholds
	// Decide, when set, takes the decisions instead of the engine; the
	// engine still builds the tables.
	Decide Decider
	// Now is the creation time written in the provenance; the zero time
	// means the current time. It is the only field that differs between
	// two exports of the same inputs.
	Now time.Time
	// DecisionsOnly leaves the tables (pairs, solo, scaling, similarity)
	// out: what an online caller asking for decisions needs. The file is
	// then not a whole policy file.
	DecisionsOnly bool
}

// Export places the job list on the cluster and builds the policy file:
// the decisions (in job list order) and the tables a scheduler needs to
// decide online. Jobs are placed in order of arrival (then list order),
// as a snapshot: every job of the list is taken to run at once (see the
// package doc). A job that cannot be placed gets a decision with status
// unplaceable and the reason; Export fails only on inputs it cannot use.
func Export(in Input, opt ExportOptions) (*policy.File, error) {
	if in.Cluster == nil || in.Jobs == nil || in.Data == nil || in.Models == nil {
		return nil, fmt.Errorf("export: cluster, jobs, data and models are all required")
	}
	if err := in.Cluster.Validate(); err != nil {
		return nil, fmt.Errorf("cluster %s: %w", in.ClusterFile, err)
	}
	if err := in.Jobs.Validate(); err != nil {
		return nil, fmt.Errorf("jobs %s: %w", in.JobsFile, err)
	}
	est := NewEstimator(in.Data, in.Models)
	eng, err := New(in.Cluster.Nodes(), est, Options{Thresholds: opt.Thresholds, Unit: in.Data.Unit})
	if err != nil {
		return nil, err
	}
	f := &policy.File{
		Format: policy.Format, Version: policy.Version, Thresholds: opt.Thresholds,
		ThroughputUnit: in.Data.Unit, Cluster: clusterOf(in.Cluster),
	}
	f.Warnings = append(f.Warnings, in.Data.Warnings...)
	f.Warnings = append(f.Warnings, in.Models.Warnings...)
	for _, t := range eng.types {
		if !in.Data.HasType(t) {
			f.Warnings = append(f.Warnings, fmt.Sprintf("GPU type %q of the cluster has no measurement in the data: no job is placed on its %d GPUs", t, eng.count[slices.Index(eng.types, t)]))
		}
	}
	rs := make([]resolved, len(in.Jobs.Jobs))
	order := make([]int, len(rs))
	for i := range in.Jobs.Jobs {
		rs[i] = resolve(&in.Jobs.Jobs[i], in.Data, in.Models, opt.Thresholds.SimilarityK)
		f.Warnings = append(f.Warnings, rs[i].notes...)
		order[i] = i
	}
	if opt.Decide != nil {
		if err := decideWith(opt.Decide, in, rs, f); err != nil {
			return nil, err
		}
	} else {
		sort.SliceStable(order, func(a, b int) bool { return in.Jobs.Jobs[order[a]].ArrivalS < in.Jobs.Jobs[order[b]].ArrivalS })
		placed := make([]*Placed, len(rs))
		why := make([]string, len(rs))
		for _, i := range order {
			if rs[i].task == nil {
				why[i] = rs[i].reason
				continue
			}
			placed[i], why[i] = eng.Place(rs[i].task)
		}
		for i := range rs {
			f.Decisions = append(f.Decisions, decision(eng, est, in, rs[i], placed[i], why[i]))
		}
	}
	if opt.DecisionsOnly {
		return f, nil
	}
	tb := tables{d: in.Data, m: in.Models, eng: eng, th: opt.Thresholds}
	f.Pairs = tb.pairs()
	f.Provenance.Predictions = annotatePairs(f, in, eng.types)
	f.Solo = tb.solo()
	f.Scaling = tb.scaling()
	f.Similarity = tb.similarity()
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	f.Provenance = policy.Provenance{Tool: version.String(), Created: now.UTC().Format(time.RFC3339), Models: in.Models.Files, Data: in.Data.Files, Predictions: f.Provenance.Predictions}
	for _, p := range []string{in.ClusterFile, in.JobsFile} {
		if p == "" {
			continue
		}
		sum, err := fileSum(p)
		if err != nil {
			return nil, err
		}
		f.Provenance.Inputs = append(f.Provenance.Inputs, sum)
	}
	return f, nil
}

// decideWith takes the decisions of f with decide.
func decideWith(decide Decider, in Input, rs []resolved, f *policy.File) error {
	jobs := make([]Resolved, len(rs))
	for i, r := range rs {
		jobs[i] = Resolved{Job: r.job, Reason: r.reason}
		if r.task != nil {
			jobs[i].Workload = r.task.Workload
		}
	}
	decs, obj, err := decide(in, jobs)
	if err != nil {
		return err
	}
	if len(decs) != len(rs) {
		return fmt.Errorf("export: %d decisions for %d jobs", len(decs), len(rs))
	}
	for i := range decs {
		d, r := &decs[i], rs[i]
		d.Job, d.Workload, d.Reference = r.job.ID, r.job.Workload, r.reference
		if jobs[i].Workload != "" {
			d.Workload = jobs[i].Workload
		}
		if r.reference != "" {
			d.Reason = fmt.Sprintf("never profiled: stands for its nearest reference %s (%s distance %.3f); %s",
				r.reference, in.Models.Similarity.Opts.Distance, r.distance, d.Reason)
		}
	}
	f.Decisions, f.Objective = decs, obj
	return nil
}

// annotatePairs gives each predicted pair of f its interval and flags,
// counts what was clamped, flagged and dropped, adds one warning per
// kind with the pairs concerned, and returns the summary for the
// provenance.
func annotatePairs(f *policy.File, in Input, types []string) policy.PredictionSummary {
	ld := in.Models.of(ClusterLevel)
	tr := ld.File.Trust
	sum := policy.PredictionSummary{Coverage: tr.Coverage, Decide: policy.DecideExpected, RangeLow: tr.Range.Lo, RangeHigh: tr.Range.Hi}
	if in.Models.Decide == policy.DecideLower {
		sum.Decide = policy.DecideLower
	}
	var clamped, unseen []string
	written := map[[4]string]bool{}
	for i := range f.Pairs {
		p := &f.Pairs[i]
		written[[4]string{p.GPUType, fmt.Sprint(p.Degree), p.Workload, p.Partner}] = true
		if p.Source == "measured" {
			continue
		}
		s, ok := in.Models.slots[slotKey{p.GPUType, p.Degree}]
		a, errA := ld.Frame.Job(p.Workload)
		b, errB := ld.Frame.Job(p.Partner)
		if !ok || errA != nil || errB != nil {
			continue
		}
		e := ld.Estimate(a, b, s)
		sum.Predicted++
		p.Normalized, p.Low, p.High = e.Value, e.Lo, e.Hi
		name := fmt.Sprintf("%s|%s on %s", p.Workload, p.Partner, model.Slot{DeviceType: p.GPUType, Degree: p.Degree})
		if e.OutOfRange {
			p.Raw = e.Raw
			p.Flags = append(p.Flags, policy.FlagOutOfRange)
			clamped = append(clamped, fmt.Sprintf("%s (%.3g)", name, e.Raw))
		}
		if len(e.Unseen) > 0 {
			p.Flags = append(p.Flags, policy.FlagUnseen)
			unseen = append(unseen, name)
		}
		if e.Uncalibrated {
			p.Flags = append(p.Flags, policy.FlagUncalibrated)
			sum.Uncalib++
		}
	}
	sum.Clamped, sum.Unseen = len(clamped), len(unseen)
	var dropped []string
	for s := range in.Data.pairSlots {
		if !slices.Contains(types, s.typ) {
			continue
		}
		for _, w := range in.Data.Workloads() {
			if _, ok := in.Data.solo[soloKey{w, s.typ, s.degree}]; !ok {
				continue
			}
			for _, q := range in.Data.Workloads() {
				if _, ok := in.Data.solo[soloKey{q, s.typ, s.degree}]; !ok || written[[4]string{s.typ, fmt.Sprint(s.degree), w, q}] {
					continue
				}
				if _, status, ok := in.Data.Pair(w, q, s.typ, s.degree); ok && status == datasets.StatusInfeasible {
					sum.Skipped++
					continue
				}
				dropped = append(dropped, fmt.Sprintf("%s|%s on %s", w, q, model.Slot{DeviceType: s.typ, Degree: s.degree}))
			}
		}
	}
	sort.Strings(dropped)
	sum.Dropped = len(dropped)
	list := func(xs []string) string { return textlist.Head(xs, 10, "; ") }
	if len(clamped) > 0 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%d predicted pairs were outside the plausible range [%.3g, %.3g] and were set to the nearest bound (flag out-of-range, raw value kept): %s", len(clamped), tr.Range.Lo, tr.Range.Hi, list(clamped)))
	}
	if len(unseen) > 0 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%d predicted pairs involve a workload with no training pair on that GPU type: predicted from features alone, wider intervals (flag unseen): %s", len(unseen), list(unseen)))
	}
	if sum.Uncalib > 0 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%d predicted pairs have no calibrated interval (the model %s was fit without calibration): their interval is the plausible range (flag uncalibrated)", sum.Uncalib, ld.File.Model))
	}
	if len(dropped) > 0 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%d pairs could not be predicted (a workload unknown to the model %s) and are not in the pairs table: %s", len(dropped), ld.File.Model, list(dropped)))
	}
	return sum
}

func clusterOf(s *cluster.Spec) policy.Cluster {
	c := policy.Cluster{Name: s.Name}
	for _, n := range s.Nodes() {
		c.Nodes = append(c.Nodes, policy.Node{Name: n.Name, GPUType: n.GPUType, GPUs: n.GPUs, MemoryGB: n.MemoryGB,
			Link: n.Link, LinkGBs: n.LinkGBs, NetworkGB: n.NetworkGB})
	}
	return c
}

// decision is the decision of one job; p is nil when it was not placed.
func decision(eng *Engine, est Estimator, in Input, r resolved, p *Placed, why string) policy.Decision {
	dec := policy.Decision{Job: r.job.ID, Workload: r.job.Workload, Reference: r.reference}
	if r.task != nil {
		dec.Workload = r.task.Workload
	}
	var lead string
	if r.reference != "" {
		lead = fmt.Sprintf("never profiled: stands for its nearest reference %s (%s distance %.3f); ",
			r.reference, in.Models.Similarity.Opts.Distance, r.distance)
	}
	if p == nil {
		dec.Status = policy.StatusUnplaceable
		dec.Reason = lead + why
		return dec
	}
	dec.Status = policy.StatusPlaced
	dec.GPUType, dec.Degree = p.GPUType, p.Degree
	for _, g := range p.GPUs {
		name := eng.Node(g.Node).Name
		if n := len(dec.Placement); n == 0 || dec.Placement[n-1].Node != name {
			dec.Placement = append(dec.Placement, policy.NodeGPUs{Node: name})
		}
		last := &dec.Placement[len(dec.Placement)-1]
		last.GPUs = append(last.GPUs, g.Index)
	}
	y, src := p.Normalized(est, NodeLevel)
	var partners []string
	for _, q := range p.Partners() {
		partners = append(partners, q.Task.ID)
	}
	dec.ColocatedWith = partners
	if !math.IsNaN(y) {
		dec.PredictedNormalized = y
		dec.PredictedThroughput = p.Rate * y
	}
	var b strings.Builder
	b.WriteString(lead)
	fmt.Fprintf(&b, "%s: highest predicted throughput of the GPU types with room, %.4g %s at %d GPU(s)", p.GPUType, p.Rate, in.Data.Unit, p.Degree)
	if len(r.task.Degrees) > 1 {
		fmt.Fprintf(&b, " (scaling efficiency %.2f; allowed %s, threshold %.2f)", p.Efficiency, joinInts(r.task.Degrees), eng.opt.Thresholds.ScalingEfficiency)
	}
	if p.Spread {
		fmt.Fprintf(&b, "; spread over %d nodes (no node has %d free GPUs)", len(dec.Placement), p.Degree)
	} else {
		fmt.Fprintf(&b, "; node %s", dec.Placement[0].Node)
	}
	if len(partners) == 0 {
		b.WriteString(", alone on its GPUs")
	} else {
		fmt.Fprintf(&b, ", sharing its GPUs with %s: predicted normalized throughput %.3f (%s)", strings.Join(partners, ", "), y, strings.Join(src, ", "))
	}
	if p.CommS > 0 {
		link := eng.Node(p.GPUs[0].Node).Link
		if p.Spread {
			link = "the network"
		} else if link == "" {
			link = "its link"
		}
		fmt.Fprintf(&b, "; all-reduce of %.3g MB per step over %s: %.3g ms, %.1f%% of a step",
			AllReduceBytes(r.task.Params, p.Degree)/1e6, link, p.CommS*1e3, 100*p.CommFrac)
	}
	dec.Reason = b.String()
	return dec
}

// WriteFile writes a policy file atomically, after checking it as every
// reader will (policy.WriteFile): an export that a scheduler would refuse
// is an error here, not a surprise there.
func WriteFile(path string, f *policy.File) error { return policy.WriteFile(path, f) }

// Encode returns the bytes of a policy file (policy.Encode).
func Encode(f *policy.File) ([]byte, error) { return policy.Encode(f) }
