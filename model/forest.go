package model

import (
	"fmt"
	"math"
)

// forestOptions are the hyper-parameters of the random forest baseline.
type forestOptions struct {
	Trees int `json:"trees"`
	// MtryShares are the shares of the features tried at each split
	// (validation split of the training pairs).
	MtryShares []float64 `json:"mtry_shares"`
	MinLeaf    int       `json:"min_leaf"`
	MaxDepth   int       `json:"max_depth"`
}

// defaultForestOptions are the defaults of the forest baseline: 100
// bootstrap trees as scikit-learn's RandomForestRegressor, a third of the
// features tried at each split (Breiman's choice for regression, three
// times cheaper than scikit-learn's all; trying both on validation made
// `coloc report`, which fits every model, several times slower) and leaves
// of at least 2 pairs.
var defaultForestOptions = forestOptions{Trees: 100, MtryShares: []float64{1.0 / 3}, MinLeaf: 2, MaxDepth: 20}

// forest is a random forest of least-squares regression trees (our own
// CART, cart.go) on bootstrap samples of the pairs, on the same input as
// GBT.
type forest struct {
	framed
	Opts  forestOptions `json:"options"`
	Mtry  int           `json:"mtry"`
	Trees []cartTree    `json:"trees"`
}

// newForest returns the forest baseline.
func newForest(o forestOptions) *forest { return &forest{Opts: o} }

// Name implements Model.
func (m *forest) Name() string { return "forest" }

// Hyper implements Hyper.
func (m *forest) Hyper() any { return m.Opts }

// Fit implements Model.
func (m *forest) Fit(t *Train) error {
	p := len(treeInput(t.Frame, 0, 0, 0, false, nil))
	mtry := func(share float64) int { return max(1, int(math.Round(share*float64(p)))) }
	best := chooseByValidation(t, len(m.Opts.MtryShares), 0, func(i int, tr *Train) (Model, error) {
		c := &forest{Opts: m.Opts}
		c.grow(tr, mtry(m.Opts.MtryShares[i]))
		return c, nil
	})
	k := p
	if len(m.Opts.MtryShares) > 0 {
		k = mtry(m.Opts.MtryShares[best])
	}
	m.grow(t, k)
	return nil
}

func (m *forest) grow(t *Train, mtry int) {
	m.f, m.Mtry, m.Trees = t.Frame, mtry, nil
	data := treeDesign(t.Frame, t.Obs, false)
	y := make([]float64, len(t.Obs))
	for i, o := range t.Obs {
		y[i] = o.Y
	}
	r := rng(t.Seed, 0xf0e5)
	opt := cartOptions{depth: m.Opts.MaxDepth, minLeaf: m.Opts.MinLeaf, mtry: mtry, shrink: 1}
	w := make([]float64, len(y))
	for k := 0; k < max(1, m.Opts.Trees); k++ {
		for i := range w {
			w[i] = 0
		}
		for range y {
			w[r.IntN(len(y))]++
		}
		m.Trees = append(m.Trees, growCART(data, y, w, opt, r))
	}
}

// Predict implements Model.
func (m *forest) Predict(a, b, s int) float64 {
	x := treeInput(m.f, a, b, s, false, nil)
	y := 0.0
	for _, t := range m.Trees {
		y += t.predict(x)
	}
	return y / float64(len(m.Trees))
}

// check verifies a loaded model's trees against its frame.
func (m *forest) check(f *Frame) error {
	if len(m.Trees) == 0 {
		return fmt.Errorf("forest has no trees")
	}
	return checkTrees(m.Trees, len(treeInput(f, 0, 0, 0, false, nil)))
}

// checkTrees verifies that every node of every tree refers to a feature
// of the input and to nodes of its tree, children after their parent (so
// a prediction always ends in a leaf).
func checkTrees(trees []cartTree, p int) error {
	for k, t := range trees {
		if len(t) == 0 {
			return fmt.Errorf("tree %d is empty", k)
		}
		for i, n := range t {
			if n.Feature < 0 {
				continue
			}
			if n.Feature >= p || n.Left <= i || n.Right <= i || n.Left >= len(t) || n.Right >= len(t) {
				return fmt.Errorf("tree %d node %d: feature %d or children %d, %d out of range", k, i, n.Feature, n.Left, n.Right)
			}
		}
	}
	return nil
}
