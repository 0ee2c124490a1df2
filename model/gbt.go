package model

import (
	"encoding/json"
	"math"
)

// gbtOptions are the hyper-parameters of the gradient-boosted trees
// baseline.
type gbtOptions struct {
	// Depths are the tree depths tried; for each, the number of trees is
	// the one of lowest validation MAE up to MaxTrees.
	Depths   []int   `json:"depths"`
	MaxTrees int     `json:"max_trees"`
	Rate     float64 `json:"learning_rate"`
	MinLeaf  int     `json:"min_leaf"`
	// PairSums adds to the tree input, for each feature, the sum of the
	// two jobs' standardized values. Co-located jobs share the device, so
	// how much of a resource a pair asks for is the sum of what each job
	// asks for alone; a threshold on that sum is a diagonal cut through
	// the two jobs' features, which axis-aligned trees approximate with
	// many splits and few pairs cannot pay for, while one split on the
	// sum makes it. For a feature that is not a demand (a model's layer
	// count) the sum is one more input the trees may ignore. Off in the
	// gbt baseline, which sees what a generic learner is given; on in the
	// trees of the stack and the committee (memberGBTOptions). Files
	// without it read as off.
	PairSums bool `json:"pair_sums,omitempty"`
}

// defaultGBTOptions are the defaults of the gbt baseline: scikit-learn's
// GradientBoostingRegressor defaults (depth 3, rate 0.1, squared error)
// with the number of trees chosen by validation (up to 300, stopping 40
// trees after the best) instead of fixed at 100. Depths 2 and 4 as
// alternatives changed Gavel's validation choice rarely and tripled the
// time of `coloc report`, which fits every model.
var defaultGBTOptions = gbtOptions{Depths: []int{3}, MaxTrees: 300, Rate: 0.1, MinLeaf: 3}

// memberGBTOptions are the options of the trees inside coloc's own
// models (Stack, Committee): the gbt baseline's, with the pair's summed
// features in the input (PairSums).
var memberGBTOptions = func() gbtOptions {
	o := defaultGBTOptions
	o.PairSums = true
	return o
}()

// gbtPatience is the number of trees boosting goes on without a new best
// validation MAE before it stops trying more.
const gbtPatience = 40

// gbt is gradient boosting of least-squares regression trees (our own
// CART, cart.go) on the tree input: the pair vector and the identities of
// both jobs (and, with PairSums, the pair's summed features).
type gbt struct {
	framed
	Opts  gbtOptions `json:"options"`
	Depth int        `json:"depth"`
	Init  float64    `json:"init"`
	Trees []cartTree `json:"trees"`
}

// newGBT returns the gbt baseline.
func newGBT(o gbtOptions) *gbt { return &gbt{Opts: o} }

// UnmarshalJSON reads a GBT's state into a zero GBT, not over the
// defaults it was made with: options a file leaves out (pair_sums in
// files written before it existed, in the stack's and the committee's
// trees too) read as off, as they were when it was written.
func (m *gbt) UnmarshalJSON(b []byte) error {
	type state gbt
	var s state
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*m = gbt(s)
	return nil
}

// Name implements Model: "gbt", or "gbt-sums" when the trees read the
// pair sums (the registry's two entries; a file's options decide which a
// loaded model is).
func (m *gbt) Name() string {
	if m.Opts.PairSums {
		return "gbt-sums"
	}
	return "gbt"
}

// Hyper implements Hyper.
func (m *gbt) Hyper() any { return m.Opts }

// Fit implements Model. Depth and number of trees are chosen on a
// validation fifth of the pairs, then the model is refit on all of them.
func (m *gbt) Fit(t *Train) error {
	depth, trees := 3, min(100, max(1, m.Opts.MaxTrees))
	if len(m.Opts.Depths) > 0 {
		depth = m.Opts.Depths[0]
	}
	if len(t.Obs) >= 10 {
		tr, val := splitObs(t.Obs, 0.2, rng(t.Seed, 0x6b7))
		vx := make([][]float64, len(val))
		for i, o := range val {
			vx[i] = treeInput(t.Frame, o.A, o.B, o.S, m.Opts.PairSums, nil)
		}
		best := math.Inf(1)
		for _, d := range m.Opts.Depths {
			c := &gbt{Opts: m.Opts}
			pred := make([]float64, len(val))
			bestK, bestD := -1, math.Inf(1)
			c.boost(t.Frame, tr, d, m.Opts.MaxTrees, func(k int, tree cartTree) bool {
				e := 0.0
				for i, o := range val {
					if k == 0 {
						pred[i] = c.Init
					}
					pred[i] += tree.predict(vx[i])
					e += math.Abs(pred[i] - o.Y)
				}
				if e < bestD {
					bestD, bestK = e, k
				}
				if e < best {
					best, depth, trees = e, d, k+1
				}
				return k-bestK < gbtPatience
			})
		}
	}
	m.boost(t.Frame, t.Obs, depth, trees, nil)
	return nil
}

// boost fits up to n trees of depth d; after each it calls after (when
// not nil), and stops when that returns false.
func (m *gbt) boost(f *Frame, obs []Obs, d, n int, after func(k int, tree cartTree) bool) {
	m.f, m.Depth, m.Trees = f, d, nil
	m.Init = 0
	for _, o := range obs {
		m.Init += o.Y
	}
	m.Init /= float64(len(obs))
	data := treeDesign(f, obs, m.Opts.PairSums)
	res, w := make([]float64, len(obs)), make([]float64, len(obs))
	for i, o := range obs {
		res[i], w[i] = o.Y-m.Init, 1
	}
	opt := cartOptions{depth: d, minLeaf: m.Opts.MinLeaf, shrink: m.Opts.Rate}
	for k := 0; k < n; k++ {
		tree := growCART(data, res, w, opt, nil)
		for i := range res {
			res[i] -= tree.predict(data.x[i])
		}
		m.Trees = append(m.Trees, tree)
		if after != nil && !after(k, tree) {
			return
		}
	}
}

// Predict implements Model.
func (m *gbt) Predict(a, b, s int) float64 {
	x := treeInput(m.f, a, b, s, m.Opts.PairSums, nil)
	y := m.Init
	for _, t := range m.Trees {
		y += t.predict(x)
	}
	return y
}

// check verifies a loaded model's trees against its frame.
func (m *gbt) check(f *Frame) error {
	return checkTrees(m.Trees, len(treeInput(f, 0, 0, 0, m.Opts.PairSums, nil)))
}
