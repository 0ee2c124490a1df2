package sim

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// Default users' estimates: twice the true size at the median, off by a
// factor of e (about 2.7) at one log-space standard deviation. Requested
// time limits overestimate: a median of 2 is the common reading of batch
// clusters' logs; the spread is our choice, a wide one.
const (
	DefaultEstimateMedian = 2.0
	DefaultEstimateSigma  = 1.0
)

// Estimate returns a user's estimate of job j's iterations: its true
// steps times exp(ln(median) + sigma·z), z standard normal drawn from the
// seed and the job's ID alone, so that every policy of a run, and every
// run with the same seed, sees the same estimate. median <= 0 takes
// DefaultEstimateMedian, sigma < 0 DefaultEstimateSigma.
func Estimate(j *Job, seed uint64, median, sigma float64) float64 {
	if median <= 0 {
		median = DefaultEstimateMedian
	}
	if sigma < 0 {
		sigma = DefaultEstimateSigma
	}
	h := fnv.New64a()
	var b [8]byte
	for i := range b {
		b[i] = byte(uint64(j.ID) >> (8 * i))
	}
	h.Write(b[:])
	z := rand.New(rand.NewPCG(seed, h.Sum64())).NormFloat64()
	return float64(j.Steps) * math.Exp(math.Log(median)+sigma*z)
}
