package model

import (
	"math"
)

// iappOptions are the hyper-parameters of IAPP.
type iappOptions struct {
	Hidden     []int   `json:"hidden"`     // widths of the ReLU hidden layers
	LR         float64 `json:"lr"`         // Adam step size
	L2         float64 `json:"l2"`         // weight decay on the weights (not biases)
	Batch      int     `json:"batch"`      // minibatch size
	MaxEpochs  int     `json:"max_epochs"` // upper bound of training epochs
	Patience   int     `json:"patience"`   // epochs without validation improvement before stopping
	Validation float64 `json:"validation"` // share of the training pairs held out for early stopping
}

// defaultIAPPOptions are the defaults of IAPP.
var defaultIAPPOptions = iappOptions{Hidden: []int{32, 16}, LR: 3e-3, L2: 1e-3, Batch: 32, MaxEpochs: 200, Patience: 20, Validation: 0.2}

// iappModel is the interference-aware performance prediction network: a
// feed-forward network from the pair vector (standardized features of A
// and of B on the slot, slot indicator) to the normalized throughput of A.
// It is trained on mean squared error with Adam, L2 weight decay and early
// stopping on a validation split of the training pairs, keeping the
// weights of the best validation epoch.
type iappModel struct {
	framed
	Opts   iappOptions `json:"options"`
	Sizes  []int       `json:"sizes"`
	W      []float64   `json:"w"`
	Epochs int         `json:"epochs"` // epoch of the kept weights
	// YMean and YStd standardize the target: the network learns
	// (y - YMean) / YStd, which keeps its gradients of order one.
	YMean float64 `json:"y_mean"`
	YStd  float64 `json:"y_std"`
	net   *mlp
	in    []float64
}

// newIAPP returns an IAPP model.
func newIAPP(o iappOptions) *iappModel { return &iappModel{Opts: o} }

// Name implements Model.
func (m *iappModel) Name() string { return "iapp" }

// Hyper implements Hyper.
func (m *iappModel) Hyper() any { return m.Opts }

func (m *iappModel) bind(f *Frame) {
	m.f = f
	m.net = newMLP(m.Sizes)
	m.in = make([]float64, pairDim(f))
}

// Fit implements Model.
func (m *iappModel) Fit(t *Train) error {
	o := m.Opts
	m.Sizes = append(append([]int{pairDim(t.Frame)}, o.Hidden...), 1)
	m.bind(t.Frame)
	r := rng(t.Seed, 0x1a99)
	train, val := splitObs(t.Obs, o.Validation, r)
	np := m.net.nParams()
	m.W = make([]float64, np)
	m.net.init(m.W, r)
	m.YMean, m.YStd = meanStd(train)
	grad := make([]float64, np)
	opt := newAdam(np, o.LR)
	best := append([]float64(nil), m.W...)
	bestLoss, bad := math.Inf(1), 0
	order := make([]int, len(train))
	for i := range order {
		order[i] = i
	}
	isWeight := m.weightMask()
	batch := make([]Obs, 0, o.Batch)
	for epoch := 1; epoch <= o.MaxEpochs; epoch++ {
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for lo := 0; lo < len(order); lo += o.Batch {
			batch = batch[:0]
			for _, k := range order[lo:min(lo+o.Batch, len(order))] {
				batch = append(batch, train[k])
			}
			clear(grad)
			m.lossGrad(batch, isWeight, grad)
			opt.step(m.W, grad)
		}
		loss := 0.0
		for _, ob := range val {
			d := m.Predict(ob.A, ob.B, ob.S) - ob.Y
			loss += d * d
		}
		if loss < bestLoss {
			bestLoss, bad, m.Epochs = loss, 0, epoch
			copy(best, m.W)
		} else if bad++; bad >= o.Patience {
			break
		}
	}
	m.W = best
	return nil
}

// lossGrad adds to grad the gradient, with respect to W, of the training
// loss of one minibatch: the mean squared error of the network on the
// standardized target, (1/n) sum (net(x) - (y-YMean)/YStd)^2, plus
// L2 * sum w^2 over the weights (isWeight), not the biases.
func (m *iappModel) lossGrad(batch []Obs, isWeight []bool, grad []float64) {
	for _, ob := range batch {
		y := m.net.forward(m.W, pairVec(m.f, ob.A, ob.B, ob.S, m.in))
		m.net.backward(m.W, grad, 2*(y-(ob.Y-m.YMean)/m.YStd)/float64(len(batch)))
	}
	for i, w := range isWeight {
		if w {
			grad[i] += 2 * m.Opts.L2 * m.W[i]
		}
	}
}

// weightMask marks the weights (true) against the biases (false).
func (m *iappModel) weightMask() []bool {
	mask := make([]bool, m.net.nParams())
	off := 0
	for l := 1; l < len(m.Sizes); l++ {
		n := m.Sizes[l] * m.Sizes[l-1]
		for i := off; i < off+n; i++ {
			mask[i] = true
		}
		off += n + m.Sizes[l]
	}
	return mask
}

// Predict implements Model.
func (m *iappModel) Predict(a, b, s int) float64 {
	return m.YMean + m.YStd*m.net.forward(m.W, pairVec(m.f, a, b, s, m.in))
}

// meanStd returns the mean and standard deviation of the observations (a
// deviation of 1 when they are all equal).
func meanStd(obs []Obs) (float64, float64) {
	s := 0.0
	for _, o := range obs {
		s += o.Y
	}
	mean := s / float64(len(obs))
	ss := 0.0
	for _, o := range obs {
		ss += (o.Y - mean) * (o.Y - mean)
	}
	std := math.Sqrt(ss / float64(len(obs)))
	if std < 1e-9 {
		std = 1
	}
	return mean, std
}
