package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
)

// CounterOptions describe a synthetic dataset whose interference follows
// from solo counters: the second kind of `coloc datasets synth`, a dataset
// with rich solo counters and a known structure, on several device types.
//
// Workload j has an SM demand s_j ~ U(0.15, 0.95) and a memory-bandwidth
// demand b_j ~ U(0.05, 0.75) (shares of one GPU of the first device type),
// a sensitivity g_j ~ U(0.5, 1.5) that no counter shows, a solo throughput
// T_j = 10^U(1.5, 3.5) samples/s and a peak memory of 10^U(0, 1.3) GB. On
// the i-th device type (0-based, in the order given) its bandwidth demand
// is b_j/(1+0.5i) (each later type has more bandwidth) and its solo
// throughput T_j·(1+0.5i). The normalized throughput of A next to B there
// is
//
//	y = 0.97 · min(1, 1/L)^g_A + noise·ε,   L = max(s_A + s_B, b_A + b_B),
//
// floored at 0.05: both jobs slow down when either resource is asked for
// more than it has (proportional sharing), a job by its own sensitivity,
// and sharing costs 3% even below saturation. The solo table carries the
// counters as a profiler reads them: sm_util and mem_bw_util in percent
// (the demands plus N(0, 0.02²), within [1, 100]) and peak_memory. A pair
// {A, B} (A = B included: a job next to a copy of itself) is measured,
// both orders, with probability partners/(jobs-1), per device type.
//
// The constants are a plausible shape, not fitted to any dataset: the
// ranges span idle to saturating jobs, so that about half the pairs
// saturate a resource.
type CounterOptions struct {
	Jobs     int      `json:"jobs"`
	Partners int      `json:"partners"`
	Devices  []string `json:"devices"`
	Noise    float64  `json:"noise"`
	Seed     uint64   `json:"seed"`
}

// DefaultCounterOptions: 24 workloads on rtx3090 and a100-80gb, every
// pair measured, noise 0.02.
var DefaultCounterOptions = CounterOptions{Jobs: 24, Devices: []string{"rtx3090", "a100-80gb"}, Noise: 0.02, Seed: 1}

// Source is the value of the source column of every row written for o.
func (o CounterOptions) Source() string {
	return fmt.Sprintf("synthetic:counters jobs=%d partners=%d devices=%s noise=%g seed=%d",
		o.Jobs, o.Partners, strings.Join(o.Devices, "+"), o.Noise, o.Seed)
}

// NoiseFloor is the MAE no model can beat on average: noise·sqrt(2/π).
func (o CounterOptions) NoiseFloor() float64 { return o.Noise * math.Sqrt(2/math.Pi) }

// DrawCounters draws the dataset of o.
func DrawCounters(o CounterOptions) (*Catalogue, error) {
	if o.Jobs < 2 || o.Noise < 0 || o.Partners < 0 || len(o.Devices) == 0 {
		return nil, fmt.Errorf("counters: need at least 2 jobs, a device type and non-negative noise and partners (got %+v)", o)
	}
	seen := map[string]bool{}
	for _, d := range o.Devices {
		if d == "" || strings.TrimSpace(d) != d || strings.ContainsAny(d, "@/,") {
			return nil, fmt.Errorf("device type %q: not empty, no spaces around it, no '@', '/' or ','", d)
		}
		if seen[d] {
			return nil, fmt.Errorf("device type %q given twice", d)
		}
		seen[d] = true
	}
	r := rand.New(rand.NewPCG(o.Seed, 0xc0de))
	n := o.Jobs
	sm, bw, g, tput, mem := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for j := 0; j < n; j++ {
		sm[j] = 0.15 + 0.8*r.Float64()
		bw[j] = 0.05 + 0.7*r.Float64()
		g[j] = 0.5 + r.Float64()
		tput[j] = math.Pow(10, 1.5+2*r.Float64())
		mem[j] = math.Pow(10, 1.3*r.Float64()) * 1e9
	}
	src := o.Source()
	width := len(fmt.Sprint(n - 1))
	name := func(j int) string { return fmt.Sprintf("job%0*d", width, j) }
	solo := &datasets.SoloTable{ThroughputUnit: datasets.UnitSamplesPerS, Features: []datasets.Feature{
		{Name: "sm_util", Unit: "%"}, {Name: "mem_bw_util", Unit: "%"}}}
	pairs := &datasets.Pairs{ThroughputUnit: datasets.UnitSamplesPerS}
	metas := make([]datasets.WorkloadMeta, n)
	for j := range metas {
		metas[j] = datasets.WorkloadMeta{Workload: name(j), Model: "synthetic", Source: src}
	}
	p := 1.0
	if o.Partners > 0 && o.Partners < n-1 {
		p = float64(o.Partners) / float64(n-1)
	}
	counter := func(x float64) float64 { return math.Round(100*min(1, max(0.01, x+0.02*r.NormFloat64()))*100) / 100 }
	for i, dev := range o.Devices {
		scale := 1 + 0.5*float64(i)
		b := make([]float64, n)
		for j := range b {
			b[j] = bw[j] / scale
			solo.Rows = append(solo.Rows, datasets.Solo{
				Workload: name(j), DeviceType: dev, Degree: 1, Throughput: tput[j] * scale,
				CILow: math.NaN(), CIHigh: math.NaN(), PeakMemory: mem[j], Source: src,
				Features: []float64{counter(sm[j]), counter(b[j])},
			})
		}
		y := func(a, c int) float64 {
			load := max(sm[a]+sm[c], b[a]+b[c])
			return max(0.05, 0.97*math.Pow(min(1, 1/load), g[a])+o.Noise*r.NormFloat64())
		}
		add := func(a, c int, v float64) {
			s := tput[a] * scale
			pairs.Rows = append(pairs.Rows, datasets.Pair{
				Workload: name(a), Partner: name(c), DeviceType: dev, Degree: 1,
				Solo: s, Colocated: v * s, Normalized: v, NormLow: math.NaN(), NormHigh: math.NaN(),
				Status: datasets.StatusOK, Source: src,
			})
		}
		for a := 0; a < n; a++ {
			for c := a; c < n; c++ {
				if r.Float64() >= p {
					continue
				}
				ya, yc := y(a, c), y(c, a)
				add(a, c, ya)
				if c != a {
					add(c, a, yc)
				}
			}
		}
	}
	return &Catalogue{Solo: solo, Pairs: pairs, Workloads: metas, NoiseFloor: o.NoiseFloor()}, nil
}
