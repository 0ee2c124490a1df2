package model

import (
	"errors"
	"fmt"
	"sort"
)

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
// and the tree families on Gavel.
//
// A pair with an unseen job (one with a solo row on a slot that has
// training pairs, but no training pair of its own there) is out of
// IASP's reach: IASP's strength is each job's own learned part, and an
// unseen job has none, only the linear map of its features. For such
// pairs IAPP, the network Geng et al. built for jobs known by their
// features alone, takes IASP's seat: the mean of IAPP, RLFM and GBT.
// RLFM already draws an unseen job's factors from its features (the
// prior mean) and GBT sees its features with no identity indicator set,
// so both are features models there and stay. IAPP is fit only when the
// training pairs leave some job unseen; a slot with no training pair at
// all is not counted (no model has learned it).
type Committee struct {
	framed
	IASP *IASP `json:"iasp"`
	RLFM *RLFM `json:"rlfm"`
	GBT  *GBT  `json:"gbt"`
	// IAPP stands in for IASP in pairs with an unseen job; absent when
	// the fit left no job unseen.
	IAPP *IAPP `json:"iapp,omitempty"`
	// Unseen holds s*len(Jobs)+j, ascending, for each job j unseen on
	// slot s.
	Unseen []int `json:"unseen,omitempty"`
	unseen map[int]bool
}

// NewCommittee returns the committee of IASP, RLFM and GBT (and IAPP for
// unseen jobs) with their default options.
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
		IAPP any `json:"iapp_for_unseen"`
	}{m.IASP.Hyper(), m.RLFM.Hyper(), m.GBT.Hyper(), DefaultIAPPOptions}
}

// Fit implements Model: each member on all of t, in turn, and IAPP too
// when t leaves a job unseen.
func (m *Committee) Fit(t *Train) error {
	m.f = t.Frame
	m.Unseen = unseenJobs(t)
	m.IAPP = nil
	if len(m.Unseen) > 0 {
		m.IAPP = NewIAPP(DefaultIAPPOptions)
	}
	m.index()
	for _, p := range m.members() {
		if err := p.Fit(t); err != nil {
			return fmt.Errorf("committee member %s: %w", p.Name(), err)
		}
	}
	return nil
}

// unseenJobs lists s*len(Jobs)+j for every job j with a solo row on a
// slot s that has training pairs, and no training pair of its own there.
func unseenJobs(t *Train) []int {
	nj := len(t.Jobs)
	sup := support(t.Obs, nj, len(t.Slots))
	trained := make([]bool, len(t.Slots))
	for _, o := range t.Obs {
		trained[o.S] = true
	}
	var out []int
	for s, ok := range trained {
		for j := 0; ok && j < nj; j++ {
			if i := s*nj + j; sup[i] == 0 && t.X[i] != nil {
				out = append(out, i)
			}
		}
	}
	return out
}

func (m *Committee) index() {
	m.unseen = make(map[int]bool, len(m.Unseen))
	for _, i := range m.Unseen {
		m.unseen[i] = true
	}
}

// Predict implements Model.
func (m *Committee) Predict(a, b, s int) float64 {
	first := m.IASP.Predict
	if nj := len(m.f.Jobs); m.unseen[s*nj+a] || m.unseen[s*nj+b] {
		first = m.IAPP.Predict
	}
	return (first(a, b, s) + m.RLFM.Predict(a, b, s) + m.GBT.Predict(a, b, s)) / 3
}

func (m *Committee) members() []Model {
	ms := []Model{m.IASP, m.RLFM, m.GBT}
	if m.IAPP != nil {
		ms = append(ms, m.IAPP)
	}
	return ms
}

func (m *Committee) bind(f *Frame) {
	m.f = f
	m.index()
	for _, p := range m.members() {
		p.(binder).bind(f)
	}
}

func (m *Committee) check(f *Frame) error {
	if m.IASP == nil || m.RLFM == nil || m.GBT == nil {
		return errCommittee
	}
	if (m.IAPP == nil) != (len(m.Unseen) == 0) {
		return fmt.Errorf("committee: %d unseen jobs but iapp %s", len(m.Unseen), map[bool]string{true: "absent", false: "present"}[m.IAPP == nil])
	}
	if !sort.IntsAreSorted(m.Unseen) {
		return errors.New("committee: unseen jobs not in ascending order")
	}
	if f != nil && len(m.Unseen) > 0 {
		if n := len(f.Jobs) * len(f.Slots); m.Unseen[0] < 0 || m.Unseen[len(m.Unseen)-1] >= n {
			return fmt.Errorf("committee: unseen job index out of range [0, %d)", n)
		}
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
