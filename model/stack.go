package model

import (
	"errors"
	"math"
)

// stack blends IASP with gradient-boosted trees: y = w IASP + (1-w) GBT.
// The weight w is chosen among 0, 0.1, ..., 1 by MAE on a validation
// fifth of the training pairs (both models fit on the other four fifths),
// then both are refit on all pairs. w = 1 is IASP alone, w = 0 GBT alone:
// the trees join only where they win on validation. We chose a convex
// blend of two rather than a learned meta-model because the validation
// sets are small (a fifth of a few hundred pairs) and a single weight
// cannot overfit them.
type stack struct {
	framed
	Weight float64 `json:"weight"`
	IASP   *IASP   `json:"iasp"`
	GBT    *gbt    `json:"gbt"`
}

// newStack returns the stack of IASP and GBT with their default options,
// the trees reading the pair's summed features (memberGBTOptions).
func newStack() *stack {
	return &stack{Weight: 1, IASP: NewIASP(DefaultIASPOptions), GBT: newGBT(memberGBTOptions)}
}

// Name implements Model.
func (m *stack) Name() string { return "stack" }

// Hyper implements Hyper.
func (m *stack) Hyper() any {
	return struct {
		IASP any `json:"iasp"`
		GBT  any `json:"gbt"`
	}{m.IASP.Hyper(), m.GBT.Hyper()}
}

// Fit implements Model.
func (m *stack) Fit(t *Train) error {
	m.Weight = 1
	if len(t.Obs) >= 10 {
		tr, val := splitObs(t.Obs, 0.2, rng(t.Seed, 0x57ac))
		sub := &Train{Frame: t.Frame, Obs: tr, Seed: t.Seed}
		a, g := NewIASP(m.IASP.Opts), newGBT(m.GBT.Opts)
		if err := a.Fit(sub); err != nil {
			return err
		}
		if err := g.Fit(sub); err != nil {
			return err
		}
		pa, pg := make([]float64, len(val)), make([]float64, len(val))
		for i, o := range val {
			pa[i], pg[i] = a.Predict(o.A, o.B, o.S), g.Predict(o.A, o.B, o.S)
		}
		best := math.Inf(1)
		for k := 10; k >= 0; k-- {
			w := float64(k) / 10
			e := 0.0
			for i, o := range val {
				e += math.Abs(w*pa[i] + (1-w)*pg[i] - o.Y)
			}
			if e < best-1e-12 {
				best, m.Weight = e, w
			}
		}
	}
	m.f = t.Frame
	if m.Weight > 0 {
		if err := m.IASP.Fit(t); err != nil {
			return err
		}
	}
	if m.Weight < 1 {
		if err := m.GBT.Fit(t); err != nil {
			return err
		}
	}
	return nil
}

// Predict implements Model.
func (m *stack) Predict(a, b, s int) float64 {
	switch m.Weight {
	case 1:
		return m.IASP.Predict(a, b, s)
	case 0:
		return m.GBT.Predict(a, b, s)
	}
	return m.Weight*m.IASP.Predict(a, b, s) + (1-m.Weight)*m.GBT.Predict(a, b, s)
}

func (m *stack) bind(f *Frame) {
	m.f = f
	if m.Weight > 0 {
		m.IASP.bind(f)
	}
	if m.Weight < 1 {
		m.GBT.bind(f)
	}
}

func (m *stack) check(f *Frame) error {
	if m.IASP == nil || m.GBT == nil || !(m.Weight >= 0 && m.Weight <= 1) {
		return errStack
	}
	if m.Weight > 0 {
		if err := m.IASP.check(f); err != nil {
			return err
		}
	}
	if m.Weight < 1 {
		return m.GBT.check(f)
	}
	return nil
}

var errStack = errors.New("stack: weight not in [0, 1] or a part missing")
