package model

import (
	"fmt"
	"math"
)

// rlfmOptions are the settings of the regression-based latent factor
// model. Rank is an upper bound: the prior variance of each latent
// coordinate is estimated from the data, and a coordinate the data do not
// support shrinks to its feature prediction (automatic relevance
// determination), so the rank need not be chosen by validation.
type rlfmOptions struct {
	Rank  int     `json:"rank"`
	Iters int     `json:"iters"`
	Tol   float64 `json:"tol"`
}

// defaultRLFMOptions: rank at most 5, at most 200 rounds, stopping when a
// round changes the training mean squared error by less than a millionth
// of itself. The bound is 5 rather than pmf's 10 because the relevance
// determination prunes slowly: within 200 rounds surplus coordinates keep
// a small variance and cost accuracy (synthetic catalogue of 400 workloads,
// every pair, a fifth observed: 1.048 times the noise floor at bound 10,
// 1.041 at 5, 1.040 at the true rank 3); on Gavel 5 and 10 are within
// 0.004 MAE of each other in every cell of the pairs protocol.
var defaultRLFMOptions = rlfmOptions{Rank: 5, Iters: 200, Tol: 1e-6}

// rlfm is a regression-based latent factor model (Agarwal and Chen, KDD
// 2009) fitted by variational EM, in the layout of pmf (jobs × (slot,
// partner)):
//
//	y(a, b, s) = μ_s + α_a + β_sb + u_aᵀ v_sb + ε,   ε ~ N(0, σ²)
//	(u_a, α_a)  ~ N(G·[1, f_a],            diag(σ_u²))
//	(v_sb, β_sb) ~ N(H·[e_s, z_bs],         diag(σ_v²))
//
// where μ_s is the slot's mean, f_a the mean of job a's standardized solo
// features over the slots it has them on, z_bs job b's standardized
// features on slot s and e_s the slot's indicator. Each job's factors
// shrink towards what its features predict rather than towards zero, as
// in pmf; a job seen in no pair is predicted from its features alone.
// Without features the prior means are constants and the model is pmf
// with biases and a ridge strength estimated from the data.
//
// Fit (all choices follow from maximising the variational lower bound of
// the marginal likelihood, with the posterior factorised over rows and
// columns, as in Bayesian matrix factorisation with side information):
//   - each row's posterior is Gaussian; given the columns' posteriors it
//     is an exact (Rank+1)-dimensional ridge solve whose normal equations
//     include the columns' posterior covariances, and back;
//   - G and H are re-estimated each round by ridge regression of the
//     posterior means on the features, the intercepts unpenalised and the
//     weights with a Gaussian prior whose variance is itself estimated
//     (its own EM step), so no regression penalty is tuned;
//   - σ_u², σ_v² (one per coordinate) and σ² are their EM estimates:
//     mean squared deviation plus posterior variance.
//
// The constants are the options' (rank bound, round limit, tolerance), the
// start (seeded random means of the spread the variance of the targets
// implies) and a floor of 1e-9 of the targets' variance under every
// variance estimate, which only keeps the solves defined.
type rlfm struct {
	framed
	Opts  rlfmOptions `json:"options"`
	Rank  int         `json:"rank"`
	Mean  []float64   `json:"slot_mean"`
	U     [][]float64 `json:"u"` // [job][rank+1]: u_a then α_a
	V     [][]float64 `json:"v"` // [slot*jobs+partner][rank+1]: v_sb then β_sb
	G     [][]float64 `json:"g"` // [rank+1][1+features]
	H     [][]float64 `json:"h"` // [rank+1][slots+features]
	VarU  []float64   `json:"var_u"`
	VarV  []float64   `json:"var_v"`
	Noise float64     `json:"noise_var"`
	Iters int         `json:"rounds"`
}

// newRLFM returns the regression-based latent factor model.
func newRLFM(o rlfmOptions) *rlfm { return &rlfm{Opts: o} }

