package model

import (
	"bytes"
	"math"
	"testing"
)

// averaged is a network fit alone CommitteeNetworkFits times on tr, with
// the committee's seeds, read as the mean of its fits; seedSpread is the
// largest gap between two of its fits on a pair of obs.
type averaged struct {
	fits       []Model
	seedSpread float64
}

func fitAveraged(t *testing.T, tr *Train, obs []Obs, fresh func() Model) *averaged {
	t.Helper()
	av := &averaged{}
	for k := range CommitteeNetworkFits {
		m, r := fresh(), *tr
		if k > 0 {
			r.Seed = fitSeed(tr.Seed, k)
		}
		if err := m.Fit(&r); err != nil {
			t.Fatalf("%s fit %d: %v", m.Name(), k+1, err)
		}
		av.fits = append(av.fits, m)
	}
	for _, o := range obs {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, m := range av.fits {
			v := m.Predict(o.A, o.B, o.S)
			lo, hi = min(lo, v), max(hi, v)
		}
		av.seedSpread = max(av.seedSpread, hi-lo)
	}
	return av
}

func (av *averaged) Predict(a, b, s int) float64 {
	v := 0.0
	for _, m := range av.fits {
		v += m.Predict(a, b, s)
	}
	return v / float64(len(av.fits))
}

// The committee predicts the mean of its three seats, each fit alone on
// the same pairs and seed: fitting them together shares no state. IASP's
// seat is the mean of its CommitteeNetworkFits fits, and those fits
// differ (else the averaging would be a no-op the test cannot see).
func TestCommitteeIsTheMeanOfItsMembers(t *testing.T) {
	sp, raw := synthetic(t, 14, 31)
	train, test := allPairs(14, 0.4, 7, func(a, b int) float64 { return 0.7 + 0.08*raw[a][0] - 0.06*raw[b][1] + 0.03*raw[a][2]*raw[b][2] })
	tr, err := NewTrain(sp, train, 5)
	if err != nil {
		t.Fatal(err)
	}
	fit := func(m Model) Model {
		if err := m.Fit(tr); err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		return m
	}
	c := fit(NewCommittee()).(*Committee)
	if len(c.MoreIASP) != CommitteeNetworkFits-1 || c.IAPP != nil || len(c.MoreIAPP) != 0 {
		t.Fatalf("%d further iasp fits, iapp %v, %d further iapp fits; want %d, none, none", len(c.MoreIASP), c.IAPP != nil, len(c.MoreIAPP), CommitteeNetworkFits-1)
	}
	iasp := fitAveraged(t, tr, test, func() Model { return NewIASP(DefaultIASPOptions) })
	if iasp.seedSpread < 1e-3 {
		t.Fatalf("IASP's %d fits agree within %g on every pair: the seeds do not reach the fits", CommitteeNetworkFits, iasp.seedSpread)
	}
	members := []interface{ Predict(a, b, s int) float64 }{iasp, fit(NewRLFM(DefaultRLFMOptions)), fit(NewGBT(MemberGBTOptions))}
	spread := 0.0
	for _, o := range test {
		want := 0.0
		for _, m := range members {
			want += m.Predict(o.A, o.B, 0)
		}
		want /= 3
		if got := c.Predict(o.A, o.B, 0); math.Abs(got-want) > 1e-12 {
			t.Fatalf("%s|%s: committee %v, mean of members %v", sp.Jobs[o.A], sp.Jobs[o.B], got, want)
		}
		spread = max(spread, math.Abs(members[0].Predict(o.A, o.B, 0)-members[2].Predict(o.A, o.B, 0)))
	}
	if spread == 0 {
		t.Fatal("IASP and GBT predict the same everywhere: the test cannot tell the mean from a member")
	}
}

// A committee file written before the committee averaged its networks'
// fits (no iasp_more) still loads, and predicts the mean of its one IASP
// fit, RLFM and GBT.
func TestCommitteeReadsSingleFitFiles(t *testing.T) {
	c, tr, test := fitSmallCommittee(t, 43, 0.5)
	sp := tr.Space
	c.MoreIASP = nil
	b, err := Encode(c, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("iasp_more")) {
		t.Fatal("a committee without further fits still writes iasp_more")
	}
	l, err := Decode(b, "committee.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range test {
		want := (c.IASP.Predict(o.A, o.B, 0) + c.RLFM.Predict(o.A, o.B, 0) + c.GBT.Predict(o.A, o.B, 0)) / 3
		if got := l.Model.Predict(o.A, o.B, 0); math.Abs(got-want) > 1e-12 {
			t.Fatalf("%s|%s: single-fit committee %v, want %v", sp.Jobs[o.A], sp.Jobs[o.B], got, want)
		}
	}
}

// A committee file with a member missing is refused on load.
func TestCommitteeRefusesMissingMember(t *testing.T) {
	m := NewCommittee()
	m.RLFM = nil
	if err := m.check(nil); err == nil {
		t.Fatal("a committee without rlfm passed its check")
	}
}

