// Package rates is the one table of measured rates that placement (package
// place, its Data) and the simulator (package sim, its Measured) read: each
// workload's solo rate by (workload, device type, degree) and each ordered
// pair's co-located throughput by (workload, partner, device type, degree)
// with its status, built once from a dataset's solo and pairs tables.
//
// It sits directly above package datasets (layer 2 of
// docs/architecture.md), the lowest layer both readers can import, rather
// than in datasets itself: datasets is the data model (files, schemas,
// validation) and depends on nothing of ours, while this table is a view
// of its rows with a reader's choices (which row of a key is kept, which
// unit the rates are in, which pairs count as measured). Importing only
// datasets, it is below features, model, place and sim alike.
//
// A placement's shape (GPU type, degree, spread over nodes or not) names
// a row through Device, the one rule both readers apply: a placement of
// more than one GPU spread over nodes reads the spread device type
// (datasets.SpreadType).
//
// # Where the readers differ
//
// The two readers read the same rows, but not in the same unit, and that
// difference lives here, in the two constructors (units.go):
//
//   - New and Add (place): rates stay in the unit of the data; a table in
//     another unit is left out, never converted, and the first dataset
//     that gives a key keeps it.
//   - InIterations (sim): rates in iterations/s, the unit of trace steps; a
//     table in samples/s is divided by each workload's per-GPU batch size
//     from the solo table, which must give one per workload.
//
// What each reader takes of a pair differs too, and both are kept on the
// row: place reads its normalized throughput (Pair.Normalized, the pairs
// table's own co-located / solo) and its status, whatever the status;
// sim reads the co-located rate (Pair.Colocated) of status-ok pairs only.
// The two agree only where a pair row's solo throughput is the solo
// table's.
//
// What is not the table's stays with its reader: place's scaling curves
// and the batch size a job asks for (the solo table holds one row, so one
// batch size, per key: Solo.Batch is the row's, not a key); sim's
// extrapolated solo rates, assumed multi-GPU pairs and free spread.
package rates

import (
	"cmp"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
)

// Key names a solo rate: a workload on Degree GPUs of a device type.
type Key struct {
	Workload, Device string
	Degree           int
}

// PairKey names a pair's rate: Workload while it shares its Degree GPUs of
// a device type with Partner.
type PairKey struct {
	Workload, Partner, Device string
	Degree                    int
}

// Solo is a solo row's rate and what the readers take with it.
type Solo struct {
	Rate       float64 // throughput, in the table's Unit
	Batch      int     // per-GPU batch size of the row; 0 if unknown
	PeakMemory float64 // bytes per GPU; NaN if unknown
	Source     string
}

// Pair is a pair row's values.
type Pair struct {
	// Normalized is the row's normalized throughput (co-located / solo, as
	// the pairs table gives it); NaN when the pair did not run.
	Normalized float64
	// Colocated is the co-located throughput, in the table's Unit; NaN
	// when the pair did not run.
	Colocated float64
	Status    string
}

// OK reports whether the pair was measured with status ok: the only
// pairs whose values are rates (datasets.Pair.Measured).
func (p Pair) OK() bool { return p.Status == datasets.StatusOK }

// Table is the measured rates of a dataset (or of several: Add), in one
// unit. It is only read once built.
type Table struct {
	// Unit is the throughput unit of every rate.
	Unit string

	solo      map[Key]Solo
	pairs     map[PairKey]Pair
	workloads map[string]bool         // with a solo row
	devices   map[string]bool         // of the solo rows
	types     map[string]bool         // GPU types of the solo rows (datasets.BaseType)
	okSlots   map[datasets.Shape]bool // of the status-ok pairs
}

func newTable(unit string) *Table {
	return &Table{
		Unit: unit, solo: map[Key]Solo{}, pairs: map[PairKey]Pair{},
		workloads: map[string]bool{}, devices: map[string]bool{}, types: map[string]bool{}, okSlots: map[datasets.Shape]bool{},
	}
}

// setSolo and setPair index a row; the constructors decide which rows and
// in which unit.
func (t *Table) setSolo(k Key, s Solo) {
	t.solo[k] = s
	t.workloads[k.Workload] = true
	t.devices[k.Device] = true
	base, _ := datasets.BaseType(k.Device)
	t.types[base] = true
}

func (t *Table) setPair(k PairKey, p Pair) {
	t.pairs[k] = p
	if p.OK() {
		t.okSlots[datasets.ShapeOf(k.Device, k.Degree)] = true
	}
}

// Device is the device type whose rows rate a placement on degree GPUs
// of gpuType: datasets.SpreadType(gpuType) when spread over nodes (a
// single GPU is never spread), else gpuType.
func Device(gpuType string, degree int, spread bool) string {
	return datasets.Shape{GPUType: gpuType, GPUs: degree, Spread: spread && degree > 1}.Device()
}

// Solo returns the solo row of k.
func (t *Table) Solo(k Key) (Solo, bool) {
	s, ok := t.solo[k]
	return s, ok
}

// Pair returns the pair row of k, of any status.
func (t *Table) Pair(k PairKey) (Pair, bool) {
	p, ok := t.pairs[k]
	return p, ok
}

// Solos returns every solo row, in no order.
func (t *Table) Solos() iter.Seq2[Key, Solo] { return maps.All(t.solo) }

// Pairs returns every pair row, of any status, in no order.
func (t *Table) Pairs() iter.Seq2[PairKey, Pair] { return maps.All(t.pairs) }

// Knows reports whether workload w has a solo row.
func (t *Table) Knows(w string) bool { return t.workloads[w] }

// Workloads returns the workloads with a solo row, sorted.
func (t *Table) Workloads() []string { return slices.Sorted(maps.Keys(t.workloads)) }

// HasDevice reports whether a solo row is on device type dev, as
// spelled: a spread device type is not its GPU type (place's reading).
func (t *Table) HasDevice(dev string) bool { return t.devices[dev] }

// HasGPUType reports whether a solo row is on GPU type g, on one node or
// spread (datasets.BaseType; sim's reading).
func (t *Table) HasGPUType(g string) bool { return t.types[g] }

// HasOKPairs reports whether a status-ok pair is on degree GPUs of dev.
func (t *Table) HasOKPairs(dev string, degree int) bool {
	return t.okSlots[datasets.ShapeOf(dev, degree)]
}

// OKSlots returns the shapes (device types and degrees) with a status-ok
// pair, sorted by device type, then degree.
func (t *Table) OKSlots() []datasets.Shape {
	return slices.SortedFunc(maps.Keys(t.okSlots), func(a, b datasets.Shape) int {
		return cmp.Or(strings.Compare(a.Device(), b.Device()), cmp.Compare(a.GPUs, b.GPUs))
	})
}
