package sim

import (
	"math"
	"sort"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/datasets/rates"
)

// Multi-GPU pairs by assumption.
//
// Two jobs of the same degree k may share the same k GPUs. Where the data
// measured the pair at k, the pair's rates are the measurement. Where they
// did not (data that measure pairs on one GPU only, or degrees filled in
// by Extrapolated), AssumedPairs can stand in: each job runs at its
// normalized throughput measured next to the partner on one GPU of the
// same type, times its own solo rate at k:
//
//	rate(w next to q, k GPUs) = colocated(w, q, 1) / solo(w, 1) x solo(w, k)
//
// The reason: interference between two data-parallel jobs is per GPU (each
// GPU holds one worker of each job, and the workers contend for its
// compute, memory bandwidth and caches as on one GPU), and the solo rate
// at k already holds the job's scaling. What the assumption leaves out is
// the traffic between GPUs: the all-reduce of two jobs sharing the same
// links and network is not modelled, so the assumption is optimistic for
// jobs whose scaling is bound by communication, and more so spread over
// nodes. Gavel measured pairs at 2, 4 and 8 GPUs, which shows how far the
// assumption is off (docs/simulation.md); AssumptionErrors computes it.
//
// Every use is labelled: IsAssumed reports an assumed pair, a run counts
// the jobs that shared on one (Result.Assumed) and warns.

// AssumedPairs returns a copy of m in which every two workloads with solo
// rates at a degree k > 1 on a device type, no measured pair there and a
// measured pair on one GPU of that type (both ways) share at the assumed
// rates above. Measured (status-ok) pairs are kept as they are. A row at
// k of another status (infeasible, suspect, failed) does not stop the
// assumption: Gavel's data, the only multi-GPU pair rows we have, hold
// [0, 0] ("not measured or could not run", imported as infeasible) for
// every pair at 2, 4 and 8 GPUs, also for pairs that ran together on one
// GPU; and a data-parallel worker needs on each of its k GPUs the memory
// of the one-GPU job at the same per-GPU batch, so a pair that fits on
// one GPU fits on each of k. The one-GPU pair must be status-ok both ways,
// which keeps out pairs measured infeasible or suspect there. Apply it after
// Extrapolated, so that extrapolated degrees get assumed pairs too.
func (m *Measured) AssumedPairs() *Measured {
	out := &Measured{t: m.t, solo: m.solo, pairs: map[rates.PairKey]float64{}, oneGPUPairs: m.oneGPUPairs, extra: m.extra, assumed: map[rates.PairKey]bool{}}
	for k, v := range m.pairs {
		out.pairs[k] = v
	}
	// Workloads with a solo rate, by device and degree above 1.
	at := map[datasets.Shape][]string{}
	for k := range m.solos() {
		if k.Degree > 1 {
			slot := datasets.ShapeOf(k.Device, k.Degree)
			at[slot] = append(at[slot], k.Workload)
		}
	}
	for slot, ws := range at {
		base := slot.GPUType
		for _, w := range ws {
			for _, q := range ws {
				k := rates.PairKey{Workload: w, Partner: q, Device: slot.Device(), Degree: slot.GPUs}
				if _, ok := m.pairRate(k); ok {
					continue // measured: kept
				}
				nw, okw := m.norm1(w, q, base)
				_, okq := m.norm1(q, w, base)
				if !okw || !okq {
					continue
				}
				solo, _ := m.soloRate(rates.Key{Workload: w, Device: slot.Device(), Degree: slot.GPUs})
				out.pairs[k] = nw * solo
				out.assumed[k] = true
			}
		}
	}
	return out
}

// norm1 is w's measured normalized throughput next to q on one GPU of
// type t.
func (m *Measured) norm1(w, q, t string) (float64, bool) {
	co, ok := m.pairRate(rates.PairKey{Workload: w, Partner: q, Device: t, Degree: 1})
	solo, ok2 := m.soloRate(rates.Key{Workload: w, Device: t, Degree: 1})
	if !ok || !ok2 || !(co > 0) || !(solo > 0) {
		return 0, false
	}
	return co / solo, true
}

