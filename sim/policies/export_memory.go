package policies

import (
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/sim"
)

// exportMemory is what the export knows of memory: per workload standing
// for jobs of the list, the largest peak memory per GPU among those jobs
// (a job's memory_gb, else the data's peak memory of its workload; 0:
// unknown), and per GPU type the smallest memory of its GPUs in the
// cluster spec (0: unknown). The decision core decides per workload, so a
// workload is as large as its largest job: a conservative choice, exact
// when the jobs of a workload agree (as they do when the data give it).
type exportMemory struct {
	job map[string]float64 // by workload, GB per GPU
	gpu map[string]float64 // by GPU type, GB
}

func newExportMemory(in place.Input, js []place.Resolved) exportMemory {
	m := exportMemory{job: map[string]float64{}, gpu: map[string]float64{}}
	for _, r := range js {
		if r.Workload == "" {
			continue
		}
		gb := r.Job.MemoryGB
		if gb == 0 {
			gb = in.Data.MemoryGB(r.Workload)
		}
		m.job[r.Workload] = max(m.job[r.Workload], gb)
	}
	for _, n := range in.Cluster.Nodes() {
		if g, ok := m.gpu[n.GPUType]; !ok || (n.MemoryGB > 0 && n.MemoryGB < g) || g == 0 {
			m.gpu[n.GPUType] = n.MemoryGB
		}
	}
	return m
}

// fits reports whether jobs of these workloads (one, or a pair) fit a GPU
// of the type together; unknown memory fits.
func (m exportMemory) fits(gpuType string, workloads ...string) bool {
	limit := m.gpu[gpuType]
	if limit <= 0 {
		return true
	}
	sum := 0.0
	for _, w := range workloads {
		gb := m.job[w]
		if gb <= 0 {
			return true
		}
		sum += gb
	}
	return sum <= limit
}

// memoryRates hides the solo rates of a workload on a type whose GPUs it
// does not fit.
type memoryRates struct {
	sim.Rates
	mem exportMemory
}

func (r memoryRates) Solo(w string, s sim.Shape) (float64, bool) {
	if !r.mem.fits(s.GPUType, w) {
		return 0, false
	}
	return r.Rates.Solo(w, s)
}

// memoryPairs refuses a pair whose two jobs do not fit one GPU together.
func memoryPairs(pair PairRate, mem exportMemory) PairRate {
	return func(v *sim.View, w, q string, sh sim.Shape) (float64, bool) {
		if !mem.fits(sh.GPUType, w, q) {
			return 0, false
		}
		return pair(v, w, q, sh)
	}
}
