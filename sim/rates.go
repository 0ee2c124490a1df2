package sim

import (
	"fmt"
	"sort"

	"github.com/coloc-dev/coloc/datasets"
)

// Shape is the shape of a placement: how many GPUs of which type, and
// whether they span more than one node.
type Shape struct {
	GPUType string
	GPUs    int
	Spread  bool // the GPUs are on more than one node
}

func (s Shape) String() string {
	where := "one node"
	if s.Spread {
		where = "several nodes"
	}
	return fmt.Sprintf("%d %s GPU(s) on %s", s.GPUs, s.GPUType, where)
}

// Rates gives training rates in iterations/s: of a job alone on a
// placement of shape s, and of a job while it shares every GPU of its
// placement with partner. ok is false when there is no rate (the job cannot
// run there, or the pair cannot share).
//
// The simulator's ground truth is a Rates built from measurements
// (Measured); the estimator a policy decides with is a Rates too: the
// measured solo rates alone for the baselines (SoloOnly), model
// predictions for coloc, the measurements themselves for oracle.
type Rates interface {
	Solo(workload string, s Shape) (float64, bool)
	Colocated(workload, partner string, s Shape) (float64, bool)
}

// SoloOnly returns the solo rates of r and no co-located rate: what a
// scheduler knows from profiling each job alone.
func SoloOnly(r Rates) Rates { return soloOnly{r} }

type soloOnly struct{ r Rates }

func (s soloOnly) Solo(w string, sh Shape) (float64, bool) { return s.r.Solo(w, sh) }
func (soloOnly) Colocated(string, string, Shape) (float64, bool) {
	return 0, false
}

// Measured is the ground truth of the simulator: measured solo rates and
// the co-located rates of pairs with status ok. A suspect, infeasible or
// missing pair has no co-located rate, so the pair never shares a GPU.
//
// A placement spread over nodes reads the spread device type
// (datasets.SpreadType); a single GPU is never spread.
type Measured struct {
	solo      map[rateKey]float64
	pairs     map[pairKey]float64
	workloads map[string]bool
	types     map[string]bool
	extra     map[rateKey]bool // solo rates extrapolated, not measured
	assumed   map[pairKey]bool // pair rates assumed, not measured (assumed.go)
	// freeSpread rates a placement spread over nodes as one on one node
	// (FreeSpread).
	freeSpread bool
}

type rateKey struct {
	workload, device string
	degree           int
}

type pairKey struct {
	workload, partner, device string
	degree                    int
}

// NewMeasured builds the ground truth from a dataset's solo and pairs
// tables, in iterations/s, the unit of trace steps. A table in samples/s
// (what coloc's profiler writes) is converted with each workload's
// per-GPU batch size from the solo table: a rate at degree d is the
// job's aggregate iterations/s, d workers each doing iterations of its
// per-GPU batch (as Gavel's rates are), so iterations/s = samples/s /
// batch size at every degree. A workload without a batch size, or with
// two, is refused by name.
func NewMeasured(solo *datasets.SoloTable, pairs *datasets.Pairs) (*Measured, error) {
	if solo == nil {
		return nil, fmt.Errorf("no solo table: the simulator needs measured solo rates")
	}
	soloDiv, pairDiv, err := divisors(solo, pairs)
	if err != nil {
		return nil, err
	}
	m := &Measured{
		solo:      map[rateKey]float64{},
		pairs:     map[pairKey]float64{},
		workloads: map[string]bool{},
		types:     map[string]bool{},
	}
	for _, r := range solo.Rows {
		m.solo[rateKey{r.Workload, r.DeviceType, r.Degree}] = r.Throughput / soloDiv(r.Workload)
		m.workloads[r.Workload] = true
		base, _ := datasets.BaseType(r.DeviceType)
		m.types[base] = true
	}
	if pairs != nil {
		for _, p := range pairs.Rows {
			if p.Measured() {
				m.pairs[pairKey{p.Workload, p.Partner, p.DeviceType, p.Degree}] = p.Colocated / pairDiv(p.Workload)
			}
		}
	}
	return m, nil
}

