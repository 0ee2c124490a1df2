package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"

	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/internal/jsonkeys"
	"github.com/coloc-dev/coloc/sim"
)

// The replay file's format name and the version this coloc writes and
// reads.
const (
	ReplayFormat  = "coloc.replay"
	ReplayVersion = 1
)

// Replay is one trace replayed on one cluster under one or more
// policies: what `coloc simulate -o` writes and `coloc report --sim`
// reads.
type Replay struct {
	Trace   ReplayTrace
	Cluster ReplayCluster
	Data    string // dataset directory, as given
	Models  string // model directory, as given ("" when none)
	Seed    uint64 // seed of the randomised policies (sim.Env.Seed)
	// Settings are the simulator's and the model-driven policies'
	// settings the replay ran with.
	Settings ReplaySettings
	// Results are the policies' results in the order they ran, each with
	// every trace job; their Timeline is not written and reads back
	// empty.
	Results []*sim.Result
}

// ReplayTrace is the trace a replay ran.
type ReplayTrace struct {
	Path   string `json:"path"`   // as the user gave it
	SHA256 string `json:"sha256"` // of the file, hex
	Format string `json:"format"` // sim.Trace.Format
	Jobs   int    `json:"jobs"`   // jobs in the trace
}

// ReplayCluster is the cluster a replay ran on.
type ReplayCluster struct {
	Path   string       `json:"path"`   // as the user gave it
	SHA256 string       `json:"sha256"` // of the file, hex
	Name   string       `json:"name"`   // the topology's name
	GPUs   []ReplayGPUs `json:"gpus"`   // in sim.Topology.Types order
}

// ReplaySettings are the settings of a replay that change its results:
// the simulator's (sim.Options) and the model-driven policies'
// (policies.Config, but the model directory, which Replay names).
type ReplaySettings struct {
	RoundS          float64 `json:"round_s"`
	RestartPenaltyS float64 `json:"restart_penalty_s"`
	MaxPerGPU       int     `json:"max_per_gpu"`
	Degree          string  `json:"degree"`
	MaxDegree       int     `json:"max_degree"`
	Schedule        string  `json:"schedule"`
	WholeSteps      bool    `json:"whole_steps"`
	Durations       string  `json:"durations"`
	Order           string  `json:"order"`
	Decide          string  `json:"decide"`
	EstimateMedian  float64 `json:"estimate_median"`
	EstimateSigma   float64 `json:"estimate_sigma"`
	MinNormalized   float64 `json:"min_normalized"`
	OracleNoise     float64 `json:"oracle_noise"`
}

// ReplayGPUs is the number of GPUs of one type.
type ReplayGPUs struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
}

// NewReplay describes a replay of trace tr (read from in by x.Load) under
// x with its results: the paths as in gives them, the SHA-256 of the
// trace and cluster files, the cluster's GPUs, x's models and seed.
func NewReplay(in Inputs, tr *sim.Trace, x *Experiment, results []*sim.Result) (*Replay, error) {
	if tr == nil || x.Topology == nil {
		return nil, fmt.Errorf("replay without a trace or a cluster")
	}
	traceSum, err := inputfile.SHA256(in.Trace)
	if err != nil {
		return nil, err
	}
	clusterSum, err := inputfile.SHA256(in.Cluster)
	if err != nil {
		return nil, err
	}
	r := &Replay{
		Trace:   ReplayTrace{Path: in.Trace, SHA256: traceSum, Format: tr.Format, Jobs: len(tr.Jobs)},
		Cluster: ReplayCluster{Path: in.Cluster, SHA256: clusterSum, Name: x.Topology.Name},
		Data:    in.Data, Models: x.Config.Models, Seed: x.Env.Seed, Results: results,
		Settings: ReplaySettings{RoundS: x.Options.Round, RestartPenaltyS: x.Options.RestartPenalty, MaxPerGPU: x.Options.MaxPerGPU,
			Degree: x.Options.Degree, MaxDegree: x.Options.MaxDegree, Schedule: x.Options.Schedule, WholeSteps: x.Options.WholeSteps,
			Durations: x.Config.Durations, Order: x.Config.Order, Decide: x.Config.Decide, EstimateMedian: x.Config.EstimateMedian,
			EstimateSigma: x.Config.EstimateSigma, MinNormalized: x.Config.MinNormalized, OracleNoise: x.Config.OracleNoise},
	}
	for _, t := range x.Topology.Types() {
		r.Cluster.GPUs = append(r.Cluster.GPUs, ReplayGPUs{Type: t, Count: x.Topology.Count(t)})
	}
	if err := r.validate(); err != nil {
		return nil, err
	}
	return r, nil
}

