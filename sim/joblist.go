package sim

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
)

// IsJobList reports whether path names a job list (.yaml, .yml or .json)
// rather than a Gavel trace.
func IsJobList(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// LoadJobs reads a job list, or a Gavel trace as one (fromTrace), by the
// file's name (IsJobList). Either is held to a job list's limits; a trace
// holds up to jobs.MaxJobs jobs (its own limit), a YAML or JSON list up to
// jobs.MaxFileJobs.
func LoadJobs(path string) (*jobs.List, error) {
	if IsJobList(path) {
		return jobs.Load(path)
	}
	tr, err := LoadTrace(path)
	if err != nil {
		return nil, err
	}
	l := fromTrace(tr)
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("%s: as a job list: %w", path, err)
	}
	return l, nil
}

// fromTrace turns a Gavel trace into a job list: each trace job becomes a
// job whose id is its index in the trace ("0", "1", ..., as the simulator
// numbers them), its workload the job type, its only degree the scale
// factor, with its steps and arrival time.
func fromTrace(tr *Trace) *jobs.List {
	l := &jobs.List{Version: jobs.Version, Name: tr.Name, File: tr.Name, Jobs: make([]jobs.Job, len(tr.Jobs))}
	// The jobs of one scale share their list of degrees (one element,
	// nothing to sort or append to in place): a trace has a few scales.
	degrees := map[int][]int{}
	for i, tj := range tr.Jobs {
		ds, ok := degrees[tj.Scale]
		if !ok {
			ds = []int{tj.Scale}
			degrees[tj.Scale] = ds
		}
		l.Jobs[i] = jobs.Job{ID: strconv.Itoa(i), Workload: tj.Workload, Degrees: ds[:1:1], Steps: tj.Steps, ArrivalS: tj.Arrival, Line: tj.Line}
	}
	return l
}

// TraceJobs turns a job list into the simulator's jobs, whose number of
// GPUs is fixed: a job with one allowed degree keeps it; with several,
// it gets the degree the export would choose on an empty cluster
// (policy.ChooseDegree on its measured throughput, on the GPU type where
// that is highest). A duration becomes steps at the measured rate of that
// choice: the duration is the job's run time alone. A job with no
// workload of the data (a model descriptor only) or no rate keeps a name
// and one step: the simulator then reports it unrunnable with its reason.
// Warnings say which jobs those are.
func TraceJobs(l *jobs.List, topo *Topology, rates Rates, efficiency float64) ([]TraceJob, []string) {
	var out []TraceJob
	var warns []string
	for i := range l.Jobs {
		tj, w := TraceJobOf(&l.Jobs[i], topo, rates, efficiency)
		out = append(out, tj)
		warns = append(warns, w...)
	}
	return out, warns
}

// TraceJobOf is the simulator's job of list job j (TraceJobs), with the
// warnings about it.
func TraceJobOf(j *jobs.Job, topo *Topology, rates Rates, efficiency float64) (TraceJob, []string) {
	var warns []string
	tj := TraceJob{Workload: j.Workload, Steps: j.Steps, Arrival: j.ArrivalS, Scale: j.Degrees[0], Priority: 1, SLO: -1, Line: j.Line}
	if tj.Workload == "" {
		tj.Workload = j.ID
		warns = append(warns, fmt.Sprintf("job %s has no workload of the data (a model descriptor only): the simulator has no rate for it", j.ID))
	}
	best := policy.ScalingPoint{}
	for _, t := range topo.Types() {
		var curve []policy.ScalingPoint
		for _, d := range j.Degrees {
			if d > topo.Count(t) {
				continue
			}
			r, ok := 0.0, false
			if d <= topo.LargestNode(t) {
				r, ok = rates.Solo(tj.Workload, Shape{GPUType: t, GPUs: d})
			}
			if !ok && d > 1 {
				r, ok = rates.Solo(tj.Workload, Shape{GPUType: t, GPUs: d, Spread: true})
			}
			if ok && r > 0 {
				curve = append(curve, policy.ScalingPoint{Degree: d, Throughput: r})
			}
		}
		if p, ok := policy.ChooseDegree(curve, efficiency, topo.Count(t)); ok && p.Throughput > best.Throughput {
			best = p
		}
	}
	if best.Degree > 0 {
		tj.Scale = best.Degree
	}
	if tj.Steps == 0 {
		if best.Throughput > 0 {
			tj.Steps = max(1, int64(math.Ceil(j.Duration.Seconds()*best.Throughput)))
		} else {
			tj.Steps = 1
			warns = append(warns, fmt.Sprintf("job %s: no measured rate to turn its duration into steps", j.ID))
		}
	}
	return tj, warns
}