// Name implements Model.
func (m *rlfm) Name() string { return "rlfm" }

// Hyper implements Hyper.
func (m *rlfm) Hyper() any { return m.Opts }

// Predict implements Model.
func (m *rlfm) Predict(a, b, s int) float64 {
	u, v := m.U[a], m.V[s*len(m.U)+b]
	k := m.Rank
	return m.Mean[s] + u[k] + v[k] + dot(u[:k], v[:k])
}

func (m *rlfm) check(f *Frame) error {
	nj, ns := len(f.Jobs), len(f.Slots)
	switch {
	case m.Rank < 0:
		return fmt.Errorf("rank is %d", m.Rank)
	case len(m.Mean) != ns:
		return sizeErr("slot_mean", len(m.Mean), ns)
	case len(m.U) != nj:
		return sizeErr("u", len(m.U), nj)
	case len(m.V) != nj*ns:
		return sizeErr("v", len(m.V), nj*ns)
	}
	for _, v := range append(append([][]float64(nil), m.U...), m.V...) {
		if len(v) != m.Rank+1 {
			return sizeErr("a factor", len(v), m.Rank+1)
		}
	}
	return nil
}

// rlfmSide is one side of the factorisation (rows: victims; columns:
// (slot, partner) aggressors) during the fit.
type rlfmSide struct {
	x    [][]float64 // regressors of the prior mean, per entity
	obs  [][]int     // observation indices, per entity
	mean [][]float64 // posterior means [entity][k+1]
	cov  [][]float64 // posterior covariances [entity][(k+1)²]
	w    [][]float64 // prior-mean weights [k+1][len(x)]
	vr   []float64   // prior variances [k+1]
	tau  []float64   // variances of the penalised prior-mean weights [k+1]
	free int         // leading columns of x whose weights are not penalised
}

