package policies

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/coloc-dev/coloc/model"
)

// suits is what the similarity model says about the workloads of a trace,
// each treated as a new job: its nearest profiled references (never the
// workload itself), whether its model is small, how well each GPU type of
// the cluster suits it, and how fast it runs next to another workload. It
// reads the model's space (references' measured solo throughputs, their
// descriptors) and training pairs; nothing of the simulator's ground truth.
type suits struct {
	m      *model.Similarity
	space  *model.Space
	k      int
	small  float64 // parameters below which a model is small
	params int     // index of log10_params in the descriptors, -1 if none

	types []string // the cluster's GPU types, sorted (Topology.Types)
	desc  map[string]*suitsJob
	fit   map[suitsKey]*typeFit
	pairs map[suitsPair]float64
	obs   map[[3]int]float64 // (slot, A, B) -> normalized throughput
	slotY []float64          // mean normalized throughput by slot, NaN if none
}

// suitsJob is one workload as the model sees it.
type suitsJob struct {
	id     int // order of first request
	name   string
	refs   []suitsRef // nearest references, nearest first
	params float64
	small  bool
	err    error // why it has no references (unknown family), or nil
}

type suitsRef struct {
	job  int // index in the model's space
	dist float64
}

type suitsKey struct {
	workload string
	scale    int
}

// typeFit is how well each GPU type of the cluster suits a workload at a
// number of GPUs.
type typeFit struct {
	w     *suitsJob
	scale int
	// score[t] is the mean, over the references with a rate there, of their
	// solo throughput on type t relative to their best type of the
	// cluster (1: the best for every reference); NaN when no reference
	// has a rate on t.
	score  []float64
	rank   []int // type indices, best suited first
	degree int   // the degree the scores were computed at
	// canRun memoises View.CanRun per type index: [spread] 0 unknown,
	// 1 yes, 2 no.
	canRun [][2]int8
}

type suitsPair struct{ a, b, slot int }

func newSuits(m *model.Similarity, space *model.Space, k int, small float64) *suits {
	s := &suits{m: m, space: space, k: k, small: small, params: -1,
		desc: map[string]*suitsJob{}, fit: map[suitsKey]*typeFit{}, pairs: map[suitsPair]float64{},
		obs: make(map[[3]int]float64, len(m.Obs))}
	for i, n := range space.Desc.Numeric {
		if n == "log10_params" {
			s.params = i
		}
	}
	sum := make([]float64, len(space.Slots))
	cnt := make([]int, len(space.Slots))
	for _, o := range m.Obs {
		s.obs[[3]int{o.S, o.A, o.B}] = o.Y
		if o.S >= 0 && o.S < len(sum) {
			sum[o.S] += o.Y
			cnt[o.S]++
		}
	}
	s.slotY = make([]float64, len(space.Slots))
	for i := range sum {
		s.slotY[i] = math.NaN()
		if cnt[i] > 0 {
			s.slotY[i] = sum[i] / float64(cnt[i])
		}
	}
	return s
}

// setTypes fixes the cluster's GPU types, which the fits depend on, and
// reports whether they changed (the fits are then dropped).
func (s *suits) setTypes(types []string) bool {
	if slices.Equal(types, s.types) && s.types != nil {
		return false
	}
	s.types = slices.Clone(types)
	s.fit = map[suitsKey]*typeFit{}
	return true
}

// describe returns workload w as a new job: a workload the model knows is
// left out of its own references (as `coloc similar` does); another is
// suitsJob by its model family and the batch size of its name.
func (s *suits) describe(w string) *suitsJob {
	if d, ok := s.desc[w]; ok {
		return d
	}
	d := &suitsJob{id: len(s.desc), name: w, params: math.NaN()}
	s.desc[w] = d
	q, known, err := s.m.QueryFor(w, 0)
	if err != nil {
		d.err = err
		return d
	}
	var nb []model.Neighbor
	if known {
		if nb, err = s.m.Nearest(w, s.k); err != nil {
			d.err = err
			return d
		}
	} else {
		nb = s.m.NearestTo(q, s.k)
	}
	for _, n := range nb {
		j, err := s.space.Job(n.Job)
		if err != nil {
			d.err = fmt.Errorf("reference %q of %q: %w", n.Job, w, err)
			return d
		}
		d.refs = append(d.refs, suitsRef{job: j, dist: n.Distance})
	}
	if s.params >= 0 && s.params < len(q.Num) {
		if v := q.Num[s.params]; !math.IsNaN(v) {
			d.params = math.Pow(10, v)
		}
	}
	// A model of unknown size is taken as large: it never shares.
	d.small = d.params < s.small
	return d
}

