package model

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/sjwhitworth/golearn/base"
	"github.com/sjwhitworth/golearn/trees"
	"gonum.org/v1/gonum/mat"
)

// golearnTree grows golearn's CART regressor on the pair vectors of obs,
// as the tree model did before it had its own grower.
func golearnTree(t *testing.T, tr *Train, depth int) *treeNode {
	t.Helper()
	p, n := pairDim(tr.Frame), len(tr.Obs)
	data := mat.NewDense(n, p+1, nil)
	row := make([]float64, p+1)
	for i, o := range tr.Obs {
		pairVec(tr.Frame, o.A, o.B, o.S, row[:p])
		row[p] = o.Y
		data.SetRow(i, row)
	}
	inst := base.InstancesFromMat64(n, p+1, data)
	if err := inst.AddClassAttribute(inst.AllAttributes()[p]); err != nil {
		t.Fatal(err)
	}
	reg := trees.NewDecisionTreeRegressor(trees.MSE, int64(depth))
	if err := reg.Fit(inst); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(reg.RootNode)
	if err != nil {
		t.Fatal(err)
	}
	root := new(treeNode)
	if err := json.Unmarshal(b, root); err != nil {
		t.Fatal(err)
	}
	return root
}

// The grower makes golearn's tree: as many nodes and the same predictions
// on every training pair, up to the order of summation. Where two features
// cut a node's pairs into the same two sides (here the rounded feature of
// job A and of job B often do), the losses tie exactly and the choice
// between them is rounding (ours takes the first feature), so the trees
// may differ in which feature a node tests, or mirror a subtree, but not in
// how they part the training pairs.
func TestTreeMatchesGolearn(t *testing.T) {
	co := DefaultCatalogueOptions
	co.Jobs, co.Partners = 40, 12
	d, err := Catalogue(co)
	if err != nil {
		t.Fatal(err)
	}
	// a coarse feature makes ties between thresholds and equal values
	for j := range d.Space.Jobs {
		d.Space.X[j][0] = math.Round(d.Space.X[j][0])
	}
	tr, err := NewTrain(d.Space, d.Obs, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, depth := range []int{1, 3, 5, 8} {
		m := &tree{}
		if err := m.fit(tr, depth); err != nil {
			t.Fatal(err)
		}
		theirs := &tree{Root: golearnTree(t, tr, depth)}
		theirs.f = tr.Frame
		count := func(root *treeNode) (n int) {
			var walk func(*treeNode)
			walk = func(x *treeNode) {
				if x != nil {
					n++
					walk(x.Left)
					walk(x.Right)
				}
			}
			walk(root)
			return n
		}
		nodes := count(m.Root)
		if want := count(theirs.Root); nodes != want || nodes < 2 && depth > 1 {
			t.Fatalf("depth %d: %d nodes, golearn %d", depth, nodes, want)
		}
		for _, o := range tr.Obs {
			if p, q := m.Predict(o.A, o.B, o.S), theirs.Predict(o.A, o.B, o.S); math.Abs(p-q) > 1e-12 {
				t.Fatalf("depth %d, pair %d|%d: %v, golearn %v", depth, o.A, o.B, p, q)
			}
		}
		t.Logf("depth %d: %d nodes", depth, nodes)
	}
}

// A root that no split improves predicts the mean everywhere.
func TestTreeConstantTarget(t *testing.T) {
	sp, _ := synthetic(t, 6, 1)
	train, _ := allPairs(6, 1, 1, func(a, b int) float64 { return 0.75 })
	tr, err := NewTrain(sp, train, 1)
	if err != nil {
		t.Fatal(err)
	}
	m := newTree(defaultTreeOptions)
	if err := m.Fit(tr); err != nil {
		t.Fatal(err)
	}
	for a := 0; a < 6; a++ {
		if p := m.Predict(a, 5-a, 0); math.Abs(p-0.75) > 1e-15 {
			t.Fatalf("%d|%d: %v, want 0.75", a, 5-a, p)
		}
	}
}
