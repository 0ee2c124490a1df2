// Package similarity is the distance math of coloc's model-similarity
// method, shared by the similarity model (package model) and the policy
// reader for schedulers (package policy), so that a scheduler ranks the
// references of a new job exactly as `coloc similar` does. It imports
// only the standard library.
//
// A job is a Vector of descriptors: numeric ones min-max normalized over
// the reference jobs (Normalize), NaN where unknown, and categorical ones,
// "" where unknown. Distance compares two such vectors, leaving out every
// attribute missing on either side.
package similarity

import (
	"fmt"
	"math"
	"strings"
)

// Distances names the distance functions.
var Distances = []string{"euclidean", "manhattan", "cosine", "minkowski", "gower"}

// Valid returns an error unless name is one of Distances.
func Valid(name string) error {
	for _, d := range Distances {
		if d == name {
			return nil
		}
	}
	return fmt.Errorf("unknown distance %q (want one of %s)", name, strings.Join(Distances, ", "))
}

// Normalize maps a numeric descriptor v to [0, 1] over the references'
// range [lo, hi]: (v - lo) / (hi - lo). A missing value (NaN) stays NaN; a
// range that is not positive (one value, or none) maps every value to 0.
func Normalize(v, lo, hi float64) float64 {
	if math.IsNaN(v) {
		return v
	}
	r := hi - lo
	if !(r > 0) {
		return 0
	}
	return (v - lo) / r
}

// Vector is a job's descriptors: Num normalized (NaN missing), Cat as
// level labels ("" missing). Two vectors compared must be aligned.
type Vector struct {
	Num []float64
	Cat []string
}

// Distance returns the distance between a and b under the named distance
// (one of Distances; a name not among them is taken as cosine) with p the
// order of the Minkowski distance. Attributes missing on either side are
// left out; two vectors with nothing in common are at distance +Inf.
//
// Gower averages, over the attributes both have, the absolute difference
// of numeric ones (capped at 1) and 1 for each categorical mismatch. The
// others see a categorical attribute as one-hot indicators: a match adds
// the coordinate pair (1, 1), a mismatch the pairs (1, 0) and (0, 1);
// cosine of two vectors of which one is all zeros is 1.
func Distance(name string, p float64, a, b Vector) float64 {
	if name == "gower" {
		return gower(a, b)
	}
	switch name {
	case "euclidean":
		p = 2
	case "manhattan":
		p = 1
	case "minkowski":
	default:
		name = "cosine"
	}
	acc := accumulator{cosine: name == "cosine", p: p}
	for k := range a.Num {
		if x, y := a.Num[k], b.Num[k]; !math.IsNaN(x) && !math.IsNaN(y) {
			acc.add(x, y)
		}
	}
	for k := range a.Cat {
		if a.Cat[k] == "" || b.Cat[k] == "" {
			continue
		}
		if a.Cat[k] == b.Cat[k] {
			acc.add(1, 1)
		} else {
			acc.add(1, 0)
			acc.add(0, 1)
		}
	}
	return acc.result()
}

func gower(a, b Vector) float64 {
	sum, n := 0.0, 0
	for k := range a.Num {
		if x, y := a.Num[k], b.Num[k]; !math.IsNaN(x) && !math.IsNaN(y) {
			sum += math.Min(math.Abs(x-y), 1)
			n++
		}
	}
	for k := range a.Cat {
		if a.Cat[k] == "" || b.Cat[k] == "" {
			continue
		}
		if a.Cat[k] != b.Cat[k] {
			sum++
		}
		n++
	}
	if n == 0 {
		return math.Inf(1)
	}
	return sum / float64(n)
}

// accumulator sums the coordinate pairs of a Minkowski or cosine distance
// in order, without building the vectors.
type accumulator struct {
	cosine     bool
	p          float64
	n          int
	s          float64 // sum of |x - y|^p
	xy, xx, yy float64 // dot products, for cosine
}

func (c *accumulator) add(x, y float64) {
	c.n++
	if c.cosine {
		c.xy += x * y
		c.xx += x * x
		c.yy += y * y
		return
	}
	c.s += math.Pow(math.Abs(x-y), c.p)
}

func (c *accumulator) result() float64 {
	if c.n == 0 {
		return math.Inf(1)
	}
	if !c.cosine {
		return math.Pow(c.s, 1/c.p)
	}
	nx, ny := math.Sqrt(c.xx), math.Sqrt(c.yy)
	if nx == 0 || ny == 0 {
		return 1
	}
	return 1 - c.xy/(nx*ny)
}
