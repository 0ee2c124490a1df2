package model

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// linearOptions are the hyper-parameters of the ridge baseline.
type linearOptions struct {
	// Lambdas are the ridge penalties tried (validation split of the
	// training pairs).
	Lambdas []float64 `json:"lambdas"`
}

// defaultLinearOptions are the defaults of the linear baseline.
var defaultLinearOptions = linearOptions{Lambdas: []float64{0.1, 1, 10, 100}}

// linear is ridge regression of the normalized throughput on the pair
// vector (standardized features of A and B, slot indicator) with an
// unpenalized intercept.
type linear struct {
	framed
	Opts      linearOptions `json:"options"`
	Lambda    float64       `json:"lambda"`
	Intercept float64       `json:"intercept"`
	W         []float64     `json:"w"`
}

// newLinear returns the linear baseline.
func newLinear(o linearOptions) *linear { return &linear{Opts: o} }

// Name implements Model.
func (m *linear) Name() string { return "linear" }

// Hyper implements Hyper.
func (m *linear) Hyper() any { return m.Opts }

// Fit implements Model.
func (m *linear) Fit(t *Train) error {
	best := chooseByValidation(t, len(m.Opts.Lambdas), 0, func(i int, tr *Train) (Model, error) {
		c := &linear{Opts: m.Opts}
		return c, c.fit(tr, m.Opts.Lambdas[i])
	})
	lambda := 1.0
	if len(m.Opts.Lambdas) > 0 {
		lambda = m.Opts.Lambdas[best]
	}
	return m.fit(t, lambda)
}

func (m *linear) fit(t *Train, lambda float64) error {
	m.f, m.Lambda = t.Frame, lambda
	p, n := pairDim(t.Frame), len(t.Obs)
	x := mat.NewDense(n, p, nil)
	y := mat.NewVecDense(n, nil)
	ym := 0.0
	for _, o := range t.Obs {
		ym += o.Y
	}
	ym /= float64(n)
	row := make([]float64, p)
	colMean := make([]float64, p)
	for i, o := range t.Obs {
		pairVec(t.Frame, o.A, o.B, o.S, row)
		x.SetRow(i, row)
		y.SetVec(i, o.Y-ym)
		for k, v := range row {
			colMean[k] += v / float64(n)
		}
	}
	for i := 0; i < n; i++ {
		for k := 0; k < p; k++ {
			x.Set(i, k, x.At(i, k)-colMean[k])
		}
	}
	var a mat.SymDense
	a.SymOuterK(1, x.T())
	for k := 0; k < p; k++ {
		a.SetSym(k, k, a.At(k, k)+lambda)
	}
	var rhs mat.VecDense
	rhs.MulVec(x.T(), y)
	var chol mat.Cholesky
	if !chol.Factorize(&a) {
		return fmt.Errorf("linear: normal equations are not positive definite (lambda %g)", lambda)
	}
	var w mat.VecDense
	if err := chol.SolveVecTo(&w, &rhs); err != nil {
		return fmt.Errorf("linear: %w", err)
	}
	m.W = make([]float64, p)
	m.Intercept = ym
	for k := range m.W {
		m.W[k] = w.AtVec(k)
		m.Intercept -= m.W[k] * colMean[k]
	}
	return nil
}

// Predict implements Model.
func (m *linear) Predict(a, b, s int) float64 {
	d := m.f.Dim()
	y := m.Intercept + dot(m.W[:d], m.f.Z(a, s)) + dot(m.W[d:2*d], m.f.Z(b, s))
	return y + m.W[2*d+s]
}
