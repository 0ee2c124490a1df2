package model

import (
	"math"
	"sort"
)

// knnOptions are the hyper-parameters of the k-nearest-neighbours
// baseline.
type knnOptions struct {
	// Ks are the neighbourhood sizes tried (validation split of the
	// training pairs).
	Ks []int `json:"ks"`
}

// defaultKNNOptions are the defaults of the knn baseline.
var defaultKNNOptions = knnOptions{Ks: []int{3, 5, 10}}

// knnModel predicts the mean normalized throughput of the K observed pairs of
// the same slot nearest in feature space (Euclidean distance between pair
// vectors: standardized features of both jobs). It keeps the observed
// pairs.
//
// Neighbours are ranked by (squared distance, index of the observed pair),
// so ties resolve to the pair observed first. On one slot the squared
// distance of a pair (A', B') to the query (A, B) is the distance of A' to
// A plus that of B' to B, so the search walks the grid of (victim,
// partner) cells in increasing order of that sum, each job's neighbours
// pre-sorted by distance, and stops once the sum passes the K-th best
// distance found: it looks at about K/density cells rather than every
// observed pair. The sums only order the walk; a pair's distance is the
// exhaustive one (every coordinate, in order), and the stop is widened by
// a relative 1e-9, far above the rounding of the sums, so the neighbours,
// their order and the prediction are those of sorting every candidate
// (a test checks this bit for bit).
type knnModel struct {
	framed
	Opts knnOptions `json:"options"`
	K    int        `json:"k"`
	Obs  []Obs      `json:"obs"`
	vecs [][]float64
	// cell[s][a*nj+b] is 1 + the index of the first observed pair (a, b)
	// of slot s (0: none; nil: the slot has none); next chains the pairs
	// of one cell.
	cell [][]int32
	next []int32
	// near[s*nj+j] lists the jobs with features on slot s by increasing
	// squared distance to j (nearD: those distances). Built by bind and
	// read-only afterwards, so Predict may run concurrently.
	near  [][]int32
	nearD [][]float64
	// memo, when set, keeps each query's nearest pairs so that the
	// candidates of a validation search share one search (not safe for
	// concurrent use: it is set only inside Fit).
	memo *knnMemo
}

// knnMemo keeps the nearest pairs of each query, up to max of them.
type knnMemo struct {
	max  int
	near map[[3]int][]int
}

// newKNN returns the knn baseline.
func newKNN(o knnOptions) *knnModel { return &knnModel{Opts: o} }

// Name implements Model.
func (m *knnModel) Name() string { return "knn" }

// Hyper implements Hyper.
func (m *knnModel) Hyper() any { return m.Opts }

// Fit implements Model.
func (m *knnModel) Fit(t *Train) error {
	memo := &knnMemo{near: map[[3]int][]int{}}
	for _, k := range m.Opts.Ks {
		memo.max = max(memo.max, k)
	}
	var shared *knnModel
	best := chooseByValidation(t, len(m.Opts.Ks), 0, func(i int, tr *Train) (Model, error) {
		if shared == nil {
			shared = &knnModel{Opts: m.Opts, Obs: tr.Obs, memo: memo}
			shared.bind(tr.Frame)
		}
		c := *shared
		c.K = m.Opts.Ks[i]
		return &c, nil
	})
	m.K = 5
	if len(m.Opts.Ks) > 0 {
		m.K = m.Opts.Ks[best]
	}
	m.Obs = t.Obs
	m.bind(t.Frame)
	return nil
}

func (m *knnModel) bind(f *Frame) {
	m.f = f
	nj, p := len(f.Jobs), pairDim(f)
	m.vecs = make([][]float64, len(m.Obs))
	flat := make([]float64, len(m.Obs)*p)
	m.cell = make([][]int32, len(f.Slots))
	m.next = make([]int32, len(m.Obs))
	for i := len(m.Obs) - 1; i >= 0; i-- {
		o := m.Obs[i]
		m.vecs[i] = pairVec(f, o.A, o.B, o.S, flat[i*p:(i+1)*p:(i+1)*p])
		if m.cell[o.S] == nil {
			m.cell[o.S] = make([]int32, nj*nj)
		}
		c := &m.cell[o.S][o.A*nj+o.B]
		m.next[i] = *c
		*c = int32(i + 1)
	}
	m.near = make([][]int32, len(f.Slots)*nj)
	m.nearD = make([][]float64, len(f.Slots)*nj)
	for s, c := range m.cell {
		if c == nil {
			continue
		}
		var jobs []int32
		for j := 0; j < nj; j++ {
			if f.Row(j, s) != nil {
				jobs = append(jobs, int32(j))
			}
		}
		for j := 0; j < nj; j++ {
			m.near[s*nj+j], m.nearD[s*nj+j] = byDistance(f, j, s, jobs)
		}
	}
}

