package model

import "errors"

// Committee is the mean of three models that err differently: IASP (a
// network over identities and features), RLFM (latent factors drawn
// around the features) and gradient-boosted trees. Each is fit on all the
// training pairs with the committee's seed; a prediction is the plain
// mean of the three.
//
// Why equal weights: a weight chosen on validation (Stack) has a fifth
// of a few hundred pairs to choose on, and at 20% of Gavel's k80 pairs
// the weight it chose did not generalise (docs/models.md); the mean of
// models whose errors are not the same lowers the variance of the
// prediction without anything to choose, so it has no constant. Why these
// three: they are the best models of the collaborative, the latent-factor
// and the tree families on Gavel; the feature-only models (iapp, knn,
// linear) are there for jobs with no pair, which the three also predict
// from features.
type Committee struct {
	framed
	IASP *IASP `json:"iasp"`
	RLFM *RLFM `json:"rlfm"`
	GBT  *GBT  `json:"gbt"`
}

// NewCommittee returns the committee of IASP, RLFM and GBT with their
// default options.
func NewCommittee() *Committee {
	return &Committee{IASP: NewIASP(DefaultIASPOptions), RLFM: NewRLFM(DefaultRLFMOptions), GBT: NewGBT(DefaultGBTOptions)}
}

// Name implements Model.
func (m *Committee) Name() string { return "committee" }

// Hyper implements Hyper.
func (m *Committee) Hyper() any {
	return struct {
		IASP any `json:"iasp"`
		RLFM any `json:"rlfm"`
		GBT  any `json:"gbt"`
	}{m.IASP.Hyper(), m.RLFM.Hyper(), m.GBT.Hyper()}
}

// Fit implements Model: each member on all of t, in turn.
func (m *Committee) Fit(t *Train) error {
	m.f = t.Frame
	for _, p := range m.members() {
		if err := p.Fit(t); err != nil {
			return err
		}
	}
	return nil
}

// Predict implements Model.
func (m *Committee) Predict(a, b, s int) float64 {
	return (m.IASP.Predict(a, b, s) + m.RLFM.Predict(a, b, s) + m.GBT.Predict(a, b, s)) / 3
}

func (m *Committee) members() []Model { return []Model{m.IASP, m.RLFM, m.GBT} }

func (m *Committee) bind(f *Frame) {
	m.f = f
	for _, p := range m.members() {
		p.(binder).bind(f)
	}
}

func (m *Committee) check(f *Frame) error {
	if m.IASP == nil || m.RLFM == nil || m.GBT == nil {
		return errCommittee
	}
	for _, p := range m.members() {
		if c, ok := p.(interface{ check(*Frame) error }); ok {
			if err := c.check(f); err != nil {
				return err
			}
		}
	}
	return nil
}

var errCommittee = errors.New("committee: a member is missing")
