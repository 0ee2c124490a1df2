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