// IsAssumed reports whether the co-located rate of w next to partner on
// s is assumed (AssumedPairs), not measured.
func (m *Measured) IsAssumed(w, partner string, s Shape) bool {
	return m.assumed[rates.PairKey{Workload: w, Partner: partner, Device: m.device(s), Degree: s.GPUs}]
}

// WithoutMultiGPUPairs returns a copy of m without its pairs measured on
// more than one GPU: the data as if pairs had been measured on one GPU
// only, to compare the assumption with the measurements it stands for.
func (m *Measured) WithoutMultiGPUPairs() *Measured {
	out := &Measured{t: m.t, solo: m.solo, pairs: map[rates.PairKey]float64{}, oneGPUPairs: true, extra: m.extra, assumed: map[rates.PairKey]bool{}}
	for k, v := range m.pairs {
		if k.Degree == 1 {
			out.pairs[k] = v
		}
	}
	return out
}

// assumedType is what the simulator asks of a ground truth with assumed
// pairs.
type assumedType interface {
	IsAssumed(w, partner string, s Shape) bool
}

// Assumed reports whether the ground truth's rate of a next to b on s, or
// of b next to a, is assumed (Measured.AssumedPairs), not measured. A
// policy that predicts pair rates uses it to predict an assumed pair as
// the simulator rates it: from the pair on one GPU.
func (v *View) Assumed(a, b string, s Shape) bool {
	x, ok := v.sim.truth.(assumedType)
	return ok && (x.IsAssumed(a, b, s) || x.IsAssumed(b, a, s))
}

// AssumptionError is how far the assumption is from the measurements on
// one device type and degree: over the ordered pairs (w next to q)
// measured there and on one GPU of the type, the mean absolute and the
// mean signed difference of the one-GPU normalized throughput from the
// measured one at the degree (bias > 0: the assumption is optimistic).
type AssumptionError struct {
	Device string
	Degree int
	Pairs  int
	MAE    float64
	Bias   float64
	// MeanMeasured is the mean measured normalized throughput at the
	// degree.
	MeanMeasured float64
}

// AssumptionErrors compares the assumption with every pair m measured on
// more than one GPU, by device type and degree, sorted.
func (m *Measured) AssumptionErrors() []AssumptionError {
	acc := map[datasets.Shape]*AssumptionError{}
	var keys []rates.PairKey
	for k := range m.pairRates() {
		if k.Degree > 1 {
			keys = append(keys, k)
		}
	}
	// In a fixed order, so that the sums are the same on every run.
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.Device != b.Device {
			return a.Device < b.Device
		}
		if a.Degree != b.Degree {
			return a.Degree < b.Degree
		}
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		return a.Partner < b.Partner
	})
	for _, k := range keys {
		co, _ := m.pairRate(k)
		solo, ok := m.soloRate(rates.Key{Workload: k.Workload, Device: k.Device, Degree: k.Degree})
		if !ok || !(solo > 0) || !(co > 0) {
			continue
		}
		base, _ := datasets.BaseType(k.Device)
		a, ok := m.norm1(k.Workload, k.Partner, base)
		if !ok {
			continue
		}
		y := co / solo
		slot := datasets.ShapeOf(k.Device, k.Degree)
		e := acc[slot]
		if e == nil {
			e = &AssumptionError{Device: k.Device, Degree: k.Degree}
			acc[slot] = e
		}
		e.Pairs++
		e.MAE += math.Abs(a - y)
		e.Bias += a - y
		e.MeanMeasured += y
	}
	out := make([]AssumptionError, 0, len(acc))
	for _, e := range acc {
		n := float64(e.Pairs)
		e.MAE, e.Bias, e.MeanMeasured = e.MAE/n, e.Bias/n, e.MeanMeasured/n
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Device != out[j].Device {
			return out[i].Device < out[j].Device
		}
		return out[i].Degree < out[j].Degree
	})
	return out
}
