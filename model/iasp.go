package model

import (
	"math"
	"math/rand/v2"
)

// IASPOptions are the hyper-parameters of IASP.
type IASPOptions struct {
	Dim    int `json:"dim"`    // embedding width of each branch
	Hidden int `json:"hidden"` // width of the MLP branch's first layer (the second is half)
	// L2Free are the candidate penalties of the free per-job parameters
	// (embeddings and effects); the one with the lowest validation MAE is
	// kept. L2 is the penalty of the shared weights.
	L2Free     []float64 `json:"l2_free"`
	L2         float64   `json:"l2"`
	LR         float64   `json:"lr"`
	MaxEpochs  int       `json:"max_epochs"`
	Patience   int       `json:"patience"` // steps without validation improvement
	Validation float64   `json:"validation"`
	// BatchPairs is the most pairs one Adam step averages over: an epoch
	// takes ceil(pairs/BatchPairs) steps on equal shares of the pairs, in
	// an order drawn from the seed each epoch. With fewer pairs (every
	// shipped dataset) a step is full-batch, in data order. 0: always
	// full-batch.
	BatchPairs int `json:"batch_pairs,omitempty"`
	// LRDrops is how many times the step size of mini-batch training is
	// cut by LRFactor when the validation loss has not improved for
	// Patience steps, before training stops; the refit on every training
	// pair cuts it after the same epochs.
	LRDrops  int     `json:"lr_drops,omitempty"`
	LRFactor float64 `json:"lr_factor,omitempty"`
	// PriorPairs: with more training pairs than this, the L2 penalties
	// shrink as PriorPairs/pairs, so that they weigh like a fixed prior
	// against the growing sum of squared errors instead of a constant
	// share of its mean. 0: penalties never shrink.
	PriorPairs int `json:"prior_pairs,omitempty"`
}

// DefaultIASPOptions are the defaults of IASP.
var DefaultIASPOptions = IASPOptions{Dim: 8, Hidden: 16, L2Free: []float64{1e-4, 1e-3, 1e-2}, L2: 1e-3, LR: 0.02, MaxEpochs: 300, Patience: 25, Validation: 0.2,
	BatchPairs: 4096, LRDrops: 2, LRFactor: 0.25, PriorPairs: 1024}

// IASP is interference-aware similarity prediction: deep collaborative
// filtering over the job x job x slot tensor of normalized throughputs, in
// the manner of neural collaborative filtering (He et al. 2017, NeuMF).
//
// Each job has a victim role (the job whose throughput is predicted) and
// an aggressor role (its partner). On slot s the embedding of job j in a
// role is a free per-job vector plus a linear map of j's standardized side
// features on s, so a job seen in no pair still gets an embedding from
// its features. Two branches are fused linearly:
//
//	GMF: p_A ⊙ q_B (element-wise product of victim and aggressor embeddings)
//	MLP: ReLU layers over [m_A, n_B, slot indicator]
//	y = mu_s + r_A + c_B + h_g·GMF + h_m·MLP
//
// where r_A and c_B are victim and aggressor effects (free + side-feature
// parts; when the training pairs span several slots, the free parts get a
// per-slot deviation too, since how sensitive a job is differs from one GPU
// type to another). It is trained on mean squared error with Adam, L2
// penalties, and early stopping on a validation split of the training
// pairs; the model is then refit on all training pairs for the best
// number of epochs.
//
// The schedule follows the data's size so that training reaches the
// noise floor on large catalogues and is unchanged on small ones:
//   - a step averages over at most BatchPairs pairs (full batch below that),
//     so an epoch of a large catalogue takes several steps for the price of
//     one;
//   - with mini-batches, a validation plateau first cuts the step size
//     (LRDrops times, by LRFactor) and only then stops training: a plateau
//     of Adam on sampled gradients is their noise around a minimum more
//     than the minimum. Full-batch steps have no sampling noise, and their
//     first plateau ends training;
//   - patience counts steps, so a large catalogue is not trained for
//     Patience whole epochs past its best;
//   - above PriorPairs training pairs the L2 penalties shrink as
//     PriorPairs/pairs: the penalty is a prior on the parameters, which
//     more data should outweigh, while on the mean squared error a fixed
//     penalty keeps its weight however many pairs there are (on a
//     synthetic catalogue of 200 workloads it held IASP at 1.48 times the
//     noise floor).
//
// BatchPairs = 4096 and PriorPairs = 1024 lie above the training pairs of
// the pairs and new-job protocols on every shipped dataset (at most about
// 640 pairs a device), so those fits are the full-batch, fixed-penalty
// fits the defaults were chosen on. Fits on several devices' pairs (the
// cross-device protocol, `coloc fit` on all of Gavel's 3,602 measured
// pairs) stay full-batch but have their penalties shrunk. LRDrops = 2 and
// LRFactor = 0.25 are common reduce-on-plateau choices, not fitted. Their
// effect on the synthetic catalogues and on Gavel is in
// docs/notes/2026-12-01-catalogue-scale.md.
type IASP struct {
	framed
	Opts   IASPOptions `json:"options"`
	L2Free float64     `json:"l2_free_chosen"`
	Epochs int         `json:"epochs"`
	// Drops are the epochs after which the step size was cut.
	Drops   []int     `json:"lr_drops,omitempty"`
	Theta   []float64 `json:"theta"`
	lay     iaspLayout
	buf     *iaspBuf
	valid   []bool // embeddings of (slot, job) computed from Theta
	touched []int  // (slot, job) combinations with gradient this step
	perSlot bool   // the training pairs span several slots
}

