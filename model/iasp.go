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
	Patience   int       `json:"patience"`
	Validation float64   `json:"validation"`
}

// DefaultIASPOptions are the defaults of IASP.
var DefaultIASPOptions = IASPOptions{Dim: 8, Hidden: 16, L2Free: []float64{1e-4, 1e-3, 1e-2}, L2: 1e-3, LR: 0.02, MaxEpochs: 300, Patience: 25, Validation: 0.2}

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
// parts). It is trained on mean squared error with full-batch Adam, L2
// penalties, and early stopping on a validation split of the training
// pairs; the model is then refit on all training pairs for the best
// number of epochs.
type IASP struct {
	framed
	Opts    IASPOptions `json:"options"`
	L2Free  float64     `json:"l2_free_chosen"`
	Epochs  int         `json:"epochs"`
	Theta   []float64   `json:"theta"`
	lay     iaspLayout
	buf     *iaspBuf
	valid   []bool // embeddings of (slot, job) computed from Theta
	touched []int  // (slot, job) combinations with gradient this step
}

// iaspLayout gives the offsets of each block of the flat parameter vector.
type iaspLayout struct {
	nj, ns, p, d, h, h2                   int
	mu, rf, cf, wr, wc                    int
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
	m.L2Free = cands[0]
	for _, l2f := range cands {
		tr, val := splitObs(t.Obs, o.Validation, rng(t.Seed, 0x1a5f))
		e, err := m.train(tr, val, l2f, o.MaxEpochs, t.Seed)
		if err != nil {
			return err
		}
		if v := mae(m, val); v < bestMAE {
			bestMAE, bestEpochs, m.L2Free = v, e, l2f
		}
	}
	m.Epochs = max(bestEpochs, 1)
	_, err := m.train(t.Obs, nil, m.L2Free, m.Epochs, t.Seed)
	return err
}

