package model

import (
	"fmt"
	"math"
	"sort"

	"github.com/coloc-dev/coloc/features"
)

// Suggestion is the GPU type and degree the similarity model suggests for
// a job, with the evidence.
type Suggestion struct {
	Neighbors  []Neighbor `json:"neighbors"`
	DeviceType string     `json:"device_type"`
	Degree     int        `json:"degree"`
	// Score is the mean, over the neighbours, of their solo throughput on
	// DeviceType relative to their best device type (1 = best for all).
	Score float64 `json:"score"`
	// Efficiency is the mean scaling efficiency of the neighbours at Degree
	// on DeviceType (1 at degree 1).
	Efficiency float64 `json:"efficiency"`
}

// Suggest returns, for the neighbours given, the device type on which they
// run best relative to their own best (mean relative solo throughput at
// degree 1; ties go to the name first in order) and, on it, the largest
// degree whose mean scaling efficiency throughput(d) / (d x throughput(1))
// is at least Opts.Efficiency.
func (m *Similarity) Suggest(nb []Neighbor) (Suggestion, error) {
	if len(nb) == 0 {
		return Suggestion{}, fmt.Errorf("no reference jobs to compare with")
	}
	sp := m.f.Space
	nj := len(sp.Jobs)
	tput := func(j int, typ string, deg int) float64 {
		for s, sl := range sp.Slots {
			if sl.DeviceType == typ && sl.Degree == deg {
				return sp.Throughput[s*nj+j]
			}
		}
		return math.NaN()
	}
	var types []string
	degrees := map[string][]int{}
	for _, sl := range sp.Slots {
		if sl.Degree == 1 {
			types = append(types, sl.DeviceType)
		} else {
			degrees[sl.DeviceType] = append(degrees[sl.DeviceType], sl.Degree)
		}
	}
	sort.Strings(types)
	best := Suggestion{Neighbors: nb, Degree: 1, Efficiency: 1, Score: math.Inf(-1)}
	for _, typ := range types {
		sum, n := 0.0, 0
		for _, x := range nb {
			top := math.Inf(-1)
			for _, t2 := range types {
				if v := tput(x.index, t2, 1); v > top {
					top = v
				}
			}
			if v := tput(x.index, typ, 1); !math.IsNaN(v) && top > 0 {
				sum += v / top
				n++
			}
		}
		if n > 0 && sum/float64(n) > best.Score {
			best.DeviceType, best.Score = typ, sum/float64(n)
		}
	}
	if best.DeviceType == "" {
		return Suggestion{}, fmt.Errorf("none of the neighbours has a solo throughput at degree 1")
	}
	degs := degrees[best.DeviceType]
	sort.Ints(degs)
	for _, d := range degs {
		sum, n := 0.0, 0
		for _, x := range nb {
			t1, td := tput(x.index, best.DeviceType, 1), tput(x.index, best.DeviceType, d)
			if t1 > 0 && td > 0 {
				sum += td / (float64(d) * t1)
				n++
			}
		}
		if n > 0 && sum/float64(n) >= m.Opts.Efficiency {
			best.Degree, best.Efficiency = d, sum/float64(n)
		}
	}
	return best, nil
}

// QueryFor describes a job the model may not know: its own descriptors
// when the space has the job, else features.KnownDescriptor's (the model
// family's, with the batch size the name states), batchSize overriding the
// name's when positive.
func (m *Similarity) QueryFor(job string, batchSize int) (Query, bool, error) {
	if j, err := m.f.Job(job); err == nil {
		return m.query(j), true, nil
	}
	d, ok := features.KnownDescriptor(job)
	if !ok {
		return Query{}, false, fmt.Errorf("job %q is not in the model and its family %q has no known descriptors", job, features.FamilyOf(job))
	}
	if batchSize > 0 {
		d.BatchSize = batchSize
	}
	return m.DescribeQuery(d), false, nil
}

// DescribeQuery encodes a descriptor as a Query of this model's space.
func (m *Similarity) DescribeQuery(d features.Descriptor) Query {
	desc := m.f.Desc
	q := Query{Num: make([]float64, len(desc.Numeric)), Cat: make([]string, len(desc.Categorical))}
	lg := func(x float64) float64 {
		if x > 0 {
			return math.Log10(x)
		}
		return math.NaN()
	}
	for k, name := range desc.Numeric {
		v := math.NaN()
		switch name {
		case "log10_params":
			v = lg(d.Params)
		case "log10_flops_per_sample":
			v = lg(d.FLOPs)
		case "log10_batch_size":
			v = lg(float64(d.BatchSize))
		default:
			if len(name) > 7 && name[:7] == "layers_" {
				v = float64(d.Layers[name[7:]])
			}
		}
		q.Num[k] = v
	}
	for k, name := range desc.Categorical {
		switch name {
		case "class":
			q.Cat[k] = d.Class
		case "precision":
			q.Cat[k] = d.Precision
		}
	}
	return q
}