// A pair with a job that has no training pair is predicted by the mean of
// IAPP, RLFM and GBT, every other pair by the mean of IASP, RLFM and GBT;
// the file keeps which jobs are unseen, so a loaded committee predicts
// the same.
func TestCommitteeFallsBackToIAPPForUnseenJobs(t *testing.T) {
	sp, raw := synthetic(t, 14, 37)
	all, _ := allPairs(14, 1, 7, func(a, b int) float64 { return 0.7 + 0.08*raw[a][0] - 0.06*raw[b][1] + 0.03*raw[a][2]*raw[b][2] })
	held := func(o Obs) bool { return o.A < 2 || o.B < 2 }
	var train, test []Obs
	for i, o := range all {
		if held(o) {
			test = append(test, o)
		} else if i%3 != 0 {
			train = append(train, o)
		} else {
			test = append(test, o)
		}
	}
	tr, err := NewTrain(sp, train, 5)
	if err != nil {
		t.Fatal(err)
	}
	fit := func(m Model) Model {
		if err := m.Fit(tr); err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		return m
	}
	c := fit(NewCommittee()).(*Committee)
	if len(c.Unseen) != 2 || c.Unseen[0] != 0 || c.Unseen[1] != 1 || c.IAPP == nil {
		t.Fatalf("unseen %v, iapp fit %v; want jobs 0 and 1 unseen and iapp fit", c.Unseen, c.IAPP != nil)
	}
	if len(c.MoreIAPP) != CommitteeNetworkFits-1 {
		t.Fatalf("%d further iapp fits, want %d", len(c.MoreIAPP), CommitteeNetworkFits-1)
	}
	iasp := fitAveraged(t, tr, test, func() Model { return NewIASP(DefaultIASPOptions) })
	iapp := fitAveraged(t, tr, test, func() Model { return NewIAPP(DefaultIAPPOptions) })
	if iapp.seedSpread < 1e-3 {
		t.Fatalf("IAPP's %d fits agree within %g on every pair: the seeds do not reach the fits", CommitteeNetworkFits, iapp.seedSpread)
	}
	rlfm, gbt := fit(NewRLFM(DefaultRLFMOptions)), fit(NewGBT(MemberGBTOptions))
	b, err := Encode(c, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Decode(b, "committee.json")
	if err != nil {
		t.Fatal(err)
	}
	differ := false
	for _, o := range test {
		first := interface{ Predict(a, b, s int) float64 }(iasp)
		if held(o) {
			first = iapp
			differ = differ || math.Abs(iapp.Predict(o.A, o.B, 0)-iasp.Predict(o.A, o.B, 0)) > 1e-3
		}
		want := (first.Predict(o.A, o.B, 0) + rlfm.Predict(o.A, o.B, 0) + gbt.Predict(o.A, o.B, 0)) / 3
		if got := c.Predict(o.A, o.B, 0); math.Abs(got-want) > 1e-12 {
			t.Fatalf("%s|%s: committee %v, want %v (held out %v)", sp.Jobs[o.A], sp.Jobs[o.B], got, want, held(o))
		}
		if got := l.Model.Predict(o.A, o.B, 0); math.Abs(got-want) > 1e-12 {
			t.Fatalf("%s|%s: loaded committee %v, want %v", sp.Jobs[o.A], sp.Jobs[o.B], got, want)
		}
	}
	if !differ {
		t.Fatal("IAPP and IASP agree on every unseen pair: the test cannot tell which one the committee used")
	}
}

// A committee fit with every job paired has no IAPP; a file that claims
// unseen jobs without IAPP, or IAPP without unseen jobs, is refused.
func TestCommitteeUnseenAndIAPPGoTogether(t *testing.T) {
	c, tr, _ := fitSmallCommittee(t, 41, 0.6)
	if len(c.Unseen) != 0 || c.IAPP != nil {
		t.Fatalf("every job has training pairs, yet unseen %v and iapp fit %v", c.Unseen, c.IAPP != nil)
	}
	c.Unseen = []int{3}
	if err := c.check(tr.Frame); err == nil {
		t.Fatal("a committee with an unseen job and no iapp passed its check")
	}
	c.Unseen, c.IAPP = nil, NewIAPP(DefaultIAPPOptions)
	if err := c.check(tr.Frame); err == nil {
		t.Fatal("a committee with iapp and no unseen job passed its check")
	}
	c.IAPP, c.MoreIAPP = nil, []*IAPP{NewIAPP(DefaultIAPPOptions)}
	if err := c.check(tr.Frame); err == nil {
		t.Fatal("a committee with further iapp fits and no iapp passed its check")
	}
	c.MoreIAPP, c.MoreIASP = nil, []*IASP{nil}
	if err := c.check(tr.Frame); err == nil {
		t.Fatal("a committee with a null further iasp fit passed its check")
	}
}

// fitSmallCommittee fits a committee on frac of the pairs of 10 synthetic
// jobs (every job keeps training pairs) and returns it, its training input
// and the pairs left out.
func fitSmallCommittee(t *testing.T, seed uint64, frac float64) (*Committee, *Train, []Obs) {
	t.Helper()
	sp, raw := synthetic(t, 10, seed)
	train, test := allPairs(10, frac, 3, func(a, b int) float64 { return 0.7 + 0.05*raw[a][0] - 0.05*raw[b][1] })
	tr, err := NewTrain(sp, train, 2)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCommittee()
	if err := c.Fit(tr); err != nil {
		t.Fatal(err)
	}
	return c, tr, test
}
