package model

import "sort"

// treeOptions are the hyper-parameters of the regression tree baseline.
type treeOptions struct {
	// Depths are the maximum depths tried (validation split of the training
	// pairs).
	Depths []int `json:"depths"`
}

// defaultTreeOptions are the defaults of the tree baseline.
var defaultTreeOptions = treeOptions{Depths: []int{3, 5, 8}}

// tree is a CART regression tree (mean squared error criterion) on the
// pair vector, grown to a maximum depth chosen on a validation split.
//
// Growing follows golearn's trees.CARTDecisionTreeRegressor (which grew it
// before, and against which a test checks this one): candidate thresholds
// are the midpoints of consecutive distinct values of a feature; a node
// takes the split with the lowest size-weighted MSE of its two sides, the
// first feature and then the lowest threshold winning ties, only if it is
// below the node's own MSE; a side whose values are all equal is not split
// further. Each feature of a node is sorted once and its thresholds are
// scanned with running sums of the (node-centred) targets, so a node costs
// O(p·n·log n) rather than golearn's O(p·n²).
//
// Differences from golearn, all at rounding level or in cases golearn got
// wrong: the split losses come from running sums, so two candidate splits
// whose losses differ by less than rounding may be chosen differently, and
// a split must improve the node's squared error by more than 1e-12 of it;
// means are summed in the order of the rows sorted by the split feature,
// ties kept in input order (golearn's sort does not keep it), so a leaf
// value can differ in its last bits; a root that no split improves
// predicts the mean on both sides (golearn predicted 0 on the right).
type tree struct {
	framed
	Opts  treeOptions `json:"options"`
	Depth int         `json:"depth"`
	Root  *treeNode   `json:"root"`
}

// treeNode is one split: go left when x[Feature] < Threshold; a nil child
// means predict LeftPred / RightPred (the means of the two sides).
type treeNode struct {
	Left      *treeNode `json:"Left,omitempty"`
	Right     *treeNode `json:"Right,omitempty"`
	Threshold float64   `json:"Threshold"`
	Feature   int64     `json:"Feature"`
	LeftPred  float64   `json:"LeftPred"`
	RightPred float64   `json:"RightPred"`
}

// newTree returns the tree baseline.
func newTree(o treeOptions) *tree { return &tree{Opts: o} }

// Name implements Model.
func (m *tree) Name() string { return "tree" }

// Hyper implements Hyper.
func (m *tree) Hyper() any { return m.Opts }

// Fit implements Model.
func (m *tree) Fit(t *Train) error {
	best := chooseByValidation(t, len(m.Opts.Depths), 0, func(i int, tr *Train) (Model, error) {
		c := &tree{Opts: m.Opts}
		return c, c.fit(tr, m.Opts.Depths[i])
	})
	depth := 5
	if len(m.Opts.Depths) > 0 {
		depth = m.Opts.Depths[best]
	}
	return m.fit(t, depth)
}

func (m *tree) fit(t *Train, depth int) error {
	m.f, m.Depth = t.Frame, depth
	p, n := pairDim(t.Frame), len(t.Obs)
	g := &cartGrower{p: p, x: make([]float64, n*p), y: make([]float64, n), maxDepth: depth}
	for i, o := range t.Obs {
		pairVec(t.Frame, o.A, o.B, o.S, g.x[i*p:(i+1)*p])
		g.y[i] = o.Y
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	g.scratch = make([]int, n)
	root, ok := g.grow(rows, 1)
	if !ok {
		mu := meanOf(g.y, rows)
		root = &treeNode{LeftPred: mu, RightPred: mu}
	}
	m.Root = root
	return nil
}

// cartGrower grows a CART regression tree on n rows of p features (x
// row-major) with targets y.
type cartGrower struct {
	p        int
	x, y     []float64
	maxDepth int
	scratch  []int
}

func meanOf(y []float64, rows []int) float64 {
	s := 0.0
	for _, r := range rows {
		s += y[r]
	}
	return s / float64(len(rows))
}

// pure reports whether every row has the same target.
func (g *cartGrower) pure(rows []int) bool {
	for _, r := range rows[1:] {
		if g.y[r] != g.y[rows[0]] {
			return false
		}
	}
	return true
}

// grow splits rows (a node at depth) and returns the node, or false when
// the node is deeper than the maximum or no split improves it: its parent
// then predicts the mean of its rows. grow reorders rows.
func (g *cartGrower) grow(rows []int, depth int) (*treeNode, bool) {
	if depth > g.maxDepth || len(rows) < 2 {
		return nil, false
	}
	n := float64(len(rows))
	mu := meanOf(g.y, rows)
	var sT, qT float64
	for _, r := range rows {
		c := g.y[r] - mu
		sT += c
		qT += c * c
	}
	total := max(0, qT-sT*sT/n)
	bestSSE := total - 1e-12*total
	bestF, bestK := -1, 0
	var bestThr float64
	sorted := g.scratch[:len(rows)]
	for f := 0; f < g.p; f++ {
		copy(sorted, rows)
		x := func(r int) float64 { return g.x[r*g.p+f] }
		sort.SliceStable(sorted, func(i, j int) bool { return x(sorted[i]) < x(sorted[j]) })
		var sL, qL float64
		for k := 1; k < len(sorted); k++ {
			c := g.y[sorted[k-1]] - mu
			sL += c
			qL += c * c
			lo, hi := x(sorted[k-1]), x(sorted[k])
			if lo == hi {
				continue
			}
			nl, nr := float64(k), n-float64(k)
			sR, qR := sT-sL, qT-qL
			sse := max(0, qL-sL*sL/nl) + max(0, qR-sR*sR/nr)
			if sse < bestSSE {
				bestSSE, bestF, bestK, bestThr = sse, f, k, (lo+hi)/2
			}
		}
	}
	if bestF < 0 {
		return nil, false
	}
	copy(sorted, rows)
	sort.SliceStable(sorted, func(i, j int) bool { return g.x[sorted[i]*g.p+bestF] < g.x[sorted[j]*g.p+bestF] })
	copy(rows, sorted)
	left, right := rows[:bestK], rows[bestK:]
	node := &treeNode{Feature: int64(bestF), Threshold: bestThr, LeftPred: meanOf(g.y, left), RightPred: meanOf(g.y, right)}
	if !g.pure(left) {
		if c, ok := g.grow(left, depth+1); ok {
			node.Left = c
		}
	}
	if !g.pure(right) {
		if c, ok := g.grow(right, depth+1); ok {
			node.Right = c
		}
	}
	return node, true
}

// Predict implements Model.
func (m *tree) Predict(a, b, s int) float64 {
	d := m.f.Dim()
	x := func(k int64) float64 {
		switch {
		case int(k) < d:
			return m.f.Z(a, s)[k]
		case int(k) < 2*d:
			return m.f.Z(b, s)[int(k)-d]
		case int(k)-2*d == s:
			return 1
		}
		return 0
	}
	n := m.Root
	for {
		if x(n.Feature) < n.Threshold {
			if n.Left == nil {
				return n.LeftPred
			}
			n = n.Left
		} else {
			if n.Right == nil {
				return n.RightPred
			}
			n = n.Right
		}
	}
}
