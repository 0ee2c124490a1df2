package policy

import (
	"sort"

	"github.com/coloc-dev/coloc/internal/similarity"
)

// Policy is a policy file that was read and validated, with the indexes
// its lookups use, built once when it is loaded. Its methods only read,
// so one Policy may serve many goroutines. File must not be changed.
type Policy struct {
	// Name is the file's name, as given to Load or Decode.
	Name string
	File *File

	decisions map[string]int
	pairs     map[pairKey]float64
	solo      map[soloKey]int
	scaling   map[scalingKey]int
	fastest   map[string]int      // workload -> its solo row at degree 1 on the cluster's fastest type
	refs      []similarity.Vector // normalized, aligned with File.Similarity.References
	byName    []int               // reference indices in name order
}

type pairKey struct {
	gpuType           string
	degree            int
	workload, partner string
}

type soloKey struct {
	workload, gpuType string
	degree            int
}

type scalingKey struct{ workload, gpuType string }

// build indexes a valid file.
func build(f *File, name string) *Policy {
	p := &Policy{
		Name: name, File: f,
		decisions: make(map[string]int, len(f.Decisions)),
		pairs:     make(map[pairKey]float64, len(f.Pairs)),
		solo:      make(map[soloKey]int, len(f.Solo)),
		scaling:   make(map[scalingKey]int, len(f.Scaling)),
	}
	for i, d := range f.Decisions {
		p.decisions[d.Job] = i
	}
	for _, x := range f.Pairs {
		p.pairs[pairKey{x.GPUType, x.Degree, x.Workload, x.Partner}] = x.Normalized
	}
	inCluster := map[string]bool{}
	for _, n := range f.Cluster.Nodes {
		inCluster[n.GPUType] = true
	}
	p.fastest = map[string]int{}
	for i, x := range f.Solo {
		p.solo[soloKey{x.Workload, x.GPUType, x.Degree}] = i
		if x.Degree != 1 || !inCluster[x.GPUType] {
			continue
		}
		j, seen := p.fastest[x.Workload]
		if !seen || x.Throughput > f.Solo[j].Throughput || (x.Throughput == f.Solo[j].Throughput && x.GPUType < f.Solo[j].GPUType) {
			p.fastest[x.Workload] = i
		}
	}
	for i, x := range f.Scaling {
		p.scaling[scalingKey{x.Workload, x.GPUType}] = i
	}
	s := &f.Similarity
	p.refs = make([]similarity.Vector, len(s.References))
	p.byName = make([]int, len(s.References))
	for i, r := range s.References {
		num := make([]float64, len(r.Num))
		for k, v := range r.Num {
			num[k] = nan
			if v != nil {
				num[k] = *v
			}
		}
		p.refs[i] = s.normalize(num, r.Cat)
		p.byName[i] = i
	}
	sort.Slice(p.byName, func(a, b int) bool {
		return s.References[p.byName[a]].Workload < s.References[p.byName[b]].Workload
	})
	return p
}

// Decision returns the decision of a job of the job list.
func (p *Policy) Decision(job string) (Decision, bool) {
	i, ok := p.decisions[job]
	if !ok {
		return Decision{}, false
	}
	return p.File.Decisions[i], true
}

// Degree returns the number of GPUs a job of the job list was given; ok
// is false when the job is unknown or unplaceable.
func (p *Policy) Degree(job string) (int, bool) {
	d, ok := p.Decision(job)
	if !ok || d.Status != StatusPlaced {
		return 0, false
	}
	return d.Degree, true
}

// Normalized returns the normalized throughput of workload while it
// shares its GPUs with partner, on gpuType at degree GPUs each (measured
// or predicted: see the Pair's Source); ok is false when the file has no
// such pair. The value may exceed 1.
func (p *Policy) Normalized(gpuType string, degree int, workload, partner string) (float64, bool) {
	v, ok := p.pairs[pairKey{gpuType, degree, workload, partner}]
	return v, ok
}

// Colocate says whether workloads a and b may share GPUs of gpuType at
// degree GPUs each: both normalized throughputs, a next to b and b next to
// a, are at least Thresholds.MinNormalized. known is false when the file
// lacks either value (then ok is false too).
func (p *Policy) Colocate(gpuType string, degree int, a, b string) (ok, known bool) {
	na, okA := p.Normalized(gpuType, degree, a, b)
	nb, okB := p.Normalized(gpuType, degree, b, a)
	if !okA || !okB {
		return false, false
	}
	m := p.File.Thresholds.MinNormalized
	return na >= m && nb >= m, true
}

// Solo returns the measured solo throughput of a workload on gpuType at
// degree GPUs (in File.ThroughputUnit), with its peak memory per GPU.
func (p *Policy) Solo(workload, gpuType string, degree int) (Solo, bool) {
	i, ok := p.solo[soloKey{workload, gpuType, degree}]
	if !ok {
		return Solo{}, false
	}
	return p.File.Solo[i], true
}

// FastestGPUType returns the solo row of a workload at degree 1 on the GPU
// type of the cluster where it runs fastest (ties: the type name first in
// order): the GPU type a scheduler gives a known workload. ok is false
// when the workload has no solo throughput on any GPU type of the cluster.
func (p *Policy) FastestGPUType(workload string) (Solo, bool) {
	i, ok := p.fastest[workload]
	if !ok {
		return Solo{}, false
	}
	return p.File.Solo[i], true
}

// Scaling returns the scaling curve of a workload on gpuType.
func (p *Policy) Scaling(workload, gpuType string) (Scaling, bool) {
	i, ok := p.scaling[scalingKey{workload, gpuType}]
	if !ok {
		return Scaling{}, false
	}
	return p.File.Scaling[i], true
}

// ChooseDegree applies the package's ChooseDegree rule, with the file's
// Thresholds.ScalingEfficiency, to a workload's scaling curve on gpuType:
// the degree of highest throughput whose scaling efficiency stays at or
// above the threshold, among the degrees of at most maxDegree GPUs (those
// free; 0 means no limit). ok is false when the file has no curve for the
// workload on gpuType or no point of it fits.
func (p *Policy) ChooseDegree(workload, gpuType string, maxDegree int) (ScalingPoint, bool) {
	s, ok := p.Scaling(workload, gpuType)
	if !ok {
		return ScalingPoint{}, false
	}
	return ChooseDegree(s.Points, p.File.Thresholds.ScalingEfficiency, maxDegree)
}
