package sim

import (
	"fmt"
	"math"
	"sort"
)

// Job outcomes.
const (
	StatusDone       = "done"
	StatusUnrunnable = "unrunnable"
)

// JobResult is what happened to one trace job. Times are seconds from the
// start of the trace; NaN when they did not happen.
type JobResult struct {
	ID       int
	Line     int // trace line, 0 when built in code
	Workload string
	Scale    int // the trace's request
	Degree   int // GPUs of its last placement, 0 when it never ran
	Steps    int64
	Arrival  float64
	Start    float64 // first start
	Finish   float64
	JCT      float64 // Finish - Arrival
	GPUType  string  // type of its last placement
	Restarts int
	Shared   float64 // seconds it ran sharing its GPUs
	Status   string  // StatusDone or StatusUnrunnable
	Reason   string  // why it was unrunnable
	// Extrapolated: it ran on a solo rate extrapolated beyond the measured
	// degrees (Measured.Extrapolated), not measured.
	Extrapolated bool
	// Assumed: it shared its GPUs on an assumed multi-GPU pair rate
	// (Measured.AssumedPairs), not measured.
	Assumed bool
}

// TypeUtil is the utilisation of the GPUs of one type.
type TypeUtil struct {
	GPUType string
	GPUs    int
	Util    float64
	// Effective is the work done on these GPUs relative to running the
	// same jobs solo: the time integral of GPUs x normalized throughput
	// of the running jobs, over GPUs x makespan.
	Effective float64
}

// sample is the state of the cluster at one scheduling point.
type sample struct {
	Time     float64
	BusyGPUs int
	Running  int
	Waiting  int
}

// Result holds the metrics of one run.
//
// JCT is finish minus arrival of a completed job; P95JCT is the
// nearest-rank 95th percentile (the ceil(0.95 n)-th smallest). The
// makespan is the last completion minus the first arrival of a runnable
// job. A GPU is busy while it holds at least one job (sharing or not,
// restoring or not); GPUUtil is busy GPU time over available GPU time
// (GPUs times makespan), also per GPU type. EffectiveUtil counts work
// instead of GPUs held: each running job adds its GPUs times its
// normalized throughput (its rate over its solo rate on the same
// placement; 0 while it restores), so a GPU shared by two jobs at 0.7 of
// their solo rates counts 1.4, a lone job 1. It equals GPUUtil when no job
// ever shares or restarts.
type Result struct {
	Policy     string
	Jobs       []JobResult // every trace job, by ID
	Completed  int
	Unrunnable int
	AvgJCT     float64
	P95JCT     float64
	Makespan   float64
	GPUUtil    float64
	// EffectiveUtil is effective GPU time over GPUs x makespan.
	EffectiveUtil float64
	Util          []TypeUtil // by GPU type, sorted
	Restarts      int
	Shared        int // completed jobs that shared their GPUs at some point
	// Extrapolated counts the completed jobs that ran on an extrapolated
	// solo rate.
	Extrapolated int
	// Assumed counts the completed jobs that shared on an assumed
	// multi-GPU pair rate.
	Assumed  int
	Timeline []sample
	Warnings []string
}