// Fit implements Model: the variational EM of the type's comment, from a
// seeded random start, for at most Opts.Iters rounds.
func (m *rlfm) Fit(t *Train) error {
	k := max(m.Opts.Rank, 0)
	nj, ns, d := len(t.Jobs), len(t.Slots), t.Dim()
	m.f, m.Rank = t.Frame, k
	m.Mean = slotMeans(t.Obs, ns)
	res := make([]float64, len(t.Obs)) // targets less the slot means
	vy := 0.0
	for i, o := range t.Obs {
		res[i] = o.Y - m.Mean[o.S]
		vy += res[i] * res[i]
	}
	vy = max(vy/float64(len(t.Obs)), 1e-12)
	floor := 1e-9 * vy

	row := &rlfmSide{x: make([][]float64, nj), obs: make([][]int, nj), free: 1}
	col := &rlfmSide{x: make([][]float64, nj*ns), obs: make([][]int, nj*ns), free: ns}
	for j := 0; j < nj; j++ {
		x, n := make([]float64, 1+d), 0.0
		for s := 0; s < ns; s++ {
			if t.Row(j, s) == nil {
				continue
			}
			n++
			for i, z := range t.Z(j, s) {
				x[1+i] += z
			}
		}
		for i := 1; i <= d; i++ {
			x[i] /= max(n, 1)
		}
		x[0] = 1
		row.x[j] = x
		for s := 0; s < ns; s++ {
			c := make([]float64, ns+d)
			c[s] = 1
			copy(c[ns:], t.Z(j, s))
			col.x[s*nj+j] = c
		}
	}
	for i, o := range t.Obs {
		row.obs[o.A] = append(row.obs[o.A], i)
		col.obs[o.S*nj+o.B] = append(col.obs[o.S*nj+o.B], i)
	}
	r := rng(t.Seed, 0x71f)
	sd := math.Sqrt(math.Sqrt(vy / float64(max(k, 1))))
	for _, side := range []*rlfmSide{row, col} {
		side.init(k, len(side.x))
		for e := range side.mean {
			for i := 0; i < k; i++ {
				side.mean[e][i] = sd * r.NormFloat64()
			}
		}
		for i := range side.vr {
			side.vr[i] = sd * sd
		}
		side.vr[k] = vy
		side.tau = append([]float64(nil), side.vr...)
	}
	noise := vy
	a := make([]float64, (k+1)*(k+1))
	rhs := make([]float64, k+1)
	prior := make([]float64, k+1)
	prev := math.Inf(1)
	m.Iters = 0
	for it := 0; it < m.Opts.Iters; it++ {
		m.Iters = it + 1
		for _, p := range [][2]*rlfmSide{{row, col}, {col, row}} {
			self, other := p[0], p[1]
			isRow := self == row
			for e, obs := range self.obs {
				if obs == nil {
					continue
				}
				clear(a)
				clear(rhs)
				for _, oi := range obs {
					o := t.Obs[oi]
					oe := o.S*nj + o.B
					if !isRow {
						oe = o.A
					}
					x, c := other.mean[oe], other.cov[oe]
					y := res[oi] - x[k] // the other side's bias is an offset
					for i := 0; i < k; i++ {
						rhs[i] += x[i]*y - c[i*(k+1)+k]
						ai := a[i*(k+1) : (i+1)*(k+1)]
						for j := i; j < k; j++ {
							ai[j] += x[i]*x[j] + c[i*(k+1)+j]
						}
						ai[k] += x[i]
					}
					rhs[k] += y
					a[k*(k+1)+k]++
				}
				self.priorMean(e, prior)
				for i := 0; i <= k; i++ {
					l := noise / self.vr[i]
					a[i*(k+1)+i] += l
					rhs[i] += l * prior[i]
				}
				if !choleskySolve(a, rhs, k+1, self.mean[e]) {
					continue // keep the previous posterior
				}
				upperInverseGram(a, k+1, noise, self.cov[e])
			}
			self.mStep(k, floor)
		}
		// the noise: mean squared residual plus the predictions' posterior
		// variance
		sse, mse := 0.0, 0.0
		for i, o := range t.Obs {
			u, uc := row.mean[o.A], row.cov[o.A]
			v, vc := col.mean[o.S*nj+o.B], col.cov[o.S*nj+o.B]
			dr := res[i] - u[k] - v[k] - dot(u[:k], v[:k])
			mse += dr * dr
			sse += dr*dr + predVar(u, uc, v, vc, k)
		}
		noise = max(sse/float64(len(t.Obs)), floor)
		mse /= float64(len(t.Obs))
		if math.Abs(prev-mse) < m.Opts.Tol*max(prev, 1e-12) {
			break
		}
		prev = mse
	}
	// entities without observations take their prior mean
	for _, side := range []*rlfmSide{row, col} {
		for e, obs := range side.obs {
			if obs == nil {
				side.priorMean(e, side.mean[e])
			}
		}
	}
	m.U, m.V, m.G, m.H = row.mean, col.mean, row.w, col.w
	m.VarU, m.VarV, m.Noise = row.vr, col.vr, noise
	return nil
}

func (s *rlfmSide) init(k, n int) {
	s.mean, s.cov = make([][]float64, n), make([][]float64, n)
	for e := range s.mean {
		s.mean[e] = make([]float64, k+1)
		s.cov[e] = make([]float64, (k+1)*(k+1))
	}
	p := 0
	if n > 0 {
		p = len(s.x[0])
	}
	s.w = make([][]float64, k+1)
	for i := range s.w {
		s.w[i] = make([]float64, p)
	}
	s.vr = make([]float64, k+1)
}

// priorMean writes W·x_e to out.
func (s *rlfmSide) priorMean(e int, out []float64) {
	for i, w := range s.w {
		out[i] = dot(w, s.x[e])
	}
}

