package peers

import "github.com/coloc-dev/coloc/sim"

// Peers returns the published peers and the foresight reference, in
// --help order.
func Peers() []sim.PolicyInfo {
	return []sim.PolicyInfo{
		{Name: "gavel-las", Doc: "Gavel's heterogeneity-aware max-min fairness (LAS) in rounds, durations unknown (measured solo rates)",
			New: func(e sim.Env) (sim.Policy, error) { return NewGavelLAS(e.Solo), nil }},
		{Name: "gavel-las-packed", Doc: "gavel-las with space sharing on the measured pair rates",
			New: func(e sim.Env) (sim.Policy, error) { return NewGavelLASPacked(e.Solo, e.Truth), nil }},
		{Name: "tiresias", Doc: "Tiresias's discretized 2D-LAS, preemptive, durations unknown (measured solo rates for the GPU type)",
			New: func(e sim.Env) (sim.Policy, error) { return NewTiresias(e.Solo), nil }},
		{Name: "srtf-known", Doc: "reference, not a peer: preemptive shortest remaining time first with the true durations (foresight)",
			New: func(e sim.Env) (sim.Policy, error) { return NewSRTFKnown(e.Solo), nil }},
	}
}

// Published names the published peers, the policies coloc is measured
// against (srtf-known, a foresight reference, is not one).
var Published = []string{"gavel-las", "gavel-las-packed", "tiresias"}

// NewGavelLAS returns gavel-las: Gavel's max_min_fairness_perf allocation
// run by its round mechanism (Mechanism), deciding with solo rates.
func NewGavelLAS(solo sim.Rates) *Mechanism {
	return newMechanism("gavel-las", maxMinAlloc{}, solo, nil, false)
}

// NewGavelLASPacked returns gavel-las-packed: Gavel's
// max_min_fairness_packed, the same with pairs of jobs sharing GPUs at
// the measured pair rates of pairs (the simulator's ground truth: Gavel's
// policy reads measured pair throughputs).
func NewGavelLASPacked(solo, pairs sim.Rates) *Mechanism {
	return newMechanism("gavel-las-packed", packedAlloc{}, solo, pairs, false)
}

// NewGavelFIFO returns Gavel's fifo (FIFOPolicy with its seed) run by
// the round mechanism: what `fifo` is with Gavel's settings.
func NewGavelFIFO(solo sim.Rates, seed uint64) *Mechanism {
	return newMechanism("fifo", newFIFOAlloc(seed), solo, nil, true)
}