func (s *simulation) finishResult(trace []TraceJob) {
	r := s.res
	r.Jobs = make([]JobResult, len(s.jobs))
	first, last := math.Inf(1), math.Inf(-1)
	var jcts []float64
	reasons := map[string]int{}
	for i, j := range s.jobs {
		st := s.st[i]
		jr := JobResult{
			ID: i, Line: trace[i].Line, Workload: j.Workload, Scale: j.Request, Degree: st.shape.GPUs, Steps: j.Steps,
			Arrival: j.Arrival, Start: st.start, Finish: st.finish, JCT: math.NaN(),
			GPUType: st.shape.GPUType, Restarts: int(st.restarts), Shared: st.shared, Extrapolated: st.extrap,
			Assumed: st.assumed,
		}
		switch st.status {
		case done:
			jr.Status = StatusDone
			jr.JCT = st.finish - j.Arrival
			jcts = append(jcts, jr.JCT)
			first = math.Min(first, j.Arrival)
			last = math.Max(last, st.finish)
			r.Restarts += int(st.restarts)
			if st.shared > 0 {
				r.Shared++
			}
			if st.extrap {
				r.Extrapolated++
			}
			if st.assumed {
				r.Assumed++
			}
		case unrunnable:
			jr.Status = StatusUnrunnable
			jr.Reason = s.reasons[i]
			r.Unrunnable++
			reasons[jr.Reason]++
		}
		r.Jobs[i] = jr
	}
	r.Completed = len(jcts)
	if len(jcts) > 0 {
		r.AvgJCT = mean(jcts)
		r.P95JCT = percentile(jcts, 0.95)
		r.Makespan = last - first
	}
	var busy, eff, avail float64
	for i, t := range s.topo.Types() {
		n := s.topo.Count(t)
		u := TypeUtil{GPUType: t, GPUs: n}
		if r.Makespan > 0 {
			u.Util = s.busy[i] / (float64(n) * r.Makespan)
			u.Effective = s.eff[i] / (float64(n) * r.Makespan)
		}
		busy += s.busy[i]
		eff += s.eff[i]
		avail += float64(n) * r.Makespan
		r.Util = append(r.Util, u)
	}
	if avail > 0 {
		r.GPUUtil = busy / avail
		r.EffectiveUtil = eff / avail
	}
	if r.Extrapolated > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d job(s) ran on extrapolated rates, beyond the measured degrees", r.Extrapolated))
	}
	if r.Assumed > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d job(s) shared GPUs on assumed rates: multi-GPU pairs not measured at their degree, rated from the pair on one GPU", r.Assumed))
	}
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d job(s) not simulated: %s", reasons[k], k))
	}
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// percentile returns the nearest-rank q-quantile of xs (0 < q <= 1): the
// ceil(q n)-th smallest value. NaN for no values. xs is not changed.
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	k := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(k, 0), len(s)-1)]
}

// Summary is the headline of a result, as `coloc simulate --json` prints it.
type Summary struct {
	Policy     string             `json:"policy"`
	Jobs       int                `json:"jobs"`
	Unrunnable int                `json:"unrunnable"`
	AvgJCT     float64            `json:"avg_jct_s"`
	P95JCT     float64            `json:"p95_jct_s"`
	Makespan   float64            `json:"makespan_s"`
	GPUUtil    float64            `json:"gpu_util"`
	UtilByType map[string]float64 `json:"gpu_util_by_type"`
	// EffectiveUtil is Result.EffectiveUtil: work done relative to solo.
	EffectiveUtil   float64            `json:"effective_util"`
	EffectiveByType map[string]float64 `json:"effective_util_by_type"`
	Restarts        int                `json:"restarts"`
	Shared          int                `json:"shared_jobs"`
	// Extrapolated is Result.Extrapolated: jobs on extrapolated rates.
	Extrapolated int `json:"extrapolated_jobs"`
	// Assumed is Result.Assumed: jobs that shared on assumed pair rates.
	Assumed int `json:"assumed_jobs"`
}

// Summary returns the headline metrics.
func (r *Result) Summary() Summary {
	u, e := map[string]float64{}, map[string]float64{}
	for _, t := range r.Util {
		u[t.GPUType] = t.Util
		e[t.GPUType] = t.Effective
	}
	return Summary{
		Policy: r.Policy, Jobs: r.Completed, Unrunnable: r.Unrunnable,
		AvgJCT: r.AvgJCT, P95JCT: r.P95JCT, Makespan: r.Makespan, GPUUtil: r.GPUUtil,
		UtilByType: u, EffectiveUtil: r.EffectiveUtil, EffectiveByType: e, Restarts: r.Restarts, Shared: r.Shared,
		Extrapolated: r.Extrapolated, Assumed: r.Assumed,
	}
}