// mStep re-estimates the prior-mean weights and the prior variances from
// the posteriors of the entities with observations: per coordinate a
// ridge regression of the posterior means on the regressors whose weight
// variance τ² is estimated alongside (penalty σ²/τ²; the first s.free
// weights are unpenalised), then the variance as the mean squared
// deviation from the new prior mean plus the mean posterior variance.
func (s *rlfmSide) mStep(k int, floor float64) {
	p := len(s.w[0])
	xtx := make([]float64, p*p)
	n := 0
	for e, obs := range s.obs {
		if obs == nil {
			continue
		}
		n++
		x := s.x[e]
		for i := 0; i < p; i++ {
			for j := i; j < p; j++ {
				xtx[i*p+j] += x[i] * x[j]
			}
		}
	}
	if n == 0 {
		return
	}
	a := make([]float64, p*p)
	rhs := make([]float64, p)
	inv := make([]float64, p*p)
	for i := 0; i <= k; i++ {
		lambda := s.vr[i] / s.tau[i]
		copy(a, xtx)
		clear(rhs)
		for e, obs := range s.obs {
			if obs == nil {
				continue
			}
			y := s.mean[e][i]
			for j, xj := range s.x[e] {
				rhs[j] += xj * y
			}
		}
		for j := 0; j < p; j++ {
			if j >= s.free {
				a[j*p+j] += lambda
			}
			a[j*p+j] += 1e-9 * (1 + xtx[j*p+j]) // a regressor constant over the rows stays defined
		}
		if !choleskySolve(a, rhs, p, s.w[i]) {
			continue
		}
		if pen := p - s.free; pen > 0 {
			// τ²: mean squared penalised weight plus its posterior variance
			upperInverseGram(a, p, s.vr[i], inv)
			ww := 0.0
			for j := s.free; j < p; j++ {
				ww += s.w[i][j]*s.w[i][j] + inv[j*p+j]
			}
			s.tau[i] = max(ww/float64(pen), floor)
		}
		ss := 0.0
		for e, obs := range s.obs {
			if obs == nil {
				continue
			}
			dv := s.mean[e][i] - dot(s.w[i], s.x[e])
			ss += dv*dv + s.cov[e][i*(k+1)+i]
		}
		s.vr[i] = max(ss/float64(n), floor)
	}
}

// upperInverseGram writes scale·(RᵀR)⁻¹ to out (n×n, full), R being the
// upper-triangular Cholesky factor choleskySolve leaves in a: the
// posterior covariance from the factor of the posterior precision.
func upperInverseGram(a []float64, n int, scale float64, out []float64) {
	// Rinv, upper triangular, in out's upper triangle first
	ri := make([]float64, n*n)
	for j := n - 1; j >= 0; j-- {
		ri[j*n+j] = 1 / a[j*n+j]
		for i := j - 1; i >= 0; i-- {
			v := 0.0
			for p := i + 1; p <= j; p++ {
				v += a[i*n+p] * ri[p*n+j]
			}
			ri[i*n+j] = -v / a[i*n+i]
		}
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := 0.0
			for p := j; p < n; p++ {
				v += ri[i*n+p] * ri[j*n+p]
			}
			out[i*n+j], out[j*n+i] = scale*v, scale*v
		}
	}
}

// predVar is the posterior variance of α + β + uᵀv for independent
// posteriors of (u, α) and (v, β): with the extended vectors (u, α, 1) and
// (v, 1, β) it is mᵤᵀΣᵥmᵤ + mᵥᵀΣᵤmᵥ + tr(ΣᵤΣᵥ).
func predVar(u, uc, v, vc []float64, k int) float64 {
	n := k + 1
	// a mean in the other side's coordinates: its factor, and 1 against
	// the other's bias
	ext := func(m []float64, i int) float64 {
		if i < k {
			return m[i]
		}
		return 1
	}
	s := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s += ext(u, i) * vc[i*n+j] * ext(u, j)
			s += ext(v, i) * uc[i*n+j] * ext(v, j)
		}
	}
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			s += uc[i*n+j] * vc[j*n+i]
		}
	}
	return s
}
