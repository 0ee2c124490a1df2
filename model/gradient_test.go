package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/coloc-dev/coloc/features"
)

// The hand-written backward passes (mlp, IAPP, IASP) against central
// differences of the loss they claim to differentiate, on tiny networks
// with fixed seeds.
//
// Each parameter θ_i is moved by ±h with h = 1e-6·max(1, |θ_i|), and
// (L(θ+h) - L(θ-h)) / 2h is compared with the analytic gradient g_i. The
// truncation error of central differences is O(h²) and the rounding error
// about ε·|L|/h ≈ 1e-10 for losses of order one, so an analytic gradient
// that is right agrees to ~1e-9 (measured: at most 2e-9 on these
// networks); one with a wrong term is off by the size of that term. The bound: |g - fd| <= gradTol·max(1, |g|, |fd|), with
// gradTol = 1e-6, relative for large gradients, absolute for small ones.
// ReLU kinks are the one place central differences are wrong; a parameter
// whose ±h step crosses a kink of any unit would show as a large
// mismatch, and none does with these seeds (the test would say which).
const gradTol = 1e-6

// checkGradient compares grad with central differences of loss over
// theta (modified in place and restored). frozen, when not nil, names the
// parameters the backward pass leaves at zero on purpose: their analytic
// gradient must be exactly 0 and their numeric one is not checked.
func checkGradient(t *testing.T, name string, theta, grad []float64, loss func() float64, frozen func(i int) bool) {
	t.Helper()
	if len(grad) != len(theta) {
		t.Fatalf("%s: %d gradients for %d parameters", name, len(grad), len(theta))
	}
	bad, nonzero, worst := 0, 0, 0.0
	for i := range theta {
		if frozen != nil && frozen(i) {
			if grad[i] != 0 {
				t.Errorf("%s: parameter %d is frozen but has gradient %g", name, i, grad[i])
			}
			continue
		}
		v := theta[i]
		h := 1e-6 * math.Max(1, math.Abs(v))
		theta[i] = v + h
		up := loss()
		theta[i] = v - h
		down := loss()
		theta[i] = v
		fd := (up - down) / (2 * h)
		if fd != 0 {
			nonzero++
		}
		err := math.Abs(grad[i]-fd) / math.Max(1, math.Max(math.Abs(grad[i]), math.Abs(fd)))
		worst = math.Max(worst, err)
		if err > gradTol {
			if bad++; bad <= 10 {
				t.Errorf("%s: parameter %d: backward %.10g, central difference %.10g", name, i, grad[i], fd)
			}
		}
	}
	if bad > 10 {
		t.Errorf("%s: %d parameters in all disagree", name, bad)
	}
	t.Logf("%s: %d parameters, largest scaled difference %.2g (bound %g)", name, len(theta), worst, gradTol)
	// A loss that does not depend on the parameters would pass trivially.
	if nonzero < len(theta)/2 {
		t.Errorf("%s: only %d of %d parameters move the loss", name, nonzero, len(theta))
	}
}

func TestMLPGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	net := newMLP([]int{4, 5, 3, 1})
	w := make([]float64, net.nParams())
	for i := range w {
		w[i] = r.NormFloat64() // biases too, so that they are tested away from 0
	}
	xs := make([][]float64, 6)
	ys := make([]float64, len(xs))
	for k := range xs {
		xs[k] = []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		ys[k] = r.NormFloat64()
	}
	// L = sum_k (net(x_k) - y_k)^2 / 2, so dL/dout = net(x_k) - y_k.
	loss := func() float64 {
		s := 0.0
		for k, x := range xs {
			d := net.forward(w, x) - ys[k]
			s += d * d / 2
		}
		return s
	}
	grad := make([]float64, len(w))
	for k, x := range xs {
		net.backward(w, grad, net.forward(w, x)-ys[k])
	}
	checkGradient(t, "mlp 4-5-3-1", w, grad, loss, nil)
}