// replayFile is the file's layout. Every duration is in seconds (a name
// ending in _s); a time that did not happen (NaN) is null.
type replayFile struct {
	Format   string          `json:"format"`
	Version  int             `json:"version"`
	Trace    *ReplayTrace    `json:"trace"`
	Cluster  *ReplayCluster  `json:"cluster"`
	Data     string          `json:"data"`
	Models   string          `json:"models"`
	Seed     uint64          `json:"seed"`
	Settings *ReplaySettings `json:"settings"`
	Results  []resultFile    `json:"results"`
}

// resultFile is sim.Result but its Timeline.
type resultFile struct {
	Policy        string     `json:"policy"`
	Completed     int        `json:"completed"`
	Unrunnable    int        `json:"unrunnable"`
	AvgJCT        *float64   `json:"avg_jct_s"`
	P95JCT        *float64   `json:"p95_jct_s"`
	Makespan      *float64   `json:"makespan_s"`
	GPUUtil       float64    `json:"gpu_util"`
	EffectiveUtil float64    `json:"effective_util"`
	Util          []utilFile `json:"util_by_type"`
	Restarts      int        `json:"restarts"`
	Shared        int        `json:"shared_jobs"`
	Extrapolated  int        `json:"extrapolated_jobs"`
	Assumed       int        `json:"assumed_jobs"`
	Warnings      []string   `json:"warnings"`
	Jobs          []jobFile  `json:"jobs"`
}

// utilFile is sim.TypeUtil.
type utilFile struct {
	GPUType   string  `json:"gpu_type"`
	GPUs      int     `json:"gpus"`
	Util      float64 `json:"util"`
	Effective float64 `json:"effective"`
}

// jobFile is sim.JobResult.
type jobFile struct {
	ID           int      `json:"id"`
	Line         int      `json:"line"`
	Workload     string   `json:"workload"`
	Scale        int      `json:"scale"`
	Degree       int      `json:"degree"`
	Steps        int64    `json:"steps"`
	Arrival      float64  `json:"arrival_s"`
	Start        *float64 `json:"start_s"`
	Finish       *float64 `json:"finish_s"`
	JCT          *float64 `json:"jct_s"`
	GPUType      string   `json:"gpu_type"`
	Restarts     int      `json:"restarts"`
	Shared       float64  `json:"shared_s"`
	Status       string   `json:"status"`
	Reason       string   `json:"reason,omitempty"`
	Extrapolated bool     `json:"extrapolated,omitempty"`
	Assumed      bool     `json:"assumed,omitempty"`
}

// orNull is x, or nil (null) for NaN.
func orNull(x float64) *float64 {
	if math.IsNaN(x) {
		return nil
	}
	return &x
}

