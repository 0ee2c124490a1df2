package sim

import (
	"fmt"
	"iter"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/datasets/rates"
)

// Shape is the shape of a placement: how many GPUs of which type, and
// whether they span more than one node (datasets.Shape, the key every
// stage shares, with its one name: "v100x2").
type Shape = datasets.Shape

// where says a shape in words, for messages ("2 v100 GPU(s) on one
// node"); its name (String) is the key's.
func where(s Shape) string {
	on := "one node"
	if s.Spread {
		on = "several nodes"
	}
	return fmt.Sprintf("%d %s GPU(s) on %s", s.GPUs, s.GPUType, on)
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
// the co-located rates of pairs with status ok, read from the dataset's
// rate table (package datasets/rates, in iterations/s). A suspect,
// infeasible or missing pair has no co-located rate, so the pair never
// shares a GPU.
//
// A placement spread over nodes reads the spread device type
// (rates.Device); a single GPU is never spread.
//
// The simulator's own variants lie over the table: solo rates
// extrapolated beyond the measured degrees (extrapolate.go), pair rates
// assumed on more than one GPU, or the measured ones left out there
// (assumed.go), and spread placements rated as on one node (FreeSpread).
type Measured struct {
	t *rates.Table
	// Rates the table does not hold: solo rates extrapolated, pair rates
	// assumed.
	solo  map[rates.Key]float64
	pairs map[rates.PairKey]float64
	// oneGPUPairs leaves out the table's pairs on more than one GPU
	// (WithoutMultiGPUPairs).
	oneGPUPairs bool
	extra       map[rates.Key]bool     // solo rates extrapolated, not measured
	assumed     map[rates.PairKey]bool // pair rates assumed, not measured (assumed.go)
	// freeSpread rates a placement spread over nodes as one on one node
	// (FreeSpread).
	freeSpread bool
}

// NewMeasured builds the ground truth from a dataset's solo and pairs
// tables, in iterations/s, the unit of trace steps: a table in samples/s
// is converted with each workload's per-GPU batch size
// (rates.InIterations says how, and what it refuses).
func NewMeasured(solo *datasets.SoloTable, pairs *datasets.Pairs) (*Measured, error) {
	t, err := rates.InIterations(solo, pairs)
	if err != nil {
		return nil, err
	}
	return &Measured{t: t}, nil
}

func (m *Measured) device(s Shape) string {
	return rates.Device(s.GPUType, s.GPUs, s.Spread && !m.freeSpread)
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
	return m.soloRate(rates.Key{Workload: w, Device: m.device(s), Degree: s.GPUs})
}

// Colocated returns the measured rate of w next to partner, only for a
// status-ok pair.
func (m *Measured) Colocated(w, partner string, s Shape) (float64, bool) {
	return m.pairRate(rates.PairKey{Workload: w, Partner: partner, Device: m.device(s), Degree: s.GPUs})
}

// soloRate is the solo rate of k: the table's, else an extrapolated one.
func (m *Measured) soloRate(k rates.Key) (float64, bool) {
	if s, ok := m.t.Solo(k); ok {
		return s.Rate, true
	}
	v, ok := m.solo[k]
	return v, ok
}

// pairRate is the co-located rate of k: the table's status-ok pair (unless
// left out), else an assumed one.
func (m *Measured) pairRate(k rates.PairKey) (float64, bool) {
	if p, ok := m.t.Pair(k); ok && m.keeps(k, p) {
		return p.Colocated, true
	}
	v, ok := m.pairs[k]
	return v, ok
}

// keeps reports whether the table's pair row of k is one of m's rates.
func (m *Measured) keeps(k rates.PairKey, p rates.Pair) bool {
	return p.OK() && !(m.oneGPUPairs && k.Degree > 1)
}

// solos returns every solo rate of m, in no order.
func (m *Measured) solos() iter.Seq2[rates.Key, float64] {
	return func(yield func(rates.Key, float64) bool) {
		for k, s := range m.t.Solos() {
			if !yield(k, s.Rate) {
				return
			}
		}
		for k, v := range m.solo {
			if !yield(k, v) {
				return
			}
		}
	}
}

// pairRates returns every co-located rate of m, in no order.
func (m *Measured) pairRates() iter.Seq2[rates.PairKey, float64] {
	return func(yield func(rates.PairKey, float64) bool) {
		for k, p := range m.t.Pairs() {
			if m.keeps(k, p) && !yield(k, p.Colocated) {
				return
			}
		}
		for k, v := range m.pairs {
			if !yield(k, v) {
				return
			}
		}
	}
}

// Knows reports whether the data has any solo rate of workload w.
func (m *Measured) Knows(w string) bool { return m.t.Knows(w) }

// HasType reports whether the data has any solo rate on GPU type t, on
// one node or spread.
func (m *Measured) HasType(t string) bool { return m.t.HasGPUType(t) }

// Workloads returns the sorted workloads with a solo rate.
func (m *Measured) Workloads() []string { return m.t.Workloads() }
