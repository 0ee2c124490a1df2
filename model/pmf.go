package model

import "math"

// pmfOptions are the hyper-parameters of the matrix factorization
// baseline. Gavel's throughput estimator calls pmf_solve with rank 10 and
// regularization 0.01 (scheduler/throughput_estimator.py); those are the
// first candidates, and the pair with the lowest MAE on a validation split
// of the training pairs is kept.
type pmfOptions struct {
	Ranks []int     `json:"ranks"`
	Mus   []float64 `json:"mus"`
	Iters int       `json:"iters"`
	Tol   float64   `json:"tol"`
}

// defaultPMFOptions are the defaults of the pmf baseline.
var defaultPMFOptions = pmfOptions{Ranks: []int{10, 5, 2}, Mus: []float64{0.01, 0.1, 1}, Iters: 40, Tol: 1e-4}

// pmf factorizes the matrix of jobs x (slot, partner) of normalized
// throughputs, the layout of Gavel's estimator, as U V^T with ridge
// penalty mu, by alternating least squares from a seeded random start. A
// row or column without any observation has no factor; its cells are
// predicted by the slot mean.
type pmf struct {
	framed
	Opts pmfOptions  `json:"options"`
	Rank int         `json:"rank"`
	Mu   float64     `json:"mu"`
	U    [][]float64 `json:"u"` // [job][rank]; nil when unobserved
	V    [][]float64 `json:"v"` // [slot*jobs+partner][rank]; nil when unobserved
	Mean []float64   `json:"slot_mean"`
}

// newPMF returns the pmf baseline.
func newPMF(o pmfOptions) *pmf { return &pmf{Opts: o} }

// Name implements Model.
func (m *pmf) Name() string { return "pmf" }

// Hyper implements Hyper.
func (m *pmf) Hyper() any { return m.Opts }

// Fit implements Model.
func (m *pmf) Fit(t *Train) error {
	nm := len(m.Opts.Mus)
	best := chooseByValidation(t, len(m.Opts.Ranks)*nm, 0, func(i int, tr *Train) (Model, error) {
		c := &pmf{Opts: m.Opts}
		c.fit(tr, m.Opts.Ranks[i/nm], m.Opts.Mus[i%nm])
		return c, nil
	})
	rank, mu := 10, 0.01
	if len(m.Opts.Ranks) > 0 && nm > 0 {
		rank, mu = m.Opts.Ranks[best/nm], m.Opts.Mus[best%nm]
	}
	m.fit(t, rank, mu)
	return nil
}

func (m *pmf) fit(t *Train, k int, mu float64) {
	m.f, m.Rank, m.Mu = t.Frame, k, mu
	nj := len(t.Jobs)
	nc := len(t.Slots) * nj
	m.Mean = slotMeans(t.Obs, len(t.Slots))
	rows := make([][]int, nj) // observation indices by row
	cols := make([][]int, nc)
	for i, o := range t.Obs {
		rows[o.A] = append(rows[o.A], i)
		cols[o.S*nj+o.B] = append(cols[o.S*nj+o.B], i)
	}
	r := rng(t.Seed, 0x9f3)
	m.U, m.V = make([][]float64, nj), make([][]float64, nc)
	for j := range m.U {
		if len(rows[j]) > 0 {
			m.U[j] = randVec(r.NormFloat64, k)
		}
	}
	for c := range m.V {
		if len(cols[c]) > 0 {
			m.V[c] = randVec(r.NormFloat64, k)
		}
	}
	a := make([]float64, k*k) // normal equations, upper triangle, row-major
	rhs := make([]float64, k)
	solve := func(obs []int, other func(o Obs) []float64, out []float64) {
		clear(a)
		clear(rhs)
		for i := 0; i < k; i++ {
			a[i*k+i] = mu
		}
		for _, oi := range obs {
			o := t.Obs[oi]
			x := other(o)
			for i := 0; i < k; i++ {
				rhs[i] += x[i] * o.Y
				xi, row := x[i], a[i*k:(i+1)*k]
				for j := i; j < k; j++ {
					row[j] += xi * x[j]
				}
			}
		}
		choleskySolve(a, rhs, k, out) // on failure keep the previous factor
	}
	prev := math.Inf(1)
	for it := 0; it < m.Opts.Iters; it++ {
		for j, obs := range rows {
			if obs != nil {
				solve(obs, func(o Obs) []float64 { return m.V[o.S*nj+o.B] }, m.U[j])
			}
		}
		for c, obs := range cols {
			if obs != nil {
				solve(obs, func(o Obs) []float64 { return m.U[o.A] }, m.V[c])
			}
		}
		loss := 0.0
		for _, o := range t.Obs {
			d := m.Predict(o.A, o.B, o.S) - o.Y
			loss += d * d
		}
		loss /= float64(len(t.Obs))
		if math.Abs(prev-loss) < m.Opts.Tol*max(prev, 1e-12) {
			break
		}
		prev = loss
	}
}

// Predict implements Model.
func (m *pmf) Predict(a, b, s int) float64 {
	u, v := m.U[a], m.V[s*len(m.U)+b]
	if u == nil || v == nil {
		return m.Mean[s]
	}
	return dot(u, v)
}

func randVec(norm func() float64, k int) []float64 {
	v := make([]float64, k)
	for i := range v {
		v[i] = norm() / math.Sqrt(float64(k))
	}
	return v
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// choleskySolve solves A x = b for a symmetric positive definite k×k
// matrix A given by its upper triangle (row-major in a; a is overwritten
// by the factor R, A = RᵀR, in its upper triangle; b by the solution) and
// writes x to out. When A is not positive definite (a pivot is not
// positive) it returns false and leaves out alone. For the ranks of pmf
// (k ≤ 10) this small loop is several times cheaper than a general
// factorization that also estimates a condition number.
func choleskySolve(a, b []float64, k int, out []float64) bool {
	for j := 0; j < k; j++ {
		d := a[j*k+j]
		for p := 0; p < j; p++ {
			d -= a[p*k+j] * a[p*k+j]
		}
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		a[j*k+j] = d
		for i := j + 1; i < k; i++ {
			v := a[j*k+i]
			for p := 0; p < j; p++ {
				v -= a[p*k+j] * a[p*k+i]
			}
			a[j*k+i] = v / d
		}
	}
	// Rᵀ y = b, then R x = y
	for i := 0; i < k; i++ {
		v := b[i]
		for p := 0; p < i; p++ {
			v -= a[p*k+i] * b[p]
		}
		b[i] = v / a[i*k+i]
	}
	for i := k - 1; i >= 0; i-- {
		v := b[i]
		for p := i + 1; p < k; p++ {
			v -= a[i*k+p] * b[p]
		}
		b[i] = v / a[i*k+i]
	}
	copy(out, b)
	return true
}