// described returns the workloads described so far, in the order first
// met.
func (s *suits) described() []*suitsJob {
	out := make([]*suitsJob, len(s.desc))
	for _, d := range s.desc {
		out[d.id] = d
	}
	return out
}

// throughput is reference j's measured solo throughput on (type, degree),
// NaN when unknown.
func (s *suits) throughput(j int, typ string, degree int) float64 {
	nj := len(s.space.Jobs)
	for i, sl := range s.space.Slots {
		if sl.DeviceType == typ && sl.Degree == degree {
			return s.space.Throughput[i*nj+j]
		}
	}
	return math.NaN()
}

// fitOf returns how the cluster's GPU types suit workload w at scale GPUs.
// The scores are those of model.Similarity.Suggest, restricted to the
// cluster's types and taken at the job's own number of GPUs; when no
// reference was measured at that number, at one GPU.
func (s *suits) fitOf(w string, scale int) *typeFit {
	key := suitsKey{w, scale}
	if f, ok := s.fit[key]; ok {
		return f
	}
	d := s.describe(w)
	f := &typeFit{w: d, scale: scale, score: make([]float64, len(s.types)), canRun: make([][2]int8, len(s.types))}
	s.fit[key] = f
	f.degree = 1
	for _, r := range d.refs {
		for _, t := range s.types {
			if v := s.throughput(r.job, t, scale); v > 0 {
				f.degree = scale
			}
		}
	}
	sum := make([]float64, len(s.types))
	cnt := make([]int, len(s.types))
	for _, r := range d.refs {
		best := 0.0
		rates := make([]float64, len(s.types))
		for i, t := range s.types {
			rates[i] = s.throughput(r.job, t, f.degree)
			if rates[i] > best {
				best = rates[i]
			}
		}
		if !(best > 0) {
			continue
		}
		for i, v := range rates {
			if v > 0 {
				sum[i] += v / best
				cnt[i]++
			}
		}
	}
	for i := range f.score {
		f.score[i] = math.NaN()
		if cnt[i] > 0 {
			f.score[i] = sum[i] / float64(cnt[i])
		}
		f.rank = append(f.rank, i)
	}
	// Best suited first; types no reference ran on last; then by name.
	sort.SliceStable(f.rank, func(a, b int) bool {
		x, y := f.score[f.rank[a]], f.score[f.rank[b]]
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			return !math.IsNaN(x) && math.IsNaN(y)
		default:
			return x > y
		}
	})
	return f
}

// colocated predicts the normalized throughput of workload a while it
// shares GPUs of type typ at degree with workload b: the
// distance-weighted mean of the measured pairs (x next to y) with x among
// a's references and y among b's, as model.Similarity.Predict weighs them,
// leaving a and b themselves out (neither has been profiled as far as
// the policy is concerned). With no such pair it is the mean of the slot's
// measured pairs, and with none at all 0.5 (the two jobs split the GPU's
// time evenly).
func (s *suits) colocated(a, b string, typ string, degree int) float64 {
	da, db := s.describe(a), s.describe(b)
	slot := -1
	for i, sl := range s.space.Slots {
		if sl.DeviceType == typ && sl.Degree == degree {
			slot = i
		}
	}
	if slot < 0 {
		return 0.5
	}
	key := suitsPair{da.id, db.id, slot}
	if v, ok := s.pairs[key]; ok {
		return v
	}
	self := func(j int) bool {
		n := s.space.Jobs[j]
		return n == a || n == b
	}
	sum, wsum := 0.0, 0.0
	for _, x := range da.refs {
		if self(x.job) {
			continue
		}
		for _, y := range db.refs {
			if self(y.job) {
				continue
			}
			if v, ok := s.obs[[3]int{slot, x.job, y.job}]; ok {
				w := 1 / (0.05 + x.dist + y.dist)
				sum += w * v
				wsum += w
			}
		}
	}
	v := 0.5
	switch {
	case wsum > 0:
		v = sum / wsum
	case !math.IsNaN(s.slotY[slot]):
		v = s.slotY[slot]
	}
	s.pairs[key] = v
	return v
}