// iaspLayout gives the offsets of each block of the flat parameter vector
// Theta, in this order (nj jobs, ns slots, p side features, d embedding
// width, h and h2 = max(h/2, 1) the MLP widths; k = s*nj + j indexes a
// (slot, job) combination):
//
//	block  length      element                  meaning                                  L2
//	mu     ns          mu+s                     mean of slot s                           none
//	rf     nj          rf+j                     free victim effect of job j              L2Free
//	cf     nj          cf+j                     free aggressor effect of job j           L2Free
//	rs     ns*nj       rs+k                     victim effect deviation on slot s (1)    L2Free
//	cs     ns*nj       cs+k                     aggressor effect deviation on slot s (1) L2Free
//	pf     nj*d        pf+j*d+e                 free GMF victim embedding p_j            L2Free
//	qf     nj*d        qf+j*d+e                 free GMF aggressor embedding q_j         L2Free
//	mf     nj*d        mf+j*d+e                 free MLP victim embedding m_j            L2Free
//	nf     nj*d        nf+j*d+e                 free MLP aggressor embedding n_j         L2Free
//	       (freeEnd: the end of the free per-job parameters)
//	wr     p           wr+f                     side features -> victim effect           L2
//	wc     p           wc+f                     side features -> aggressor effect        L2
//	wp     d*p         wp+e*p+f                 side features -> p (likewise wq, wm, wn) L2
//	w1     h*(2d+ns)   w1+o*(2d+ns)+i           first MLP layer over [m_A, n_B, slot]    L2
//	b1     h           b1+o                     its biases                               L2
//	w2     h2*h        w2+o*h+i                 second MLP layer                         L2
//	b2     h2          b2+o                     its biases                               L2
//	hg     d           hg+e                     fusion weights of the GMF branch         L2
//	hm     h2          hm+o                     fusion weights of the MLP branch         L2
//
// (1) trained only when the training pairs span several slots (perSlot);
// otherwise their gradient is left at zero. The gradient of every block
// is checked against central differences in gradient_test.go.
type iaspLayout struct {
	nj, ns, p, d, h, h2                   int
	mu, rf, cf, rs, cs, wr, wc            int
	pf, qf, mf, nf, wp, wq, wm, wn        int
	w1, b1, w2, b2, hg, hm, size, freeEnd int
}