// byDistance returns jobs by increasing squared distance of their
// features on slot s to j's, ties by index, and the distances.
func byDistance(f *Frame, j, s int, jobs []int32) ([]int32, []float64) {
	zj := f.Z(j, s)
	d := make([]float64, len(f.Jobs))
	for _, v := range jobs {
		x := 0.0
		for k, z := range f.Z(int(v), s) {
			x += (z - zj[k]) * (z - zj[k])
		}
		d[v] = x
	}
	order := append([]int32(nil), jobs...)
	sort.Slice(order, func(x, y int) bool {
		if d[order[x]] != d[order[y]] {
			return d[order[x]] < d[order[y]]
		}
		return order[x] < order[y]
	})
	ds := make([]float64, len(order))
	for r, v := range order {
		ds[r] = d[v]
	}
	return order, ds
}

// Predict implements Model.
func (m *knnModel) Predict(a, b, s int) float64 {
	k := m.K
	var near []int
	if m.memo != nil {
		key := [3]int{a, b, s}
		var ok bool
		if near, ok = m.memo.near[key]; !ok {
			near = m.nearest(a, b, s, m.memo.max)
			m.memo.near[key] = near
		}
	} else {
		near = m.nearest(a, b, s, k)
	}
	k = min(k, len(near))
	if k == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, i := range near[:k] {
		sum += m.Obs[i].Y
	}
	return sum / float64(k)
}

// topK keeps the k smallest (distance, index) candidates, sorted.
type topK struct {
	k  int
	d  []float64
	ix []int
}

func (t *topK) full() bool { return len(t.d) == t.k }

// bound is the distance a candidate must not exceed to enter.
func (t *topK) bound() float64 {
	if !t.full() {
		return math.Inf(1)
	}
	return t.d[len(t.d)-1]
}

func (t *topK) push(d float64, i int) {
	n := len(t.d)
	if n == t.k && (d > t.d[n-1] || d == t.d[n-1] && i > t.ix[n-1]) {
		return
	}
	if n < t.k {
		t.d, t.ix = append(t.d, 0), append(t.ix, 0)
		n++
	}
	j := n - 1
	for ; j > 0 && (t.d[j-1] > d || t.d[j-1] == d && t.ix[j-1] > i); j-- {
		t.d[j], t.ix[j] = t.d[j-1], t.ix[j-1]
	}
	t.d[j], t.ix[j] = d, i
}

// nearest returns the indices of the k observed pairs nearest to (a, b, s)
// in the order of an exhaustive sort by (distance, index).
func (m *knnModel) nearest(a, b, s, k int) []int {
	if k <= 0 {
		return nil
	}
	q := pairVec(m.f, a, b, s, make([]float64, pairDim(m.f)))
	top := &topK{k: k, d: make([]float64, 0, k), ix: make([]int, 0, k)}
	dist := func(i int) float64 {
		d := 0.0
		for j, v := range m.vecs[i] {
			d += (v - q[j]) * (v - q[j])
		}
		return d
	}
	cell := m.cell[s]
	if cell == nil {
		// no pair of this slot: every observed pair is a candidate
		for i := range m.Obs {
			top.push(dist(i), i)
		}
		return top.ix
	}
	nj := len(m.f.Jobs)
	va, da := m.near[s*nj+a], m.nearD[s*nj+a]
	vb, db := m.near[s*nj+b], m.nearD[s*nj+b]
	if len(va) == 0 || len(vb) == 0 {
		return nil
	}
	// best-first walk of the grid of (rank of victim, rank of partner):
	// from (i, j) the walk reaches (i, j+1), and (i+1, 0) when j = 0, so
	// every cell is reached once.
	h := gridHeap{{sum: da[0] + db[0]}}
	for len(h) > 0 {
		c := h.pop()
		if top.full() && c.sum > top.bound()*(1+1e-9) {
			break
		}
		for i := cell[int(va[c.i])*nj+int(vb[c.j])]; i != 0; i = m.next[i-1] {
			top.push(dist(int(i-1)), int(i-1))
		}
		if c.j+1 < len(vb) {
			h.push(gridCell{sum: da[c.i] + db[c.j+1], i: c.i, j: c.j + 1})
		}
		if c.j == 0 && c.i+1 < len(va) {
			h.push(gridCell{sum: da[c.i+1] + db[0], i: c.i + 1})
		}
	}
	return top.ix
}

// gridCell is a (victim rank, partner rank) cell of the search and the sum
// of their distances.
type gridCell struct {
	sum  float64
	i, j int
}

// gridHeap is a binary min-heap of cells by sum.
type gridHeap []gridCell

func (h *gridHeap) push(c gridCell) {
	*h = append(*h, c)
	x := *h
	for k := len(x) - 1; k > 0; {
		p := (k - 1) / 2
		if x[p].sum <= x[k].sum {
			break
		}
		x[p], x[k] = x[k], x[p]
		k = p
	}
}

func (h *gridHeap) pop() gridCell {
	x := *h
	top := x[0]
	n := len(x) - 1
	x[0] = x[n]
	x = x[:n]
	for k := 0; ; {
		l, small := 2*k+1, k
		if l < n && x[l].sum < x[small].sum {
			small = l
		}
		if l+1 < n && x[l+1].sum < x[small].sum {
			small = l + 1
		}
		if small == k {
			break
		}
		x[k], x[small] = x[small], x[k]
		k = small
	}
	*h = x
	return top
}
