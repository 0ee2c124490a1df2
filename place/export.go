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

// Decider takes an export's decisions in place of the placement engine.
// The simulator's coloc policies are deciders (package sim/policies).
type Decider interface {
	// Objective is what the decisions minimise, as the file records it.
	Objective() *policy.Objective
	// Decide gives emit the decision of each resolved job, one at a time,
	// in the jobs' order, and stops at emit's first error, returning it.
	// Export fills in each decision's job, workload and reference, and
	// prefixes the reason of a job never profiled with its reference.
	Decide(in Input, jobs []Resolved, emit func(policy.Decision) error) error
}

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
	x, err := newExporter(in, opt)
	if err != nil {
		return nil, err
	}
	f := x.head
	err = x.decide(func(d policy.Decision) error {
		f.Decisions = append(f.Decisions, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// WriteExport writes to path the policy file Export builds, the same
// bytes WriteFile writes of it, with each decision written as it is taken
// (policy.WriteStream): the file's text and its decisions are never held
// together, so an export of 10^6 jobs holds a few words a job beside what
// the decider holds. It returns the file's summary; on an error the file
// at path is left as it was.
func WriteExport(path string, in Input, opt ExportOptions) (*Summary, error) {
	if opt.DecisionsOnly {
		return nil, fmt.Errorf("export: a file without its tables is not a policy file to write")
	}
	x, err := newExporter(in, opt)
	if err != nil {
		return nil, err
	}
	sum := newSummary(x.head)
	err = policy.WriteStream(path, x.head, func(add func(policy.Decision) error) error {
		return x.decide(func(d policy.Decision) error {
			sum.add(d)
			return add(d)
		})
	})
	if err != nil {
		return nil, err
	}
	return sum, nil
}

// exporter is an export ready to decide: the file without its decisions,
// and each job of the list resolved.
type exporter struct {
	in   Input
	opt  ExportOptions
	est  Estimator
	eng  *Engine
	head *policy.File
	// With a decider: the jobs as it sees them, and the reference of
	// each job never profiled (by list index); with the engine: rs.
	js   []Resolved
	refs map[int]reference
	rs   []resolved
}

// reference is the nearest reference a job never profiled stands for.
type reference struct {
	name     string
	distance float64
}

// newExporter checks the inputs, resolves every job and builds the file
// without its decisions: the tables and provenance too, unless
// DecisionsOnly.
func newExporter(in Input, opt ExportOptions) (*exporter, error) {
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
	x := &exporter{in: in, opt: opt, est: est, eng: eng, head: f}
	if opt.Decide != nil {
		x.js, x.refs = make([]Resolved, len(in.Jobs.Jobs)), map[int]reference{}
	} else {
		x.rs = make([]resolved, len(in.Jobs.Jobs))
	}
	for i := range in.Jobs.Jobs {
		r := resolve(&in.Jobs.Jobs[i], in.Data, in.Models, opt.Thresholds.SimilarityK)
		f.Warnings = append(f.Warnings, r.notes...)
		if opt.Decide == nil {
			x.rs[i] = r
			continue
		}
		// The decider sees the workload that stands for the job; the task
		// the engine would place is not kept.
		x.js[i] = Resolved{Job: r.job, Reason: r.reason}
		if r.task != nil {
			x.js[i].Workload = r.task.Workload
		}
		if r.reference != "" {
			x.refs[i] = reference{r.reference, r.distance}
		}
	}
	if opt.Decide != nil {
		f.Objective = opt.Decide.Objective()
	}
	if opt.DecisionsOnly {
		return x, nil
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
	return x, nil
}

// decide takes the decisions, in job list order, and gives each to emit.
func (x *exporter) decide(emit func(policy.Decision) error) error {
	if x.opt.Decide != nil {
		return x.decideWith(emit)
	}
	in, rs := x.in, x.rs
	order := make([]int, len(rs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return in.Jobs.Jobs[order[a]].ArrivalS < in.Jobs.Jobs[order[b]].ArrivalS })
	placed := make([]*Placed, len(rs))
	why := make([]string, len(rs))
	for _, i := range order {
		if rs[i].task == nil {
			why[i] = rs[i].reason
			continue
		}
		placed[i], why[i] = x.eng.Place(rs[i].task)
	}
	for i := range rs {
		if err := emit(decision(x.eng, x.est, in, rs[i], placed[i], why[i])); err != nil {
			return err
		}
	}
	return nil
}

// decideWith takes the decisions with the decider, completing each
// (job, workload, reference) before emit sees it.
func (x *exporter) decideWith(emit func(policy.Decision) error) error {
	n := 0
	err := x.opt.Decide.Decide(x.in, x.js, func(d policy.Decision) error {
		if n == len(x.js) {
			return fmt.Errorf("export: %d decisions for %d jobs", n+1, len(x.js))
		}
		r := x.js[n]
		d.Job, d.Workload = r.Job.ID, r.Job.Workload
		if r.Workload != "" {
			d.Workload = r.Workload
		}
		ref := x.refs[n]
		if d.Reference = ref.name; ref.name != "" {
			d.Reason = fmt.Sprintf("never profiled: stands for its nearest reference %s (%s distance %.3f); %s",
				ref.name, x.in.Models.Similarity.Opts.Distance, ref.distance, d.Reason)
		}
		n++
		return emit(d)
	})
	if err != nil {
		return err
	}
	if n != len(x.js) {
		return fmt.Errorf("export: %d decisions for %d jobs", n, len(x.js))
	}
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
		s, ok := in.Models.slots[datasets.ShapeOf(p.GPUType, p.Degree)]
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
	for _, s := range in.Data.pairSlots() {
		dev := s.Device()
		if !slices.Contains(types, dev) {
			continue
		}
		for _, w := range in.Data.Workloads() {
			if !in.Data.hasSolo(w, dev, s.GPUs) {
				continue
			}
			for _, q := range in.Data.Workloads() {
				if !in.Data.hasSolo(q, dev, s.GPUs) || written[[4]string{dev, fmt.Sprint(s.GPUs), w, q}] {
					continue
				}
				if _, status, ok := in.Data.Pair(w, q, dev, s.GPUs); ok && status == datasets.StatusInfeasible {
					sum.Skipped++
					continue
				}
				dropped = append(dropped, fmt.Sprintf("%s|%s on %s", w, q, s))
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
