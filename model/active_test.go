package model

import (
	"strings"
	"testing"
)

func TestSelectPairs(t *testing.T) {
	sp, _ := synthetic(t, 6, 3)
	// Jobs 0 and 1 are well measured; 2..5 have no pair.
	measured := []Obs{{0, 1, 0, .8}, {1, 0, 0, .7}, {0, 0, 0, .9}, {1, 1, 0, .6}}
	skip := map[[3]int]bool{{0, 1, 0}: true, {0, 0, 0}: true, {1, 1, 0}: true}
	for _, strat := range Strategies {
		got, err := SelectPairs(sp, measured, skip, []int{0}, SelectOptions{Strategy: strat, Budget: 4, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 4 {
			t.Fatalf("%s: %d picks, want 4", strat, len(got))
		}
		seen := map[[3]int]bool{}
		for _, c := range got {
			k := [3]int{c.A, c.B, c.S}
			if skip[k] || seen[k] || c.A > c.B {
				t.Errorf("%s: pick %v is skipped, repeated or not ordered a <= b", strat, c)
			}
			seen[k] = true
		}
		switch strat {
		case StrategyUncertainty:
			// The widest intervals are those of two unmeasured jobs.
			for _, c := range got {
				if c.A < 2 {
					t.Errorf("uncertainty picked %v, which has a measured job", c)
				}
			}
		case StrategyWidth:
			// A batch spreads: the four picks cover all four unmeasured jobs.
			cover := map[int]bool{}
			for _, c := range got {
				cover[c.A], cover[c.B] = true, true
			}
			for j := 2; j < 6; j++ {
				if !cover[j] {
					t.Errorf("width picks %v leave job %d without a pair", got, j)
				}
			}
		}
	}
	if _, err := SelectPairs(sp, nil, nil, []int{0}, SelectOptions{Strategy: "greedy"}); err == nil || !strings.Contains(err.Error(), "unknown strategy") {
		t.Errorf("unknown strategy: %v", err)
	}
}
