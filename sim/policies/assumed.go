package policies

import (
	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/sim"
)

// assumedData are the export's data rates with the simulator's multi-GPU
// pair assumption (sim.Measured.AssumedPairs): two jobs sharing k > 1
// GPUs whose pair the data did not measure (status ok) at k run at their
// normalized throughputs measured next to each other on one GPU of the
// type (status ok both ways), times their solo rates on the k GPUs.
type assumedData struct{ dataRates }

func (x assumedData) Colocated(w, q string, sh sim.Shape) (float64, bool) {
	if r, ok := x.dataRates.Colocated(w, q, sh); ok {
		return r, true
	}
	if !x.IsAssumed(w, q, sh) {
		return 0, false
	}
	n, _ := x.norm1(w, q, sh.GPUType)
	s, _ := x.Solo(w, sh)
	return n * s, true
}

// IsAssumed reports whether the rate of w next to q on sh is assumed:
// more than one GPU, no measured pair there, a measured pair on one GPU
// both ways and solo rates of both on sh.
func (x assumedData) IsAssumed(w, q string, sh sim.Shape) bool {
	if sh.GPUs < 2 {
		return false
	}
	if _, ok := x.dataRates.Colocated(w, q, sh); ok {
		return false
	}
	_, okw := x.norm1(w, q, sh.GPUType)
	_, okq := x.norm1(q, w, sh.GPUType)
	sw, ok1 := x.Solo(w, sh)
	sq, ok2 := x.Solo(q, sh)
	return okw && okq && ok1 && ok2 && sw > 0 && sq > 0
}

// norm1 is w's measured normalized throughput next to q on one GPU of
// type t.
func (x assumedData) norm1(w, q, t string) (float64, bool) {
	y, status, ok := x.d.Pair(w, q, t, 1)
	if !ok || status != datasets.StatusOK || !(y > 0) {
		return 0, false
	}
	return y, true
}