func newIASPLayout(nj, ns, p, d, h int) iaspLayout {
	l := iaspLayout{nj: nj, ns: ns, p: p, d: d, h: h, h2: max(h/2, 1)}
	off := 0
	take := func(n int) int { o := off; off += n; return o }
	l.mu = take(ns)
	// free per-job parameters first: they share the L2Free penalty
	l.rf, l.cf = take(nj), take(nj)
	// per-(slot, job) deviations of the effects from the job's own
	l.rs, l.cs = take(ns*nj), take(ns*nj)
	l.pf, l.qf, l.mf, l.nf = take(nj*d), take(nj*d), take(nj*d), take(nj*d)
	l.freeEnd = off
	l.wr, l.wc = take(p), take(p)
	l.wp, l.wq, l.wm, l.wn = take(d*p), take(d*p), take(d*p), take(d*p)
	l.w1, l.b1 = take(l.h*(2*d+ns)), take(l.h)
	l.w2, l.b2 = take(l.h2*l.h), take(l.h2)
	l.hg, l.hm = take(d), take(l.h2)
	l.size = off
	return l
}

// iaspBuf holds per-(slot, job) embeddings and scratch space.
type iaspBuf struct {
	r, c           []float64   // [s*nj+j]
	ep, eq, em, en [][]float64 // [s*nj+j][d]
	dr, dc         []float64
	dp, dq, dm, dn [][]float64
	in, h1, h2     []float64
	dh1, dh2, din  []float64
	mark           []bool
}

func newIASPBuf(l iaspLayout) *iaspBuf {
	n := l.ns * l.nj
	mk := func() [][]float64 {
		out := make([][]float64, n)
		flat := make([]float64, n*l.d)
		for i := range out {
			out[i] = flat[i*l.d : (i+1)*l.d]
		}
		return out
	}
	return &iaspBuf{
		r: make([]float64, n), c: make([]float64, n),
		ep: mk(), eq: mk(), em: mk(), en: mk(),
		dr: make([]float64, n), dc: make([]float64, n),
		dp: mk(), dq: mk(), dm: mk(), dn: mk(),
		in: make([]float64, 2*l.d+l.ns), h1: make([]float64, l.h), h2: make([]float64, l.h2),
		dh1: make([]float64, l.h), dh2: make([]float64, l.h2), din: make([]float64, 2*l.d+l.ns),
		mark: make([]bool, n),
	}
}

// NewIASP returns an IASP model.
func NewIASP(o IASPOptions) *IASP { return &IASP{Opts: o} }

// Name implements Model.
func (m *IASP) Name() string { return "iasp" }

// Hyper implements Hyper.
func (m *IASP) Hyper() any { return m.Opts }

func (m *IASP) bind(f *Frame) {
	m.f = f
	m.lay = newIASPLayout(len(f.Jobs), len(f.Slots), f.Dim(), m.Opts.Dim, m.Opts.Hidden)
	m.buf = newIASPBuf(m.lay)
	m.valid = make([]bool, len(f.Slots)*len(f.Jobs))
}

// Fit implements Model.
func (m *IASP) Fit(t *Train) error {
	m.bind(t.Frame)
	o := m.Opts
	cands := o.L2Free
	if len(cands) == 0 {
		cands = []float64{1e-2}
	}
	bestMAE, bestEpochs := math.Inf(1), 0
	var bestDrops []int
	m.L2Free = cands[0]
	for _, l2f := range cands {
		tr, val := splitObs(t.Obs, o.Validation, rng(t.Seed, 0x1a5f))
		e, drops, err := m.train(tr, val, l2f, o.MaxEpochs, nil, t.Seed)
		if err != nil {
			return err
		}
		if v := mae(m, val); v < bestMAE {
			bestMAE, bestEpochs, bestDrops, m.L2Free = v, e, drops, l2f
		}
	}
	m.Epochs = max(bestEpochs, 1)
	m.Drops = nil
	for _, d := range bestDrops {
		if d < m.Epochs {
			m.Drops = append(m.Drops, d)
		}
	}
	_, _, err := m.train(t.Obs, nil, m.L2Free, m.Epochs, m.Drops, t.Seed)
	return err
}