// train initialises the parameters from the seed and runs Adam for up to
// epochs full-batch steps. With val, it stops after Patience epochs without
// improvement of the validation loss, restores the best parameters and
// returns the best epoch.
func (m *IASP) train(obs, val []Obs, l2free float64, epochs int, seed uint64) (int, error) {
	l := m.lay
	r := rng(seed, 0x1a5e)
	m.Theta = make([]float64, l.size)
	m.initTheta(r, obs)
	grad := make([]float64, l.size)
	opt := newAdam(l.size, m.Opts.LR)
	best := append([]float64(nil), m.Theta...)
	bestLoss, bestEpoch, bad := math.Inf(1), epochs, 0
	for epoch := 1; epoch <= epochs; epoch++ {
		clear(grad)
		m.accumulate(obs, grad)
		for i := l.mu + l.ns; i < l.size; i++ {
			lambda := m.Opts.L2
			if i < l.freeEnd {
				lambda = l2free
			}
			grad[i] += 2 * lambda * m.Theta[i]
		}
		opt.step(m.Theta, grad)
		clear(m.valid)
		if val == nil {
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
		} else if bad++; bad >= m.Opts.Patience {
			break
		}
	}
	if val != nil {
		copy(m.Theta, best)
		clear(m.valid)
	}
	return bestEpoch, nil
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

// ensure computes the embeddings and effects of combination k = s*nj+j
// from Theta unless they are current.
func (m *IASP) ensure(k int) {
	if m.valid[k] {
		return
	}
	m.valid[k] = true
	l, th, b := m.lay, m.Theta, m.buf
	{
		{
			s, j := k/l.nj, k%l.nj
			z := m.f.Z(j, s)
			b.r[k] = th[l.rf+j] + dot(th[l.wr:l.wr+l.p], z)
			b.c[k] = th[l.cf+j] + dot(th[l.wc:l.wc+l.p], z)
			for e := 0; e < l.d; e++ {
				b.ep[k][e] = th[l.pf+j*l.d+e] + dot(th[l.wp+e*l.p:l.wp+(e+1)*l.p], z)
				b.eq[k][e] = th[l.qf+j*l.d+e] + dot(th[l.wq+e*l.p:l.wq+(e+1)*l.p], z)
				b.em[k][e] = th[l.mf+j*l.d+e] + dot(th[l.wm+e*l.p:l.wm+(e+1)*l.p], z)
				b.en[k][e] = th[l.nf+j*l.d+e] + dot(th[l.wn+e*l.p:l.wn+(e+1)*l.p], z)
			}
		}
	}
}

// forward returns the prediction for (a, b, s) from the cached embeddings,
// leaving the MLP activations in the buffer.
func (m *IASP) forward(a, bj, s int) float64 {
	l, th, b := m.lay, m.Theta, m.buf
	ka, kb := s*l.nj+a, s*l.nj+bj
	m.ensure(ka)
	m.ensure(kb)
	y := th[l.mu+s] + b.r[ka] + b.c[kb]
	pa, qb := b.ep[ka], b.eq[kb]
	for e := 0; e < l.d; e++ {
		y += th[l.hg+e] * pa[e] * qb[e]
	}
	in := b.in
	copy(in, b.em[ka])
	copy(in[l.d:], b.en[kb])
	for i := 2 * l.d; i < len(in); i++ {
		in[i] = 0
	}
	in[2*l.d+s] = 1
	nin := len(in)
	for o := 0; o < l.h; o++ {
		v := th[l.b1+o] + dot(th[l.w1+o*nin:l.w1+(o+1)*nin], in)
		b.h1[o] = math.Max(v, 0)
	}
	for o := 0; o < l.h2; o++ {
		v := th[l.b2+o] + dot(th[l.w2+o*l.h:l.w2+(o+1)*l.h], b.h1)
		b.h2[o] = math.Max(v, 0)
	}
	return y + dot(th[l.hm:l.hm+l.h2], b.h2)
}

// accumulate adds the gradient of the mean squared error over obs to grad.
func (m *IASP) accumulate(obs []Obs, grad []float64) {
	l, th, b := m.lay, m.Theta, m.buf
	for _, k := range m.touched {
		b.dr[k], b.dc[k] = 0, 0
		clear(b.dp[k])
		clear(b.dq[k])
		clear(b.dm[k])
		clear(b.dn[k])
	}
	m.touched = m.touched[:0]
	seen := b.mark
	for _, o := range obs {
		for _, k := range [2]int{o.S*l.nj + o.A, o.S*l.nj + o.B} {
			if !seen[k] {
				seen[k] = true
				m.touched = append(m.touched, k)
			}
		}
	}
	for _, k := range m.touched {
		seen[k] = false
	}
	nin := 2*l.d + l.ns
	scale := 2 / float64(len(obs))
	for _, o := range obs {
		e := scale * (m.forward(o.A, o.B, o.S) - o.Y)
		ka, kb := o.S*l.nj+o.A, o.S*l.nj+o.B
		grad[l.mu+o.S] += e
		b.dr[ka] += e
		b.dc[kb] += e
		pa, qb := b.ep[ka], b.eq[kb]
		for i := 0; i < l.d; i++ {
			grad[l.hg+i] += e * pa[i] * qb[i]
			b.dp[ka][i] += e * th[l.hg+i] * qb[i]
			b.dq[kb][i] += e * th[l.hg+i] * pa[i]
		}
		for i := 0; i < l.h2; i++ {
			grad[l.hm+i] += e * b.h2[i]
			if b.h2[i] > 0 {
				b.dh2[i] = e * th[l.hm+i]
			} else {
				b.dh2[i] = 0
			}
		}
		clear(b.dh1)
		for o2 := 0; o2 < l.h2; o2++ {
			d := b.dh2[o2]
			if d == 0 {
				continue
			}
			grad[l.b2+o2] += d
			g := grad[l.w2+o2*l.h : l.w2+(o2+1)*l.h]
			w := th[l.w2+o2*l.h : l.w2+(o2+1)*l.h]
			for i, v := range b.h1 {
				g[i] += d * v
				b.dh1[i] += d * w[i]
			}
		}
		clear(b.din)
		for o1 := 0; o1 < l.h; o1++ {
			if b.h1[o1] <= 0 || b.dh1[o1] == 0 {
				continue
			}
			d := b.dh1[o1]
			grad[l.b1+o1] += d
			g := grad[l.w1+o1*nin : l.w1+(o1+1)*nin]
			w := th[l.w1+o1*nin : l.w1+(o1+1)*nin]
			for i, v := range b.in {
				g[i] += d * v
				b.din[i] += d * w[i]
			}
		}
		for i := 0; i < l.d; i++ {
			b.dm[ka][i] += b.din[i]
			b.dn[kb][i] += b.din[l.d+i]
		}
	}
	// back through the embeddings: free part and side-feature maps
	for _, k := range m.touched {
		{
			s, j := k/l.nj, k%l.nj
			z := m.f.Z(j, s)
			if d := b.dr[k]; d != 0 {
				grad[l.rf+j] += d
				axpy(d, z, grad[l.wr:l.wr+l.p])
			}
			if d := b.dc[k]; d != 0 {
				grad[l.cf+j] += d
				axpy(d, z, grad[l.wc:l.wc+l.p])
			}
			for _, blk := range [4]struct {
				d          []float64
				free, side int
			}{{b.dp[k], l.pf, l.wp}, {b.dq[k], l.qf, l.wq}, {b.dm[k], l.mf, l.wm}, {b.dn[k], l.nf, l.wn}} {
				for e, d := range blk.d {
					if d == 0 {
						continue
					}
					grad[blk.free+j*l.d+e] += d
					axpy(d, z, grad[blk.side+e*l.p:blk.side+(e+1)*l.p])
				}
			}
		}
	}
}

// Predict implements Model.
func (m *IASP) Predict(a, b, s int) float64 {
	return m.forward(a, b, s)
}

func axpy(a float64, x, y []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}

// Profile returns the interference profile of job j on slot s: its
// predicted normalized throughput next to each job of the space that has
// features on s (as victim), then each such job's next to j (as
// aggressor).
func (m *IASP) Profile(j, s int) []float64 {
	var out []float64
	for k := range m.f.Jobs {
		if m.f.Row(k, s) != nil {
			out = append(out, m.Predict(j, k, s))
		}
	}
	for k := range m.f.Jobs {
		if m.f.Row(k, s) != nil {
			out = append(out, m.Predict(k, j, s))
		}
	}
	return out
}

// Similarity is the interference similarity of jobs a and b on a slot,
// the measure cluster-level placement groups jobs by: the Pearson
// correlation (cosine similarity of the mean-centred vectors) of their
// interference profiles. 1 means the two suffer from and inflict on every
// other job the same relative slowdowns; it is symmetric and in [-1, 1].
// Two flat profiles have similarity 1 when equal and 0 otherwise.
func (m *IASP) Similarity(a, b, slot string) (float64, error) {
	ja, err := m.f.Job(a)
	if err != nil {
		return 0, err
	}
	jb, err := m.f.Job(b)
	if err != nil {
		return 0, err
	}
	s, err := m.f.Slot(slot)
	if err != nil {
		return 0, err
	}
	return centredCosine(m.Profile(ja, s), m.Profile(jb, s)), nil
}

func centredCosine(x, y []float64) float64 {
	mean := func(v []float64) float64 {
		s := 0.0
		for _, e := range v {
			s += e
		}
		return s / float64(len(v))
	}
	mx, my := mean(x), mean(y)
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		if sxx == syy && mx == my {
			return 1
		}
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}
