package model

import (
	"math"
	"math/rand/v2"
)

// adam is the Adam optimizer (Kingma & Ba 2015) over one flat parameter
// vector; models lay all their parameters out in one slice so that one
// optimizer serves them.
type adam struct {
	lr, b1, b2, eps float64
	m, v            []float64
	t               int
}

func newAdam(n int, lr float64) *adam {
	return &adam{lr: lr, b1: 0.9, b2: 0.999, eps: 1e-8, m: make([]float64, n), v: make([]float64, n)}
}

// step updates params from grads (same length).
func (o *adam) step(params, grads []float64) {
	o.t++
	c1 := 1 - math.Pow(o.b1, float64(o.t))
	c2 := 1 - math.Pow(o.b2, float64(o.t))
	lr := o.lr * math.Sqrt(c2) / c1
	for i, g := range grads {
		o.m[i] = o.b1*o.m[i] + (1-o.b1)*g
		o.v[i] = o.b2*o.v[i] + (1-o.b2)*g*g
		params[i] -= lr * o.m[i] / (math.Sqrt(o.v[i]) + o.eps)
	}
}

// mlp is a fully connected network with ReLU hidden layers and a linear
// output of width 1, its weights in one flat slice: for each layer a
// row-major [out][in] matrix followed by the out biases. With sizes
// n0, n1, ..., nL (nL = 1) and off_l the start of layer l's block:
//
//	block        offset                 length     element
//	W_l [o][i]   off_l                  n_l*n_l-1  off_l + o*n_l-1 + i
//	b_l [o]      off_l + n_l*n_l-1      n_l        off_l + n_l*n_l-1 + o
//	(off_1 = 0, off_l+1 = off_l + n_l*n_l-1 + n_l; nParams = off_L+1)
//
// backward walks the blocks from the last layer down; its gradient is
// checked against central differences in gradient_test.go.
type mlp struct {
	sizes []int // input, hidden..., 1
	acts  [][]float64
	delta [][]float64
}

func newMLP(sizes []int) *mlp {
	n := &mlp{sizes: sizes}
	for _, s := range sizes {
		n.acts = append(n.acts, make([]float64, s))
		n.delta = append(n.delta, make([]float64, s))
	}
	return n
}

// nParams is the length of the flat weight slice.
func (n *mlp) nParams() int {
	p := 0
	for l := 1; l < len(n.sizes); l++ {
		p += n.sizes[l]*n.sizes[l-1] + n.sizes[l]
	}
	return p
}

// init draws He-scaled weights and zero biases.
func (n *mlp) init(w []float64, r *rand.Rand) {
	off := 0
	for l := 1; l < len(n.sizes); l++ {
		in, out := n.sizes[l-1], n.sizes[l]
		sd := math.Sqrt(2 / float64(in))
		for i := 0; i < out*in; i++ {
			w[off+i] = r.NormFloat64() * sd
		}
		off += out*in + out
	}
}

// forward computes the output for x (length sizes[0]), keeping the
// activations for backward.
func (n *mlp) forward(w, x []float64) float64 {
	copy(n.acts[0], x)
	off := 0
	last := len(n.sizes) - 1
	for l := 1; l <= last; l++ {
		in, out := n.sizes[l-1], n.sizes[l]
		a, z := n.acts[l-1], n.acts[l]
		bias := w[off+out*in:]
		for o := 0; o < out; o++ {
			row := w[off+o*in : off+o*in+in]
			s := bias[o]
			for i, v := range row {
				s += v * a[i]
			}
			if l < last && s < 0 {
				s = 0
			}
			z[o] = s
		}
		off += out*in + out
	}
	return n.acts[last][0]
}

// backward adds to grad the gradient of e*output (e = dLoss/dOutput) at the
// last forward input.
func (n *mlp) backward(w, grad []float64, e float64) {
	last := len(n.sizes) - 1
	n.delta[last][0] = e
	off := n.nParams()
	for l := last; l >= 1; l-- {
		in, out := n.sizes[l-1], n.sizes[l]
		off -= out*in + out
		a, d := n.acts[l-1], n.delta[l]
		gb := grad[off+out*in:]
		for o := 0; o < out; o++ {
			if d[o] == 0 {
				continue
			}
			gb[o] += d[o]
			g := grad[off+o*in : off+o*in+in]
			for i, v := range a {
				g[i] += d[o] * v
			}
		}
		if l == 1 {
			break
		}
		pd := n.delta[l-1]
		for i := range pd {
			pd[i] = 0
		}
		for o := 0; o < out; o++ {
			if d[o] == 0 {
				continue
			}
			row := w[off+o*in : off+o*in+in]
			for i, v := range row {
				pd[i] += d[o] * v
			}
		}
		for i, v := range a {
			if v <= 0 {
				pd[i] = 0
			}
		}
	}
}
