package place

// Level says which placement stage asks for an estimate: the cluster
// level (CLWP, jobs to nodes; Geng et al. drive it with IASP) or the node
// level (NLWP, tasks to GPUs; driven by IAPP).
type Level int

// Placement stages.
const (
	ClusterLevel Level = iota // CLWP
	NodeLevel                 // NLWP
)

func (l Level) String() string {
	if l == ClusterLevel {
		return "cluster"
	}
	return "node"
}

// Estimator is what the engine knows of jobs' speed: solo throughput on a
// placement shape and the normalized throughput of a job next to another.
// The export backs it with the measurements and the fitted models
// (measured where measured, else predicted); the simulator's coloc policy
// with the models' predictions only; the oracle with the simulator's
// ground truth.
type Estimator interface {
	// Solo returns the throughput of t alone on degree GPUs of gpuType,
	// on one node or spread over several, in the engine's Options.Unit;
	// ok is false when there is none (it cannot run there).
	Solo(t *Task, gpuType string, degree int, spread bool) (rate float64, ok bool)
	// Normalized returns the normalized throughput of t while it shares
	// all its degree GPUs of gpuType with partner (co-located over solo),
	// as estimated for the given stage, and where the value comes from
	// ("measured", "predicted:iasp"); ok is false when the two may not
	// share (infeasible, or nothing to estimate from).
	Normalized(l Level, t, partner *Task, gpuType string, degree int) (y float64, source string, ok bool)
}

// Task is a job as the engine places it: the workload whose measurements
// and predictions stand for it and what it needs.
type Task struct {
	ID string
	// Workload is a workload the estimator knows: the job's own, or its
	// nearest similar reference for a job never profiled.
	Workload string
	// Degrees are the allowed numbers of GPUs, ascending.
	Degrees []int
	// BatchSize is the per-GPU batch size; 0 when unknown.
	BatchSize int
	// MemoryGB is the peak memory per GPU, 10^9 bytes; 0 when unknown
	// (then not checked).
	MemoryGB float64
	// Params is the model's parameter count, for the all-reduce volume; 0
	// when unknown (then no communication cost is counted).
	Params float64
}
