package model

import (
	"math"
	"sort"

	"github.com/coloc-dev/coloc/internal/similarity"
)

// Distances names the distance functions of the similarity model.
var Distances = similarity.Distances

// SimilarityOptions are the hyper-parameters of the similarity model.
type SimilarityOptions struct {
	K        int     `json:"k"`        // neighbours
	Distance string  `json:"distance"` // one of Distances
	P        float64 `json:"p"`        // order of the Minkowski distance
	// Efficiency is the scaling efficiency, throughput(d) / (d x
	// throughput(1)), a degree must keep to be suggested.
	Efficiency float64 `json:"efficiency"`
}

// DefaultSimilarityOptions are the defaults of the similarity model.
var DefaultSimilarityOptions = SimilarityOptions{K: 3, Distance: "gower", P: 3, Efficiency: 0.7}

// Similarity is the model-similarity method (Thanapol et al., ACIIDS
// 2023): a job is described by its model's descriptors (parameters,
// FLOPs, layers by kind, batch size, class, precision), normalized to
// [0, 1] over the reference jobs; its k nearest profiled reference jobs
// under a chosen distance stand in for it. From them it suggests a GPU type
// and degree (Suggest), and it predicts normalized throughput: the
// distance-weighted mean of the observed pairs (A', B') with A' among A and
// its neighbours and B' among B and its neighbours.
type Similarity struct {
	framed
	Opts SimilarityOptions `json:"options"`
	// Refs are the reference jobs: those with at least one training pair.
	Refs []int  `json:"refs"`
	Lo   floats `json:"lo"` // range of each numeric descriptor over Refs
	Hi   floats `json:"hi"`
	Obs  []Obs  `json:"obs"`
	near [][]Neighbor
	val  map[[3]int]float64
	mean []float64
}

// Neighbor is a reference job and its distance to a query.
type Neighbor struct {
	Job      string  `json:"job"`
	Distance float64 `json:"distance"`
	index    int
}

// NewSimilarity returns a similarity model.
func NewSimilarity(o SimilarityOptions) *Similarity { return &Similarity{Opts: o} }

// Name implements Model.
func (m *Similarity) Name() string { return "similarity" }

// Hyper implements Hyper.
func (m *Similarity) Hyper() any { return m.Opts }

// Fit implements Model.
func (m *Similarity) Fit(t *Train) error {
	if err := ValidDistance(m.Opts.Distance); err != nil {
		return err
	}
	seen := map[int]bool{}
	for _, o := range t.Obs {
		seen[o.A], seen[o.B] = true, true
	}
	m.Refs = m.Refs[:0]
	for j := range t.Jobs {
		if seen[j] {
			m.Refs = append(m.Refs, j)
		}
	}
	d := t.Desc
	m.Lo, m.Hi = make(floats, len(d.Numeric)), make(floats, len(d.Numeric))
	for k := range m.Lo {
		m.Lo[k], m.Hi[k] = math.Inf(1), math.Inf(-1)
		for _, j := range m.Refs {
			if v := d.Num[j][k]; !math.IsNaN(v) {
				m.Lo[k], m.Hi[k] = math.Min(m.Lo[k], v), math.Max(m.Hi[k], v)
			}
		}
	}
	m.Obs = t.Obs
	m.bind(t.Frame)
	return nil
}

// ValidDistance returns an error unless name is one of Distances.
func ValidDistance(name string) error { return similarity.Valid(name) }

func (m *Similarity) bind(f *Frame) {
	m.f = f
	m.near = make([][]Neighbor, len(f.Jobs))
	for j := range f.Jobs {
		m.near[j] = m.nearest(m.query(j), j, m.Opts.K)
	}
	m.val = make(map[[3]int]float64, len(m.Obs))
	for _, o := range m.Obs {
		m.val[[3]int{o.S, o.A, o.B}] = o.Y
	}
	m.mean = slotMeans(m.Obs, len(f.Slots))
}

// Query is the descriptors of a job, aligned with the space's
// Descriptors.Numeric (log-scaled where the name says so) and Categorical.
type Query struct {
	Num []float64
	Cat []string
}

func (m *Similarity) query(j int) Query {
	return Query{Num: m.f.Desc.Num[j], Cat: m.f.Desc.Cat[j]}
}

// norm maps a numeric descriptor to [0, 1] over the references' range.
func (m *Similarity) norm(k int, v float64) float64 {
	return similarity.Normalize(v, m.Lo[k], m.Hi[k])
}

// Distance returns the distance between two descriptor vectors under the
// model's distance function (the math is internal/similarity's, shared
// with the policy reader). Attributes missing on either side are left
// out; two vectors with nothing in common are at distance +Inf.
func (m *Similarity) Distance(a, b Query) float64 {
	return similarity.Distance(m.Opts.Distance, m.Opts.P, m.normalized(a), m.normalized(b))
}

// normalized returns q with its numeric descriptors normalized.
func (m *Similarity) normalized(q Query) similarity.Vector {
	v := similarity.Vector{Num: make([]float64, len(q.Num)), Cat: q.Cat}
	for k, x := range q.Num {
		v.Num[k] = m.norm(k, x)
	}
	return v
}

// nearest returns the k references nearest to q, leaving out job skip
// (-1: none), by distance then name.
func (m *Similarity) nearest(q Query, skip, k int) []Neighbor {
	var out []Neighbor
	for _, r := range m.Refs {
		if r == skip {
			continue
		}
		out = append(out, Neighbor{Job: m.f.Jobs[r], Distance: m.Distance(q, m.query(r)), index: r})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Distance < out[j].Distance })
	return out[:min(k, len(out))]
}

// Nearest returns the k reference jobs nearest to job (known to the
// model), without the job itself.
func (m *Similarity) Nearest(job string, k int) ([]Neighbor, error) {
	j, err := m.f.Job(job)
	if err != nil {
		return nil, err
	}
	return m.nearest(m.query(j), j, k), nil
}

// NearestTo returns the k reference jobs nearest to a job described by q.
func (m *Similarity) NearestTo(q Query, k int) []Neighbor { return m.nearest(q, -1, k) }

// Predict implements Model.
func (m *Similarity) Predict(a, b, s int) float64 {
	as := append([]Neighbor{{Distance: 0, index: a}}, m.near[a]...)
	bs := append([]Neighbor{{Distance: 0, index: b}}, m.near[b]...)
	sum, wsum := 0.0, 0.0
	for _, x := range as {
		for _, y := range bs {
			if v, ok := m.val[[3]int{s, x.index, y.index}]; ok {
				w := 1 / (0.05 + x.Distance + y.Distance)
				sum += w * v
				wsum += w
			}
		}
	}
	if wsum == 0 {
		return m.mean[s]
	}
	return sum / wsum
}
