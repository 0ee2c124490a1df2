package model

// biasOptions are the hyper-parameters of the bias baseline.
type biasOptions struct {
	// Lambdas are the ridge penalties tried; the one with the lowest MAE on
	// a validation split of the training pairs is kept.
	Lambdas []float64 `json:"lambdas"`
	Iters   int       `json:"iters"`
}

// defaultBiasOptions are the defaults of the bias baseline.
var defaultBiasOptions = biasOptions{Lambdas: []float64{0.3, 1, 3, 10}, Iters: 30}

// bias predicts mu[slot] + row[A] + col[B]: how sensitive A is to
// co-location and how aggressive B is, with ridge-shrunk effects fit by
// alternating least squares. A job without pairs gets zero effects.
type bias struct {
	framed
	Opts   biasOptions `json:"options"`
	Lambda float64     `json:"lambda"`
	Mu     []float64   `json:"mu"`
	Row    []float64   `json:"row"`
	Col    []float64   `json:"col"`
}

// newBias returns the bias baseline.
func newBias(o biasOptions) *bias { return &bias{Opts: o} }

// Name implements Model.
func (m *bias) Name() string { return "bias" }

// Hyper implements Hyper.
func (m *bias) Hyper() any { return m.Opts }

// Fit implements Model.
func (m *bias) Fit(t *Train) error {
	best := chooseByValidation(t, len(m.Opts.Lambdas), 0, func(i int, tr *Train) (Model, error) {
		c := &bias{Opts: m.Opts}
		c.fit(tr, m.Opts.Lambdas[i])
		return c, nil
	})
	lambda := 1.0
	if len(m.Opts.Lambdas) > 0 {
		lambda = m.Opts.Lambdas[best]
	}
	m.fit(t, lambda)
	return nil
}

func (m *bias) fit(t *Train, lambda float64) {
	m.f, m.Lambda = t.Frame, lambda
	nj, ns := len(t.Jobs), len(t.Slots)
	m.Mu = slotMeans(t.Obs, ns)
	m.Row, m.Col = make([]float64, nj), make([]float64, nj)
	sum, n := make([]float64, max(nj, ns)), make([]float64, max(nj, ns))
	for it := 0; it < m.Opts.Iters; it++ {
		clear(sum)
		clear(n)
		for _, o := range t.Obs {
			sum[o.A] += o.Y - m.Mu[o.S] - m.Col[o.B]
			n[o.A]++
		}
		for j := range m.Row {
			m.Row[j] = sum[j] / (n[j] + lambda)
		}
		clear(sum)
		clear(n)
		for _, o := range t.Obs {
			sum[o.B] += o.Y - m.Mu[o.S] - m.Row[o.A]
			n[o.B]++
		}
		for j := range m.Col {
			m.Col[j] = sum[j] / (n[j] + lambda)
		}
		clear(sum)
		clear(n)
		for _, o := range t.Obs {
			sum[o.S] += o.Y - m.Row[o.A] - m.Col[o.B]
			n[o.S]++
		}
		for s := 0; s < ns; s++ {
			if n[s] > 0 {
				m.Mu[s] = sum[s] / n[s]
			}
		}
	}
}

// Predict implements Model.
func (m *bias) Predict(a, b, s int) float64 { return m.Mu[s] + m.Row[a] + m.Col[b] }
