package policy

import (
	"math"
	"sort"
	"strings"

	"github.com/coloc-dev/coloc/internal/similarity"
)

var nan = math.NaN()

// Descriptor describes a training job's model for the model-similarity
// lookup: the attributes of the harness's `meta` line and of a
// workloads.json entry, under the same JSON names, so that either decodes
// straight into it. A zero or negative number is unknown; so is "".
type Descriptor struct {
	Params         float64        `json:"params"`           // trainable parameters
	FLOPsPerSample float64        `json:"flops_per_sample"` // forward FLOPs per training sample
	Layers         map[string]int `json:"layers"`           // layer counts by kind (conv, lstm, linear, ...)
	BatchSize      int            `json:"batch_size"`       // per GPU
	Class          string         `json:"class"`            // cnn, rnn, transformer, recommender, ...
	Precision      string         `json:"precision"`        // fp32, fp16, bf16, amp
}

// Neighbor is a similarity reference and its distance to a descriptor.
type Neighbor struct {
	Reference Reference
	Distance  float64
}

// Nearest returns the k references of the similarity reference set
// nearest to a descriptor, nearest first (ties: the workload name first
// in order); k < 1 means Thresholds.SimilarityK. Each Neighbor carries the
// reference's GPU type and degree: a scheduler gives a job it has never
// seen those of its nearest reference.
//
// The distance is the one `coloc similar` and the similarity model use
// (the same code, internal/similarity): the descriptor is encoded as the
// file's Similarity.Numeric names say (log10 of params, flops_per_sample
// and batch_size, counts of layers by kind; a layer kind the descriptor
// does not list counts 0), normalized with the references' Lo and Hi, and
// compared under Similarity.Distance; attributes unknown on either side
// are left out.
func (p *Policy) Nearest(d Descriptor, k int) []Neighbor {
	if k < 1 {
		k = p.File.Thresholds.SimilarityK
	}
	s := &p.File.Similarity
	q := s.normalize(s.encode(d))
	dist := make([]float64, len(p.refs))
	for i, r := range p.refs {
		dist[i] = similarity.Distance(s.Distance, s.P, q, r)
	}
	order := append([]int(nil), p.byName...)
	sort.SliceStable(order, func(a, b int) bool { return dist[order[a]] < dist[order[b]] })
	out := make([]Neighbor, 0, min(k, len(order)))
	for _, i := range order[:min(k, len(order))] {
		out = append(out, Neighbor{Reference: s.References[i], Distance: dist[i]})
	}
	return out
}

// encode returns a descriptor's numeric (NaN unknown) and categorical (""
// unknown) attributes, aligned with Numeric and Categorical.
func (s *Similarity) encode(d Descriptor) ([]float64, []string) {
	lg := func(x float64) float64 {
		if x > 0 {
			return math.Log10(x)
		}
		return nan
	}
	num := make([]float64, len(s.Numeric))
	for k, name := range s.Numeric {
		switch name {
		case "log10_params":
			num[k] = lg(d.Params)
		case "log10_flops_per_sample":
			num[k] = lg(d.FLOPsPerSample)
		case "log10_batch_size":
			num[k] = lg(float64(d.BatchSize))
		default:
			kind, _ := strings.CutPrefix(name, "layers_")
			num[k] = float64(d.Layers[kind])
		}
	}
	cat := make([]string, len(s.Categorical))
	for k, name := range s.Categorical {
		switch name {
		case "class":
			cat[k] = d.Class
		case "precision":
			cat[k] = d.Precision
		}
	}
	return num, cat
}

// normalize min-max normalizes numeric attributes with Lo and Hi.
func (s *Similarity) normalize(num []float64, cat []string) similarity.Vector {
	v := similarity.Vector{Num: make([]float64, len(num)), Cat: cat}
	for k, x := range num {
		v.Num[k] = similarity.Normalize(x, s.Lo[k], s.Hi[k])
	}
	return v
}
