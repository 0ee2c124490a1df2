package policies

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/sim"
)

// A sweep runs every trace on every cluster in each degree mode, and its
// page holds the geometric means of the reference's ratios, which the
// test recomputes from the cases.
func TestSweepPage(t *testing.T) {
	s := Sweep{
		Traces:   []string{"../../examples/traces/physical_cluster/small_test.trace", "../../examples/traces/physical_cluster/artifact_evaluation.trace"},
		Clusters: []string{"../../examples/cluster-gavel-16.yaml"},
		Data:     "../../datasets/reference/gavel", Options: sim.DefaultOptions,
		Policies: []string{"backfill", "oracle"}, Reference: "oracle",
		Degrees: []string{sim.DegreeTrace, sim.DegreePolicy},
	}
	cases, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 4 || cases[0].Degree != sim.DegreeTrace || cases[3].Degree != sim.DegreePolicy || cases[0].Trace != "small_test" {
		t.Fatalf("cases %+v", cases)
	}
	var b strings.Builder
	if err := s.WriteMarkdown(&b, cases, "test"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	lg := 0.0
	for _, c := range cases[:2] {
		lg += math.Log(c.Results[1].AvgJCT / c.Results[0].AvgJCT)
	}
	want := math.Exp(lg / 2)
	for _, part := range []string{"## oracle vs each policy: degree trace, all clusters (2 cases)", "degree policy, gavel-16", "| backfill | " + trimmed(want) + " (2) |"} {
		if !strings.Contains(page, part) {
			t.Errorf("page lacks %q:\n%s", part, page)
		}
	}
	if strings.Contains(page, "perturbed") || strings.Contains(page, "multiplied by a factor") {
		t.Error("a page without --oracle-noise mentions a perturbation")
	}
	// The oracle deciding on perturbed rates says so on its page.
	s.Env.OracleNoise, s.Env.Seed = 0.01, 3
	s.Degrees = []string{sim.DegreeTrace}
	if cases, err = s.Run(); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := s.WriteMarkdown(&b, cases, "test"); err != nil {
		t.Fatal(err)
	}
	if want := "a factor drawn in [0.99, 1.01] per pair (seed 3)"; !strings.Contains(b.String(), want) {
		t.Errorf("page lacks %q:\n%s", want, b.String())
	}
	s.Env.OracleNoise = 0.7
	if _, err := s.Run(); err == nil || !strings.Contains(err.Error(), "oracle noise 0.7") {
		t.Errorf("noise 0.7: error %v", err)
	}
	s.Env.OracleNoise = 0
	s.Reference = "coloc"
	if err := s.WriteMarkdown(&b, cases, "test"); err == nil {
		t.Error("a reference that is not among the policies was accepted")
	}
	s.Policies = []string{"backfill", "lottery"}
	if _, err := s.Run(); err == nil || !strings.Contains(err.Error(), `unknown policy "lottery"`) {
		t.Errorf("unknown policy: error %v", err)
	}
}

func trimmed(x float64) string { return fmt.Sprintf("%.3f", x) }