// divisors returns what NewMeasured divides each table's throughputs by
// to get iterations/s, given the workload: 1 for a table in iterations/s,
// the workload's per-GPU batch size (from the solo table) for one in
// samples/s. With a table in samples/s every workload the tables hold
// must have one batch size.
func divisors(solo *datasets.SoloTable, pairs *datasets.Pairs) (soloDiv, pairDiv func(string) float64, err error) {
	batch := map[string]int{}
	one := func(string) float64 { return 1 }
	byBatch := func(w string) float64 { return float64(batch[w]) }
	pick := func(table, unit string) (func(string) float64, error) {
		switch unit {
		case datasets.UnitItersPerS:
			return one, nil
		case datasets.UnitSamplesPerS:
			return byBatch, nil
		}
		return nil, fmt.Errorf("%s throughput is in %s; the simulator needs %s (trace jobs count iterations) or %s with batch sizes", table, unit, datasets.UnitItersPerS, datasets.UnitSamplesPerS)
	}
	if soloDiv, err = pick("solo", solo.ThroughputUnit); err != nil {
		return nil, nil, err
	}
	pairDiv = one
	if pairs != nil {
		if pairDiv, err = pick("pair", pairs.ThroughputUnit); err != nil {
			return nil, nil, err
		}
	}
	pairsInSamples := pairs != nil && pairs.ThroughputUnit == datasets.UnitSamplesPerS
	if solo.ThroughputUnit == datasets.UnitItersPerS && !pairsInSamples {
		return soloDiv, pairDiv, nil
	}
	for i, r := range solo.Rows {
		switch b, ok := batch[r.Workload]; {
		case r.BatchSize <= 0:
			return nil, nil, fmt.Errorf("solo row %d: workload %s has no batch size: samples/s cannot be turned into the iterations/s trace steps count", i+1, r.Workload)
		case ok && b != r.BatchSize:
			return nil, nil, fmt.Errorf("solo row %d: workload %s has batch sizes %d and %d: samples/s cannot be turned into iterations/s", i+1, r.Workload, b, r.BatchSize)
		}
		batch[r.Workload] = r.BatchSize
	}
	if pairsInSamples {
		for i, p := range pairs.Rows {
			if _, ok := batch[p.Workload]; !ok && p.Measured() {
				return nil, nil, fmt.Errorf("pairs row %d: workload %s has no solo row, so no batch size: samples/s cannot be turned into iterations/s", i+1, p.Workload)
			}
		}
	}
	return soloDiv, pairDiv, nil
}

func (m *Measured) device(s Shape) string {
	if s.Spread && s.GPUs > 1 && !m.freeSpread {
		return datasets.SpreadType(s.GPUType)
	}
	return s.GPUType
}

// FreeSpread returns m with every placement spread over nodes rated as
// the same GPUs on one node: the assumption of Gavel's simulator, where a
// job's rate never depends on where its workers land (it re-places jobs
// every round at no cost). Apply it last: the copies Extrapolated and
// AssumedPairs make do not keep it.
func (m *Measured) FreeSpread() *Measured {
	out := *m
	out.freeSpread = true
	return &out
}

// Solo returns the measured solo rate.
func (m *Measured) Solo(w string, s Shape) (float64, bool) {
	v, ok := m.solo[rateKey{w, m.device(s), s.GPUs}]
	return v, ok
}

// Colocated returns the measured rate of w next to partner, only for a
// status-ok pair.
func (m *Measured) Colocated(w, partner string, s Shape) (float64, bool) {
	v, ok := m.pairs[pairKey{w, partner, m.device(s), s.GPUs}]
	return v, ok
}

// Knows reports whether the data has any solo rate of workload w.
func (m *Measured) Knows(w string) bool { return m.workloads[w] }

// HasType reports whether the data has any solo rate on GPU type t.
func (m *Measured) HasType(t string) bool { return m.types[t] }

// Workloads returns the sorted workloads with a solo rate.
func (m *Measured) Workloads() []string {
	out := make([]string, 0, len(m.workloads))
	for w := range m.workloads {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}
