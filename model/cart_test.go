package model

import (
	"math"
	"testing"
)

// A tree recovers a step function exactly, and the ensembles fit a
// smooth interaction better than the mean does.
func TestCARTStep(t *testing.T) {
	var x [][]float64
	var y, w []float64
	for i := 0; i < 40; i++ {
		v := float64(i)
		x = append(x, []float64{v, math.Mod(v*7, 5)})
		if v < 17 {
			y = append(y, 0.3)
		} else {
			y = append(y, 0.9)
		}
		w = append(w, 1)
	}
	tree := growCART(newCARTData(x), y, w, cartOptions{depth: 3, minLeaf: 1, shrink: 1}, nil)
	if tree[0].Feature != 0 || tree[0].Threshold != 16.5 {
		t.Fatalf("root splits feature %d at %v, want feature 0 at 16.5", tree[0].Feature, tree[0].Threshold)
	}
	for i := range x {
		if got := tree.predict(x[i]); math.Abs(got-y[i]) > 1e-12 {
			t.Fatalf("x %v: predicted %v, want %v", x[i], got, y[i])
		}
	}
	if err := checkTrees([]cartTree{tree}, 2); err != nil {
		t.Fatal(err)
	}
	if err := checkTrees([]cartTree{tree}, 0); err == nil {
		t.Fatal("a tree using feature 0 passed a check for 0 features")
	}
}
