package model

import (
	"math"
	"testing"
)

// The committee predicts the mean of its three members, each fit alone on
// the same pairs and seed: fitting them together shares no state.
func TestCommitteeIsTheMeanOfItsMembers(t *testing.T) {
	sp, raw := synthetic(t, 14, 31)
	train, test := allPairs(14, 0.4, 7, func(a, b int) float64 { return 0.7 + 0.08*raw[a][0] - 0.06*raw[b][1] + 0.03*raw[a][2]*raw[b][2] })
	fit := func(m Model) Model {
		tr, err := NewTrain(sp, train, 5)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Fit(tr); err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		return m
	}
	c := fit(NewCommittee())
	members := []Model{fit(NewIASP(DefaultIASPOptions)), fit(NewRLFM(DefaultRLFMOptions)), fit(NewGBT(DefaultGBTOptions))}
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
	iasp, iapp := fit(NewIASP(DefaultIASPOptions)), fit(NewIAPP(DefaultIAPPOptions))
	rlfm, gbt := fit(NewRLFM(DefaultRLFMOptions)), fit(NewGBT(DefaultGBTOptions))
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
		first := iasp
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
	sp, raw := synthetic(t, 10, 41)
	train, _ := allPairs(10, 0.6, 3, func(a, b int) float64 { return 0.7 + 0.05*raw[a][0] - 0.05*raw[b][1] })
	tr, err := NewTrain(sp, train, 2)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCommittee()
	if err := c.Fit(tr); err != nil {
		t.Fatal(err)
	}
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
}
