package model

import (
	"encoding/json"
	"fmt"

	"github.com/sjwhitworth/golearn/base"
	"github.com/sjwhitworth/golearn/trees"
	"gonum.org/v1/gonum/mat"
)

// TreeOptions are the hyper-parameters of the regression tree baseline.
type TreeOptions struct {
	// Depths are the maximum depths tried (validation split of the training
	// pairs).
	Depths []int `json:"depths"`
}

// DefaultTreeOptions are the defaults of the tree baseline.
var DefaultTreeOptions = TreeOptions{Depths: []int{3, 5, 8}}

// Tree is a CART regression tree (mean squared error criterion) on the
// pair vector, grown by golearn's trees.CARTDecisionTreeRegressor, the
// pure-Go part of github.com/sjwhitworth/golearn. The grown tree is copied
// into Root so that it can be saved and predicted without golearn.
type Tree struct {
	framed
	Opts  TreeOptions `json:"options"`
	Depth int         `json:"depth"`
	Root  *treeNode   `json:"root"`
}

// treeNode mirrors golearn's exported node fields: go left when
// x[Feature] < Threshold; a nil child means predict LeftPred / RightPred.
type treeNode struct {
	Left      *treeNode `json:"Left,omitempty"`
	Right     *treeNode `json:"Right,omitempty"`
	Threshold float64   `json:"Threshold"`
	Feature   int64     `json:"Feature"`
	LeftPred  float64   `json:"LeftPred"`
	RightPred float64   `json:"RightPred"`
}

// NewTree returns the tree baseline.
func NewTree(o TreeOptions) *Tree { return &Tree{Opts: o} }

// Name implements Model.
func (m *Tree) Name() string { return "tree" }

// Hyper implements Hyper.
func (m *Tree) Hyper() any { return m.Opts }

// Fit implements Model.
func (m *Tree) Fit(t *Train) error {
	best := chooseByValidation(t, len(m.Opts.Depths), 0, func(i int, tr *Train) (Model, error) {
		c := &Tree{Opts: m.Opts}
		return c, c.fit(tr, m.Opts.Depths[i])
	})
	depth := 5
	if len(m.Opts.Depths) > 0 {
		depth = m.Opts.Depths[best]
	}
	return m.fit(t, depth)
}

func (m *Tree) fit(t *Train, depth int) error {
	m.f, m.Depth = t.Frame, depth
	p, n := pairDim(t.Frame), len(t.Obs)
	data := mat.NewDense(n, p+1, nil)
	row := make([]float64, p+1)
	for i, o := range t.Obs {
		pairVec(t.Frame, o.A, o.B, o.S, row[:p])
		row[p] = o.Y
		data.SetRow(i, row)
	}
	inst := base.InstancesFromMat64(n, p+1, data)
	attrs := inst.AllAttributes()
	if err := inst.AddClassAttribute(attrs[p]); err != nil {
		return fmt.Errorf("tree: %w", err)
	}
	reg := trees.NewDecisionTreeRegressor(trees.MSE, int64(depth))
	if err := reg.Fit(inst); err != nil {
		return fmt.Errorf("tree: %w", err)
	}
	// golearn's node type is unexported; its fields are not: copy them.
	b, err := json.Marshal(reg.RootNode)
	if err != nil {
		return fmt.Errorf("tree: %w", err)
	}
	m.Root = new(treeNode)
	if err := json.Unmarshal(b, m.Root); err != nil {
		return fmt.Errorf("tree: %w", err)
	}
	return nil
}

// Predict implements Model.
func (m *Tree) Predict(a, b, s int) float64 {
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
