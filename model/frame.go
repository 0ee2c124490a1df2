package model

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Obs is one observed ordered pair: the normalized throughput Y of job A
// next to job B on slot S (indices into a Space).
type Obs struct {
	A, B, S int
	Y       float64
}

// scaler standardizes encoded features: z = (x - Mean) / Std. It is fit on
// the feature rows of the training pairs only and saved with the model.
type scaler struct {
	Mean []float64 `json:"mean"`
	Std  []float64 `json:"std"`
}

// Frame is a Space with a fitted scaler: what a model sees of the jobs.
type Frame struct {
	*Space
	Scaler scaler
	z      [][]float64
	zero   []float64
}

// MinObs is the fewest observed pairs a model is fit on.
const MinObs = 4

// ErrTooFewPairs is wrapped by the error of a fit with fewer than MinObs
// observed pairs.
var ErrTooFewPairs = errors.New("too few measured pairs to fit")

// Train is what Fit gets: the frame, the observed pairs and the seed of
// every random choice the model makes.
type Train struct {
	*Frame
	Obs  []Obs
	Seed uint64
	// Warnings are problems of the input that did not stop the fit; they
	// are kept in the model file.
	Warnings []string
}

// NewTrain checks the observations against the space, fits the scaler on
// the feature rows the observations use, and returns the training input.
// A missing feature value of a used row is imputed with the training mean
// (a warning); a pair of a job without features on its slot, or a value
// that is not positive and finite, is an error.
func NewTrain(sp *Space, obs []Obs, seed uint64) (*Train, error) {
	if len(obs) < MinObs {
		return nil, fmt.Errorf("%w: %d (need at least %d)", ErrTooFewPairs, len(obs), MinObs)
	}
	nj := len(sp.Jobs)
	used := map[int]bool{}
	for _, o := range obs {
		if o.A < 0 || o.A >= nj || o.B < 0 || o.B >= nj || o.S < 0 || o.S >= len(sp.Slots) {
			return nil, fmt.Errorf("pair (%d|%d) on slot %d: index out of range", o.A, o.B, o.S)
		}
		if !(o.Y > 0) || math.IsInf(o.Y, 0) {
			return nil, fmt.Errorf("pair %s|%s on %s: normalized throughput %v is not positive and finite", sp.Jobs[o.A], sp.Jobs[o.B], sp.Slots[o.S], o.Y)
		}
		for _, j := range []int{o.A, o.B} {
			if sp.Row(j, o.S) == nil {
				return nil, fmt.Errorf("pair %s|%s on %s: job %q has no solo features on %s", sp.Jobs[o.A], sp.Jobs[o.B], sp.Slots[o.S], sp.Jobs[j], sp.Slots[o.S])
			}
			used[o.S*nj+j] = true
		}
	}
	rows := make([]int, 0, len(used))
	for r := range used {
		rows = append(rows, r)
	}
	sort.Ints(rows)
	d := len(sp.Features)
	sc := scaler{Mean: make([]float64, d), Std: make([]float64, d)}
	var warns []string
	for k := 0; k < d; k++ {
		var sum, ss float64
		n, missing := 0, 0
		for _, r := range rows {
			if v := sp.X[r][k]; !math.IsNaN(v) {
				sum += v
				n++
			} else {
				missing++
			}
		}
		if n == 0 {
			sc.Mean[k], sc.Std[k] = 0, 1
			warns = append(warns, fmt.Sprintf("feature %s has no value on any training row: ignored", sp.Features[k]))
			continue
		}
		if missing > 0 {
			warns = append(warns, fmt.Sprintf("feature %s is missing on %d of %d training rows: imputed with the training mean", sp.Features[k], missing, len(rows)))
		}
		mean := sum / float64(n)
		for _, r := range rows {
			if v := sp.X[r][k]; !math.IsNaN(v) {
				ss += (v - mean) * (v - mean)
			}
		}
		std := math.Sqrt(ss / float64(n))
		if std < 1e-12 {
			std = 1
		}
		sc.Mean[k], sc.Std[k] = mean, std
	}
	f := newFrame(sp, sc)
	return &Train{Frame: f, Obs: obs, Seed: seed, Warnings: warns}, nil
}

// newFrame standardizes the space with a fitted scaler.
func newFrame(sp *Space, sc scaler) *Frame {
	f := &Frame{Space: sp, Scaler: sc, z: make([][]float64, len(sp.X)), zero: make([]float64, len(sp.Features))}
	for i, x := range sp.X {
		if x == nil {
			continue
		}
		z := make([]float64, len(x))
		for k, v := range x {
			if !math.IsNaN(v) {
				z[k] = (v - sc.Mean[k]) / sc.Std[k]
			}
		}
		f.z[i] = z
	}
	return f
}

// Z returns the standardized features of job j on slot s; zeros (the
// training mean) when the job has none there. The slice must not be
// modified.
func (f *Frame) Z(j, s int) []float64 {
	if z := f.z[s*len(f.Jobs)+j]; z != nil {
		return z
	}
	return f.zero
}

// Dim is the number of encoded features.
func (f *Frame) Dim() int { return len(f.Features) }

// rng returns the deterministic generator of a seed and a stream (so that
// two uses of one seed do not share a sequence).
func rng(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream))
}

// splitObs shuffles obs with r and returns a training part and a
// validation part of about frac of them (at least one each when len > 1).
func splitObs(obs []Obs, frac float64, r *rand.Rand) (train, val []Obs) {
	idx := r.Perm(len(obs))
	nv := int(math.Round(frac * float64(len(obs))))
	nv = max(1, min(nv, len(obs)-1))
	for i, k := range idx {
		if i < nv {
			val = append(val, obs[k])
		} else {
			train = append(train, obs[k])
		}
	}
	return train, val
}

// slotMeans returns the mean of the observations of each slot, and their
// overall mean for slots without one.
func slotMeans(obs []Obs, nSlots int) []float64 {
	sum, n := make([]float64, nSlots), make([]int, nSlots)
	all := 0.0
	for _, o := range obs {
		sum[o.S] += o.Y
		n[o.S]++
		all += o.Y
	}
	all /= float64(len(obs))
	for s := range sum {
		if n[s] > 0 {
			sum[s] /= float64(n[s])
		} else {
			sum[s] = all
		}
	}
	return sum
}

func mae(m interface{ Predict(a, b, s int) float64 }, obs []Obs) float64 {
	e := 0.0
	for _, o := range obs {
		e += math.Abs(m.Predict(o.A, o.B, o.S) - o.Y)
	}
	return e / float64(len(obs))
}