// gradSpace is a space of n jobs with three descriptor features on each
// of the given device types, drawn from seed, and every ordered pair of
// jobs on every slot with a throughput in (0.3, 1.3).
func gradSpace(t *testing.T, n int, devices []string, seed uint64) (*Train, []Obs) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	set := &features.Set{Columns: []features.Column{
		{Name: "f1", Group: features.GroupDescriptor},
		{Name: "f2", Group: features.GroupDescriptor},
		{Name: "f3", Group: features.GroupDescriptor},
		{Name: "throughput", Unit: "samples/s", Group: features.GroupMeasured, Log: true},
	}}
	for _, dev := range devices {
		for j := 0; j < n; j++ {
			v := []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64(), 10 + r.Float64()}
			set.Rows = append(set.Rows, features.Row{Workload: fmt.Sprintf("job%d", j), DeviceType: dev, Degree: 1, Values: v})
		}
	}
	if err := set.Check(); err != nil {
		t.Fatal(err)
	}
	sp, err := NewSpace(set)
	if err != nil {
		t.Fatal(err)
	}
	var obs []Obs
	for s := range devices {
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				obs = append(obs, Obs{A: a, B: b, S: s, Y: 0.3 + r.Float64()})
			}
		}
	}
	tr, err := NewTrain(sp, obs, 1)
	if err != nil {
		t.Fatal(err)
	}
	return tr, obs
}

// TestIAPPGradient checks IAPP's minibatch gradient (mean squared error on
// the standardized target plus the L2 penalty of the weights) at random
// weights, biases included.
func TestIAPPGradient(t *testing.T) {
	tr, obs := gradSpace(t, 3, []string{"gpu", "tpu"}, 5)
	m := newIAPP(iappOptions{Hidden: []int{5, 3}, L2: 0.05})
	m.Sizes = append(append([]int{pairDim(tr.Frame)}, m.Opts.Hidden...), 1)
	m.bind(tr.Frame)
	m.YMean, m.YStd = meanStd(obs)
	r := rand.New(rand.NewPCG(9, 1))
	m.W = make([]float64, m.net.nParams())
	for i := range m.W {
		m.W[i] = r.NormFloat64()
	}
	batch := obs[:7]
	isWeight := m.weightMask()
	loss := func() float64 {
		s := 0.0
		for _, ob := range batch {
			d := (m.Predict(ob.A, ob.B, ob.S) - ob.Y) / m.YStd
			s += d * d
		}
		s /= float64(len(batch))
		for i, w := range isWeight {
			if w {
				s += m.Opts.L2 * m.W[i] * m.W[i]
			}
		}
		return s
	}
	grad := make([]float64, len(m.W))
	m.lossGrad(batch, isWeight, grad)
	checkGradient(t, "iapp", m.W, grad, loss, nil)
}

// TestIASPGradient checks IASP's full-batch gradient of the mean squared
// error at random parameters, every block of the layout included: on two
// slots (the per-slot effect deviations are trained) and on one (they are
// frozen at zero gradient by design).
func TestIASPGradient(t *testing.T) {
	for _, tc := range []struct {
		name    string
		devices []string
	}{
		{"two slots", []string{"gpu", "tpu"}},
		{"one slot", []string{"gpu"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, obs := gradSpace(t, 3, tc.devices, 11)
			m := NewIASP(IASPOptions{Dim: 2, Hidden: 4})
			m.bind(tr.Frame)
			l := m.lay
			m.Theta = make([]float64, l.size)
			r := rand.New(rand.NewPCG(13, 1))
			for i := range m.Theta {
				m.Theta[i] = 0.5 * r.NormFloat64()
			}
			m.perSlot = len(tc.devices) > 1
			loss := func() float64 {
				clear(m.valid) // the embeddings are cached from Theta
				s := 0.0
				for _, ob := range obs {
					d := m.Predict(ob.A, ob.B, ob.S) - ob.Y
					s += d * d
				}
				return s / float64(len(obs))
			}
			loss()
			grad := make([]float64, l.size)
			m.accumulate(obs, grad)
			var frozen func(int) bool
			if !m.perSlot {
				frozen = func(i int) bool { return i >= l.rs && i < l.pf }
			}
			checkGradient(t, "iasp "+tc.name, m.Theta, grad, loss, frozen)
		})
	}
}
