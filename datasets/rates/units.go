package rates

import (
	"fmt"
	"math"

	"github.com/coloc-dev/coloc/datasets"
)

// The two ways to build a table, one per reader: the rates in the data's
// own unit (New, Add: placement, whose policy file states throughputs in
// the data's unit), or in iterations/s (InIterations: the simulator,
// whose trace jobs count iterations). This file is the one place where
// the readers' units differ.

// New returns an empty table in unit; AddSolo and AddPairs fill it.
func New(unit string) *Table { return newTable(unit) }

// AddSolo adds the rows of s whose key the table does not hold yet (the
// first row given for a key is kept) and returns how many it skipped as
// already held. A table in a unit other than the table's is left out
// whole, never converted: ok is false.
func (t *Table) AddSolo(s *datasets.SoloTable) (ok bool, dups int) {
	if s.ThroughputUnit != t.Unit {
		return false, 0
	}
	for _, r := range s.Rows {
		k := Key{r.Workload, r.DeviceType, r.Degree}
		if _, seen := t.solo[k]; seen {
			dups++
			continue
		}
		t.setSolo(k, Solo{Rate: r.Throughput, Batch: r.BatchSize, PeakMemory: r.PeakMemory, Source: r.Source})
	}
	return true, dups
}

// AddPairs is AddSolo for the rows of a pairs table, of every status.
func (t *Table) AddPairs(p *datasets.Pairs) (ok bool, dups int) {
	if p.ThroughputUnit != t.Unit {
		return false, 0
	}
	for _, r := range p.Rows {
		k := PairKey{r.Workload, r.Partner, r.DeviceType, r.Degree}
		if _, seen := t.pairs[k]; seen {
			dups++
			continue
		}
		t.setPair(k, Pair{Normalized: r.Normalized, Colocated: r.Colocated, Status: r.Status})
	}
	return true, dups
}

// InIterations builds the table of one dataset's solo and pairs tables
// (pairs may be nil) in iterations/s, the unit of trace steps. A table in
// samples/s (what coloc's profiler writes) is converted with each
// workload's per-GPU batch size from the solo table: a rate at degree d
// is the job's aggregate iterations/s, d workers each doing iterations of
// its per-GPU batch (as Gavel's rates are), so iterations/s = samples/s /
// batch size at every degree. A workload without a batch size, or with
// two, is refused by name. A pair that is not status ok, of a workload
// with no batch size, has no co-located rate (NaN).
func InIterations(solo *datasets.SoloTable, pairs *datasets.Pairs) (*Table, error) {
	if solo == nil {
		return nil, fmt.Errorf("no solo table: the simulator needs measured solo rates")
	}
	soloDiv, pairDiv, err := divisors(solo, pairs)
	if err != nil {
		return nil, err
	}
	t := newTable(datasets.UnitItersPerS)
	for _, r := range solo.Rows {
		t.setSolo(Key{r.Workload, r.DeviceType, r.Degree}, Solo{Rate: r.Throughput / soloDiv(r.Workload), Batch: r.BatchSize, PeakMemory: r.PeakMemory, Source: r.Source})
	}
	if pairs != nil {
		for _, p := range pairs.Rows {
			co := math.NaN()
			if div := pairDiv(p.Workload); div > 0 {
				co = p.Colocated / div
			}
			t.setPair(PairKey{p.Workload, p.Partner, p.DeviceType, p.Degree}, Pair{Normalized: p.Normalized, Colocated: co, Status: p.Status})
		}
	}
	return t, nil
}

// divisors returns what InIterations divides each table's throughputs by
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