// train initialises the parameters from the seed and runs Adam for up to
// epochs epochs. With val, it cuts the step size by LRFactor after
// Patience steps without improvement of the validation loss (checked after
// each epoch: Patience epochs when steps are full-batch), up to
// LRDrops times, and stops at the next such plateau; it then restores the
// best parameters and returns the best epoch and the epochs after which
// the step size was cut. Without val, it cuts the step size after each
// epoch listed in drops.
func (m *IASP) train(obs, val []Obs, l2free float64, epochs int, drops []int, seed uint64) (int, []int, error) {
	l := m.lay
	m.perSlot = false
	for _, o := range obs {
		m.perSlot = m.perSlot || o.S != obs[0].S
	}
	r := rng(seed, 0x1a5e)
	m.Theta = make([]float64, l.size)
	m.initTheta(r, obs)
	grad := make([]float64, l.size)
	opt := newAdam(l.size, m.Opts.LR)
	best := append([]float64(nil), m.Theta...)
	bestLoss, bestEpoch, bad := math.Inf(1), epochs, 0
	var cut []int
	nb := 1
	if m.Opts.BatchPairs > 0 {
		nb = (len(obs) + m.Opts.BatchPairs - 1) / m.Opts.BatchPairs
	}
	order := rng(seed, 0x1a61)
	var perm []int
	batch := make([]Obs, 0, (len(obs)+nb-1)/nb)
	shrink := 1.0
	if p := m.Opts.PriorPairs; p > 0 && len(obs) > p {
		shrink = float64(p) / float64(len(obs))
	}
	step := func(part []Obs) {
		clear(grad)
		m.accumulate(part, grad)
		for i := l.mu + l.ns; i < l.size; i++ {
			lambda := m.Opts.L2 * shrink
			if i < l.freeEnd {
				lambda = l2free * shrink
			}
			grad[i] += 2 * lambda * m.Theta[i]
		}
		opt.step(m.Theta, grad)
		clear(m.valid)
	}
	for epoch := 1; epoch <= epochs; epoch++ {
		if nb == 1 {
			step(obs)
		} else {
			perm = order.Perm(len(obs))
			for b := 0; b < nb; b++ {
				batch = batch[:0]
				for _, i := range perm[b*len(obs)/nb : (b+1)*len(obs)/nb] {
					batch = append(batch, obs[i])
				}
				step(batch)
			}
		}
		if val == nil {
			if len(drops) > 0 && drops[0] == epoch {
				opt.lr *= m.Opts.LRFactor
				drops = drops[1:]
			}
			continue
		}
		loss := 0.0
		for _, ob := range val {
			d := m.Predict(ob.A, ob.B, ob.S) - ob.Y
			loss += d * d
		}
		if loss < bestLoss {
			bestLoss, bestEpoch, bad = loss, epoch, 0
			copy(best, m.Theta)
		} else if bad += nb; bad >= m.Opts.Patience {
			if nb == 1 || len(cut) >= m.Opts.LRDrops {
				break
			}
			opt.lr *= m.Opts.LRFactor
			cut = append(cut, epoch)
			bad = 0
		}
	}
	if val != nil {
		copy(m.Theta, best)
		clear(m.valid)
	}
	return bestEpoch, cut, nil
}

func (m *IASP) initTheta(r *rand.Rand, obs []Obs) {
	l := m.lay
	th := m.Theta
	copy(th[l.mu:l.mu+l.ns], slotMeans(obs, l.ns))
	for i := l.pf; i < l.freeEnd; i++ {
		th[i] = 0.1 * r.NormFloat64()
	}
	sdP := 0.1 / math.Sqrt(float64(max(l.p, 1)))
	for i := l.wp; i < l.w1; i++ {
		th[i] = sdP * r.NormFloat64()
	}
	in := 2*l.d + l.ns
	for i := 0; i < l.h*in; i++ {
		th[l.w1+i] = math.Sqrt(2/float64(in)) * r.NormFloat64()
	}
	for i := 0; i < l.h2*l.h; i++ {
		th[l.w2+i] = math.Sqrt(2/float64(l.h)) * r.NormFloat64()
	}
	for i := 0; i < l.d; i++ {
		th[l.hg+i] = 0.1 * r.NormFloat64()
	}
	for i := 0; i < l.h2; i++ {
		th[l.hm+i] = 0.1 * r.NormFloat64()
	}
}

// Predict implements Model.
func (m *IASP) Predict(a, b, s int) float64 {
	return m.forward(a, b, s)
}