// orNaN is *p, or NaN for nil.
func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// WriteReplay writes r to path as JSON (format coloc.replay, version 1),
// whole or not at all (internal/atomicfile). It refuses a replay that
// ReadReplay would refuse, and a value JSON cannot hold (an infinity, or
// NaN where null does not stand for it).
func WriteReplay(path string, r *Replay) error {
	if err := r.validate(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	f := replayFile{Format: ReplayFormat, Version: ReplayVersion, Trace: &r.Trace, Cluster: &r.Cluster,
		Data: r.Data, Models: r.Models, Seed: r.Seed, Settings: &r.Settings, Results: make([]resultFile, len(r.Results))}
	for i, res := range r.Results {
		if err := finite(res); err != nil {
			return fmt.Errorf("writing %s: policy %q: %w", path, res.Policy, err)
		}
		f.Results[i] = toFile(res)
	}
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return atomicfile.WriteBytes(path, append(b, '\n'))
}

func toFile(r *sim.Result) resultFile {
	out := resultFile{Policy: r.Policy, Completed: r.Completed, Unrunnable: r.Unrunnable,
		AvgJCT: orNull(r.AvgJCT), P95JCT: orNull(r.P95JCT), Makespan: orNull(r.Makespan),
		GPUUtil: r.GPUUtil, EffectiveUtil: r.EffectiveUtil, Restarts: r.Restarts, Shared: r.Shared,
		Extrapolated: r.Extrapolated, Assumed: r.Assumed, Warnings: r.Warnings}
	if r.Util != nil {
		out.Util = make([]utilFile, len(r.Util))
		for i, u := range r.Util {
			out.Util[i] = utilFile(u)
		}
	}
	if r.Jobs != nil {
		out.Jobs = make([]jobFile, len(r.Jobs))
		for i, j := range r.Jobs {
			out.Jobs[i] = jobFile{ID: j.ID, Line: j.Line, Workload: j.Workload, Scale: j.Scale, Degree: j.Degree, Steps: j.Steps,
				Arrival: j.Arrival, Start: orNull(j.Start), Finish: orNull(j.Finish), JCT: orNull(j.JCT),
				GPUType: j.GPUType, Restarts: j.Restarts, Shared: j.Shared, Status: j.Status, Reason: j.Reason,
				Extrapolated: j.Extrapolated, Assumed: j.Assumed}
		}
	}
	return out
}

func fromFile(f resultFile) *sim.Result {
	out := &sim.Result{Policy: f.Policy, Completed: f.Completed, Unrunnable: f.Unrunnable,
		AvgJCT: orNaN(f.AvgJCT), P95JCT: orNaN(f.P95JCT), Makespan: orNaN(f.Makespan),
		GPUUtil: f.GPUUtil, EffectiveUtil: f.EffectiveUtil, Restarts: f.Restarts, Shared: f.Shared,
		Extrapolated: f.Extrapolated, Assumed: f.Assumed, Warnings: f.Warnings}
	if f.Util != nil {
		out.Util = make([]sim.TypeUtil, len(f.Util))
		for i, u := range f.Util {
			out.Util[i] = sim.TypeUtil(u)
		}
	}
	if f.Jobs != nil {
		out.Jobs = make([]sim.JobResult, len(f.Jobs))
		for i, j := range f.Jobs {
			out.Jobs[i] = sim.JobResult{ID: j.ID, Line: j.Line, Workload: j.Workload, Scale: j.Scale, Degree: j.Degree, Steps: j.Steps,
				Arrival: j.Arrival, Start: orNaN(j.Start), Finish: orNaN(j.Finish), JCT: orNaN(j.JCT),
				GPUType: j.GPUType, Restarts: j.Restarts, Shared: j.Shared, Status: j.Status, Reason: j.Reason,
				Extrapolated: j.Extrapolated, Assumed: j.Assumed}
		}
	}
	return out
}

// finite checks that every number of r that the file holds as a number
// is one JSON can hold: no infinity anywhere, and no NaN but in the
// fields written as null.
func finite(r *sim.Result) error {
	bad := func(x float64, nullable bool) bool { return math.IsInf(x, 0) || (!nullable && math.IsNaN(x)) }
	for _, c := range []struct {
		name     string
		x        float64
		nullable bool
	}{{"avg_jct_s", r.AvgJCT, true}, {"p95_jct_s", r.P95JCT, true}, {"makespan_s", r.Makespan, true},
		{"gpu_util", r.GPUUtil, false}, {"effective_util", r.EffectiveUtil, false}} {
		if bad(c.x, c.nullable) {
			return fmt.Errorf("%s is %v, which JSON cannot hold", c.name, c.x)
		}
	}
	for _, u := range r.Util {
		if bad(u.Util, false) || bad(u.Effective, false) {
			return fmt.Errorf("GPU type %s: utilisation %v / %v, which JSON cannot hold", u.GPUType, u.Util, u.Effective)
		}
	}
	for _, j := range r.Jobs {
		for _, c := range []struct {
			name     string
			x        float64
			nullable bool
		}{{"arrival_s", j.Arrival, false}, {"start_s", j.Start, true}, {"finish_s", j.Finish, true},
			{"jct_s", j.JCT, true}, {"shared_s", j.Shared, false}} {
			if bad(c.x, c.nullable) {
				return fmt.Errorf("job %d: %s is %v, which JSON cannot hold", j.ID, c.name, c.x)
			}
		}
	}
	return nil
}

// MaxReplayBytes is the largest replay file ReadReplay reads (it reads
// the file whole): every job of the trace takes about 250 bytes per
// policy, so a million-job trace under ten policies is some 2.5 GB.
const MaxReplayBytes = 4 << 30

// ReadReplay reads a replay file that WriteReplay wrote and validates it;
// every error names the file. A time written as null reads as NaN.
func ReadReplay(path string) (*Replay, error) {
	b, err := inputfile.ReadAll(path, "a replay file", MaxReplayBytes)
	if err != nil {
		return nil, err
	}
	r, err := decodeReplay(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

func decodeReplay(b []byte) (*Replay, error) {
	format, version, err := jsonkeys.Head(b)
	if err != nil {
		return nil, err
	}
	if format != ReplayFormat {
		return nil, fmt.Errorf("not a replay file: format %q, want %q", format, ReplayFormat)
	}
	if version != ReplayVersion {
		return nil, fmt.Errorf("version %d is not known to this coloc (it reads version %d)", version, ReplayVersion)
	}
	var f replayFile
	if err := jsonkeys.Decode(b, &f); err != nil {
		return nil, err
	}
	if f.Trace == nil {
		return nil, fmt.Errorf("no trace")
	}
	if f.Cluster == nil {
		return nil, fmt.Errorf("no cluster")
	}
	if f.Settings == nil {
		return nil, fmt.Errorf("no settings")
	}
	r := &Replay{Trace: *f.Trace, Cluster: *f.Cluster, Data: f.Data, Models: f.Models, Seed: f.Seed, Settings: *f.Settings}
	if f.Results != nil {
		r.Results = make([]*sim.Result, len(f.Results))
		for i, rf := range f.Results {
			r.Results[i] = fromFile(rf)
		}
	}
	if err := r.validate(); err != nil {
		return nil, err
	}
	return r, nil
}

// validate checks what a reader relies on: a trace and a cluster, results
// each with a policy of its own and every trace job, done or unrunnable,
// counts that are not negative and agree with the jobs.
func (r *Replay) validate() error {
	t := r.Trace
	switch {
	case t.Path == "":
		return fmt.Errorf("no trace")
	case !isSHA256(t.SHA256):
		return fmt.Errorf("trace %s: sha256 %q is not 64 hex digits", t.Path, t.SHA256)
	case t.Jobs < 0:
		return fmt.Errorf("trace %s: %d jobs, a negative count", t.Path, t.Jobs)
	}
	c := r.Cluster
	switch {
	case c.Path == "":
		return fmt.Errorf("no cluster")
	case !isSHA256(c.SHA256):
		return fmt.Errorf("cluster %s: sha256 %q is not 64 hex digits", c.Path, c.SHA256)
	case len(c.GPUs) == 0:
		return fmt.Errorf("cluster %s: no GPUs", c.Path)
	}
	for _, g := range c.GPUs {
		if g.Type == "" || g.Count < 1 {
			return fmt.Errorf("cluster %s: %d GPUs of type %q, want a type with at least one", c.Path, g.Count, g.Type)
		}
	}
	if len(r.Results) == 0 {
		return fmt.Errorf("no results")
	}
	seen := map[string]int{}
	for i, res := range r.Results {
		if res == nil || res.Policy == "" {
			return fmt.Errorf("result %d of %d has no policy", i+1, len(r.Results))
		}
		if k, ok := seen[res.Policy]; ok {
			return fmt.Errorf("policy %q: results %d and %d, one result per policy", res.Policy, k+1, i+1)
		}
		seen[res.Policy] = i
		if err := validResult(res, t.Jobs); err != nil {
			return fmt.Errorf("policy %q: %w", res.Policy, err)
		}
	}
	return nil
}

func validResult(r *sim.Result, jobs int) error {
	if len(r.Jobs) != jobs {
		return fmt.Errorf("%d jobs, but the trace has %d", len(r.Jobs), jobs)
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"completed", r.Completed}, {"unrunnable", r.Unrunnable}, {"restarts", r.Restarts},
		{"shared_jobs", r.Shared}, {"extrapolated_jobs", r.Extrapolated}, {"assumed_jobs", r.Assumed}} {
		if c.n < 0 {
			return fmt.Errorf("%s %d is negative", c.name, c.n)
		}
	}
	for _, u := range r.Util {
		if u.GPUs < 0 {
			return fmt.Errorf("GPU type %s: gpus %d is negative", u.GPUType, u.GPUs)
		}
	}
	done, unrunnable := 0, 0
	for i, j := range r.Jobs {
		if j.ID != i {
			return fmt.Errorf("job %d in place %d: jobs are by ID from 0", j.ID, i)
		}
		for _, c := range []struct {
			name string
			n    int64
		}{{"line", int64(j.Line)}, {"scale", int64(j.Scale)}, {"degree", int64(j.Degree)}, {"steps", j.Steps}, {"restarts", int64(j.Restarts)}} {
			if c.n < 0 {
				return fmt.Errorf("job %d: %s %d is negative", j.ID, c.name, c.n)
			}
		}
		switch j.Status {
		case sim.StatusDone:
			done++
			if math.IsNaN(j.JCT) {
				return fmt.Errorf("job %d: done without jct_s", j.ID)
			}
		case sim.StatusUnrunnable:
			unrunnable++
		default:
			return fmt.Errorf("job %d: status %q, want %s or %s", j.ID, j.Status, sim.StatusDone, sim.StatusUnrunnable)
		}
	}
	if done != r.Completed || unrunnable != r.Unrunnable {
		return fmt.Errorf("completed %d and unrunnable %d, but %d jobs are %s and %d %s",
			r.Completed, r.Unrunnable, done, sim.StatusDone, unrunnable, sim.StatusUnrunnable)
	}
	return nil
}

func isSHA256(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}
