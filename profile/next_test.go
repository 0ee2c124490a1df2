package profile

import (
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/profile/next"
)

// After a campaign of three workloads solo and the pair a+b, the next
// pairs are the five others (self pairs included), never a+b; an unknown
// strategy is refused.
func TestChooseNext(t *testing.T) {
	s := fakeSuiteFile(t, "trio", [2]string{"a", "ok"}, [2]string{"b", "ok"}, [2]string{"c", "ok"})
	dir := t.TempDir()
	runShard(t, dir, s, planOpts("a+b", 1, 0, 1), 1, 1, "cpu")
	data := dir
	ch, err := next.Choose(next.Options{Data: data, Strategy: "width", Budget: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Pairs) != 5 || ch.InTable != 1 || ch.Device != "cpu" || len(ch.Comments) != 5 {
		t.Fatalf("%+v: want 5 pairs on cpu, 1 pair in the table", ch)
	}
	seen := map[[2]string]bool{}
	for i, p := range ch.Pairs {
		key := [2]string{min(p[0], p[1]), max(p[0], p[1])}
		if key == [2]string{"a", "b"} || seen[key] {
			t.Errorf("pair %d: %q chosen again", i+1, p)
		}
		seen[key] = true
		if !strings.HasPrefix(ch.Comments[i], "cpu, width value ") {
			t.Errorf("comment %q", ch.Comments[i])
		}
	}
	if _, err := next.Choose(next.Options{Data: data, Strategy: "best", Budget: 1}); err == nil || !strings.Contains(err.Error(), `unknown strategy "best"`) {
		t.Errorf("strategy best: error %v", err)
	}
	if _, err := next.Choose(next.Options{Data: data, Device: "h200", Strategy: "width", Budget: 1}); err == nil {
		t.Error("a device the data does not hold was accepted")
	}
}
