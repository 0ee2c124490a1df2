package model

import (
	"math"
	"math/rand/v2"
	"sort"
)

// cartNode is a node of a regression tree grown by growCART: an inner node
// sends x to Left when x[Feature] < Threshold; a leaf (Feature < 0)
// predicts Value. Nodes live in one slice and refer to each other by index,
// so a forest saves compactly.
type cartNode struct {
	Feature   int     `json:"f"`
	Threshold float64 `json:"t,omitempty"`
	Left      int     `json:"l,omitempty"`
	Right     int     `json:"r,omitempty"`
	Value     float64 `json:"v,omitempty"`
}

// cartTree is one regression tree.
type cartTree []cartNode

func (t cartTree) predict(x []float64) float64 {
	i := 0
	for t[i].Feature >= 0 {
		if x[t[i].Feature] < t[i].Threshold {
			i = t[i].Left
		} else {
			i = t[i].Right
		}
	}
	return t[i].Value
}

// cartOptions control one tree.
type cartOptions struct {
	depth   int     // maximum depth (root at 0)
	minLeaf int     // fewest samples in a leaf
	mtry    int     // features tried per split (0: all)
	shrink  float64 // leaf value multiplier (learning rate of boosting; 1 otherwise)
}

// cartData is a design matrix with each feature's sample order sorted
// once, so that growing a tree never sorts.
type cartData struct {
	x     [][]float64 // [sample][feature]
	order [][]int32   // [feature] samples by increasing value
}

func newCARTData(x [][]float64) *cartData {
	d := &cartData{x: x}
	if len(x) == 0 {
		return d
	}
	p := len(x[0])
	d.order = make([][]int32, p)
	for k := 0; k < p; k++ {
		o := make([]int32, len(x))
		for i := range o {
			o[i] = int32(i)
		}
		sort.SliceStable(o, func(i, j int) bool { return x[o[i]][k] < x[o[j]][k] })
		d.order[k] = o
	}
	return d
}

// growCART grows a least-squares regression tree on targets y with sample
// weights w (a bootstrap count, 0 leaves a sample out), with random
// feature subsets from r when o.mtry > 0. It grows level by level: one
// pass over each feature's sorted samples finds the best split of every
// node of the level, so a level costs O(samples x features).
func growCART(d *cartData, y []float64, w []float64, o cartOptions, r *rand.Rand) cartTree {
	n, p := len(d.x), len(d.order)
	node := make([]int32, n) // node of each sample; -1 when out
	for i := range node {
		if w[i] == 0 {
			node[i] = -1
		}
	}
	t := cartTree{{Feature: -1}}
	level := []int{0}
	feats := make([]int, p)
	for k := range feats {
		feats[k] = k
	}
	type stat struct {
		sw, swy  float64
		cnt      int
		try      []bool
		gain, th float64
		f        int
		// running left sums of the current feature's pass
		lw, lwy float64
		lc      int
		prev    float64
		first   bool
	}
	for depth := 0; len(level) > 0; depth++ {
		pos := make([]int, len(t)) // position in level of each node, -1 when not in it
		for i := range pos {
			pos[i] = -1
		}
		st := make([]stat, len(level))
		for k, id := range level {
			pos[id] = k
			st[k].f = -1
			st[k].gain = 1e-12
		}
		for i := 0; i < n; i++ {
			if node[i] < 0 {
				continue
			}
			if k := pos[node[i]]; k >= 0 {
				st[k].sw += w[i]
				st[k].swy += w[i] * y[i]
				st[k].cnt++
			}
		}
		split := false
		for k, id := range level {
			if st[k].sw > 0 {
				t[id].Value = o.shrink * st[k].swy / st[k].sw
			}
			if depth >= o.depth || st[k].cnt < 2*o.minLeaf || st[k].sw == 0 {
				st[k].cnt = -1 // closed
				continue
			}
			split = true
			if o.mtry > 0 && o.mtry < p {
				st[k].try = make([]bool, p)
				r.Shuffle(p, func(i, j int) { feats[i], feats[j] = feats[j], feats[i] })
				for _, f := range feats[:o.mtry] {
					st[k].try[f] = true
				}
			}
		}
		if !split {
			break
		}
		for f := 0; f < p; f++ {
			for k := range st {
				st[k].lw, st[k].lwy, st[k].lc, st[k].first = 0, 0, 0, true
			}
			for _, si := range d.order[f] {
				i := int(si)
				if node[i] < 0 {
					continue
				}
				k := pos[node[i]]
				if k < 0 {
					continue
				}
				c := &st[k]
				if c.cnt < 0 || (c.try != nil && !c.try[f]) {
					continue
				}
				v := d.x[i][f]
				if !c.first && v > c.prev && c.lc >= o.minLeaf && c.cnt-c.lc >= o.minLeaf {
					rw, rwy := c.sw-c.lw, c.swy-c.lwy
					if c.lw > 0 && rw > 0 {
						if g := c.lwy*c.lwy/c.lw + rwy*rwy/rw - c.swy*c.swy/c.sw; g > c.gain {
							c.gain, c.f, c.th = g, f, (c.prev+v)/2
						}
					}
				}
				c.lw += w[i]
				c.lwy += w[i] * y[i]
				c.lc++
				c.prev, c.first = v, false
			}
		}
		var next []int
		for k, id := range level {
			if st[k].cnt < 0 || st[k].f < 0 {
				continue
			}
			l, rt := len(t), len(t)+1
			t[id] = cartNode{Feature: st[k].f, Threshold: st[k].th, Left: l, Right: rt}
			t = append(t, cartNode{Feature: -1}, cartNode{Feature: -1})
			next = append(next, l, rt)
		}
		for i := 0; i < n; i++ {
			if node[i] < 0 {
				continue
			}
			nd := t[node[i]]
			if nd.Feature >= 0 {
				if d.x[i][nd.Feature] < nd.Threshold {
					node[i] = int32(nd.Left)
				} else {
					node[i] = int32(nd.Right)
				}
			}
		}
		level = next
	}
	return t
}

// treeInput is the input of the tree ensembles: the pair vector (the
// standardized features of A and B on the slot and the slot indicator, as
// the other feature-based models see it) followed by the identity of A and
// of B as indicators, the information the collaborative models have. With
// sums, the sum of A's and B's standardized value of each feature follows
// (the pair's load; see gbtOptions.PairSums).
func treeInput(f *Frame, a, b, s int, sums bool, dst []float64) []float64 {
	p := pairDim(f)
	nj := len(f.Jobs)
	n := p + 2*nj
	if sums {
		n += f.Dim()
	}
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	pairVec(f, a, b, s, dst[:p])
	for i := p; i < p+2*nj; i++ {
		dst[i] = 0
	}
	dst[p+a] = 1
	dst[p+nj+b] = 1
	if sums {
		d := f.Dim()
		for i := range d {
			dst[p+2*nj+i] = dst[i] + dst[d+i]
		}
	}
	return dst
}

// treeDesign returns the tree input of each observation.
func treeDesign(f *Frame, obs []Obs, sums bool) *cartData {
	x := make([][]float64, len(obs))
	for i, o := range obs {
		x[i] = treeInput(f, o.A, o.B, o.S, sums, nil)
	}
	return newCARTData(x)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
