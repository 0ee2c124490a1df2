package place

import "github.com/coloc-dev/coloc/datasets"

// BytesPerParam is the size of one gradient value: fp32 gradients, as
// all-reduced by data-parallel training whatever the compute precision.
const BytesPerParam = 4

// AllReduceBytes is the volume one GPU sends per synchronous step in a
// ring all-reduce of the gradients of params parameters over degree
// GPUs: 2(d-1)/d x 4 bytes x params. It is 0 for one GPU.
func AllReduceBytes(params float64, degree int) float64 {
	if degree <= 1 || params <= 0 {
		return 0
	}
	d := float64(degree)
	return 2 * (d - 1) / d * BytesPerParam * params
}

// CommSeconds is the time of that all-reduce over a link of gbs GB/s
// (10^9 bytes/s); 0 when the bandwidth is unknown (0).
func CommSeconds(params float64, degree int, gbs float64) float64 {
	if gbs <= 0 {
		return 0
	}
	return AllReduceBytes(params, degree) / (gbs * 1e9)
}

// StepTime is the time, in seconds, of one synchronous step of degree
// workers training at rate (in unit) alone: degree/rate for
// iterations/s, whose rates count the iterations of all workers (Gavel's
// measurements grow with the degree); degree x batch/rate for samples/s
// with a known per-GPU batch size. ok is false otherwise.
func StepTime(rate float64, unit string, degree, batch int) (float64, bool) {
	if !(rate > 0) || degree < 1 {
		return 0, false
	}
	switch unit {
	case datasets.UnitItersPerS:
		return float64(degree) / rate, true
	case datasets.UnitSamplesPerS:
		if batch > 0 {
			return float64(degree*batch) / rate, true
		}
	}
	return 0, false
}

// commFrac is the share of a step the all-reduce would take: comm / (step
// + comm), in [0, 1); 0 when either is unknown.
func commFrac(commS, stepS float64, stepOK bool) float64 {
	if commS <= 0 || !stepOK {
		return 0
	}
	return commS / (stepS + commS)
}
