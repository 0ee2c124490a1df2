package sampler

import (
	"math"
	"sort"

	"github.com/coloc-dev/coloc/datasets"
)

// Target is what one sampling tick looks at: the devices a run uses and the
// processes of each workload running on them.
type Target struct {
	// Devices are the GPU indices of the run (empty on a CPU-only run).
	Devices []int
	// Procs maps a workload name to the PIDs of its processes (all members
	// of its process group, torchrun workers included).
	Procs map[string][]int
}

// Reading is what one sampler read at one tick for one device, or for one
// workload's processes on one device.
type Reading struct {
	Device   int
	Workload string    // "" for a device-wide reading
	Values   []float64 // aligned with the sampler's Counters(); NaN = not read
}

// Sampler reads hardware or host counters. Implementations: NVML (device,
// per-process and GPM counters), host (/proc CPU time and RSS), and a null
// sampler for machines without a GPU. A Sampler is used from one goroutine.
type Sampler interface {
	// Name identifies the sampler in logs and manifests ("nvml", "host").
	Name() string
	// Counters lists the columns this sampler fills, with units. The list
	// is fixed for the sampler's lifetime.
	Counters() []datasets.Counter
	// Sample reads the counters once. A counter that could not be read is
	// NaN in its Reading; an error means the whole tick failed and is
	// recorded as a warning by the caller, which goes on sampling.
	Sample(t Target) ([]Reading, error)
	// Close releases the sampler's resources.
	Close() error
}

// Resetter is implemented by samplers that keep state between ticks (CPU
// times, GPM baseline samples). The Recorder calls Reset when a run starts,
// so no interval spans two runs: the first tick of a run reads such rates
// as NaN.
type Resetter interface {
	Reset()
}

// TenantLister is implemented by GPU samplers that can list the processes
// on a device. Tenants is called between runs, when every process on the
// campaign's devices is someone else's: it returns one message for each of
// devices that holds any, naming them.
type TenantLister interface {
	Tenants(devices []int) []string
}

// Warner is implemented by samplers that can say why a counter read as NaN
// (an NVML call that failed, a workload with no live process). Warnings
// returns the messages gathered since the last call and forgets them; the
// Recorder calls it after every tick.
type Warner interface {
	Warnings() []string
}

// Sharer is implemented by samplers that can tell that a run's devices
// held load that is not the run's: another tenant's processes. Shared
// returns what was found since the last call (a message naming the
// device and the processes) and forgets it; the Recorder calls it after
// every tick. A run with any is not measured alone (Notes.Shared).
type Sharer interface {
	Shared() []string
}

// Notes are what the Recorder has to say about a run besides its samples.
// Each message appears once, with how many ticks it concerned.
type Notes struct {
	// Warnings are ticks that failed and counters that read NaN, and why.
	Warnings []string
	// Shared says what else ran on the run's devices (Sharer): the run's
	// measurements include that load.
	Shared []string
}

// Workloads returns the names of the workloads in Procs, sorted, the order
// in which samplers emit their per-workload readings.
func (t Target) Workloads() []string {
	names := make([]string, 0, len(t.Procs))
	for w := range t.Procs {
		names = append(names, w)
	}
	sort.Strings(names)
	return names
}

// NaNs returns n NaNs: the Values of a reading whose counters were not read.
func NaNs(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}
