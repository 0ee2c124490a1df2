package profile

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A campaign is extended in rounds: solo runs, then one pair, then another
// named alone; every round keeps the records before it, runs only the new
// pair, and its tables hold every pair profiled so far. Changing anything
// but the pairs is still refused, and without Extend a new pair list is
// another campaign.
func TestCampaignExtend(t *testing.T) {
	dir := t.TempDir()
	s := fakeSuite(t, fake("a", "ok"), fake("b", "ok"), fake("c", "ok"))
	round := func(pairs string, extend bool) (*Summary, error) {
		c := newCampaign(t, dir, s, planOpts(pairs, 1, 0, 1), nil)
		c.Extend = extend
		return c.Execute(context.Background())
	}
	if _, err := round("none", true); err != nil {
		t.Fatal(err)
	}
	if _, err := round("a+b", false); err == nil || !strings.Contains(err.Error(), "plan changed (3 runs, now 4") {
		t.Fatalf("a pair list without Extend: %v, want the plan refused", err)
	}
	for i, r := range []struct {
		pairs   string
		ran     int
		journal []string
	}{
		{"a+b", 1, []string{"solo.a.r0", "solo.b.r0", "solo.c.r0", "pair.a+b.r0"}},
		{"c+a", 1, []string{"solo.a.r0", "solo.b.r0", "solo.c.r0", "pair.a+b.r0", "pair.a+c.r0"}},
		// a pair already profiled, named again: a resume, nothing to run
		{"a+b", 0, []string{"solo.a.r0", "solo.b.r0", "solo.c.r0", "pair.a+b.r0", "pair.a+c.r0"}},
	} {
		sum, err := round(r.pairs, true)
		if err != nil {
			t.Fatalf("round %d (%s): %v", i+1, r.pairs, err)
		}
		if sum.Ran != r.ran || sum.Skipped != len(r.journal)-r.ran || sum.Planned != len(r.journal) {
			t.Errorf("round %d (%s): planned %d, ran %d, skipped %d; want %d, %d, %d", i+1, r.pairs,
				sum.Planned, sum.Ran, sum.Skipped, len(r.journal), r.ran, len(r.journal)-r.ran)
		}
		if got := readJournal(t, dir); !slices.Equal(got, r.journal) {
			t.Errorf("round %d (%s): journal %v, want %v", i+1, r.pairs, got, r.journal)
		}
		if n := len(sum.Tables.Pairs.Rows); n != 2*(len(r.journal)-3) {
			t.Errorf("round %d (%s): %d pairs rows, want both orders of %d pairs", i+1, r.pairs, n, len(r.journal)-3)
		}
		man, err := ReadManifest(filepath.Join(dir, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, pr := range man.Plan.Runs {
			ids = append(ids, pr.ID)
		}
		if !slices.Equal(ids, r.journal) {
			t.Errorf("round %d (%s): manifest plan %v, want %v", i+1, r.pairs, ids, r.journal)
		}
	}
	c := newCampaign(t, dir, s, planOpts("b+c", 2, 0, 1), nil)
	c.Extend = true
	if _, err := c.Execute(context.Background()); err == nil || !strings.Contains(err.Error(), "plan changed (5 runs, now 8") {
		t.Errorf("an extension with another repeat count: %v, want the plan refused", err)
	}
}
