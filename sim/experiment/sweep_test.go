package experiment

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
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
	s.Config.OracleNoise, s.Env.Seed = 0.01, 3
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
	s.Config.OracleNoise = 0.7
	if _, err := s.Run(); err == nil || !strings.Contains(err.Error(), "oracle noise 0.7") {
		t.Errorf("noise 0.7: error %v", err)
	}
	s.Config.OracleNoise = 0
	s.Reference = "coloc"
	if err := s.WriteMarkdown(&b, cases, "test"); err == nil {
		t.Error("a reference that is not among the policies was accepted")
	}
	s.Policies = []string{"backfill", "lottery"}
	if _, err := s.Run(); err == nil || !strings.Contains(err.Error(), `unknown policy "lottery"`) {
		t.Errorf("unknown policy: error %v", err)
	}
}

// Each case keeps its runs' warnings, once each: a cluster with a GPU
// type the data has no rate for says so in every case, and a cluster
// without says nothing.
func TestSweepWarnings(t *testing.T) {
	spec, err := os.ReadFile("../../examples/cluster-gavel-16.yaml")
	if err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(t.TempDir(), "odd.yaml")
	text := strings.Replace(strings.Replace(string(spec), "name: gavel-16", "name: odd", 1), "gpu_type: p100", "gpu_type: h200", 1)
	if err := os.WriteFile(odd, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Sweep{
		Traces:   []string{"../../examples/traces/physical_cluster/small_test.trace"},
		Clusters: []string{"../../examples/cluster-gavel-16.yaml", odd},
		Data:     "../../datasets/reference/gavel", Options: sim.DefaultOptions,
		Policies: []string{"backfill", "oracle"}, Reference: "oracle",
	}
	cases, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 || cases[1].String() != "small_test on odd, degree trace" {
		t.Fatalf("cases %v", cases)
	}
	want := `GPU type "h200" of the cluster has no measured rate in the data: its 4 GPUs stay idle`
	if !slices.Contains(cases[1].Warnings, want) || slices.Contains(cases[0].Warnings, want) {
		t.Errorf("warnings %q and %q; want %q in the second case only", cases[0].Warnings, cases[1].Warnings, want)
	}
	if n := len(cases[1].Warnings); n != len(slices.Compact(slices.Sorted(slices.Values(cases[1].Warnings)))) {
		t.Errorf("warnings repeated: %q", cases[1].Warnings)
	}
	var b strings.Builder
	WriteCaseWarnings(&b, cases)
	if line := "warning: small_test on odd, degree trace: " + want + "\n"; !strings.Contains(b.String(), line) {
		t.Errorf("written warnings\n%s\nlack %q", b.String(), line)
	}
}

func trimmed(x float64) string { return fmt.Sprintf("%.3f", x) }

// Cases replayed at once give the same cases, in the same order, as one
// at a time; --max-jobs keeps the first jobs; the page leads with every
// policy over the strongest peer that ran, case by case.
func TestSweepParallelCutAndPeers(t *testing.T) {
	s := Sweep{
		Traces:   []string{"../../examples/traces/msr/103959.trace", "../../examples/traces/physical_cluster/small_test.trace"},
		Clusters: []string{"../../examples/cluster-gavel-16.yaml"},
		Data:     "../../datasets/reference/gavel", Options: sim.DefaultOptions,
		Policies: []string{"backfill", "gavel-las", "tiresias", "oracle"}, Reference: "oracle",
		Degrees: []string{sim.DegreeTrace, sim.DegreePolicy}, MaxJobs: 30,
		Peers: []string{"gavel-las", "tiresias", "gavel-las-packed"},
	}
	one, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	s.Parallel = 3
	par, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(one) != fmt.Sprint(par) {
		t.Errorf("parallel cases differ:\n%v\n%v", one, par)
	}
	if one[0].Jobs != 30 || one[1].Jobs >= 30 {
		t.Errorf("jobs per case %d and %d: want the first 30 of 103959 and all of small_test", one[0].Jobs, one[1].Jobs)
	}
	var b strings.Builder
	if err := s.WriteMarkdown(&b, one, "test"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// backfill's average JCT over the better of gavel-las and tiresias,
	// recomputed from the trace-mode cases.
	lg := 0.0
	for _, c := range one[:2] {
		lg += math.Log(c.Results[0].AvgJCT / min(c.Results[1].AvgJCT, c.Results[2].AvgJCT))
	}
	want := "| backfill | " + fmt.Sprintf("%.3f", math.Exp(lg/2)) + " (2) |"
	for _, part := range []string{"## Over the strongest peer", "The peers: gavel-las, tiresias, gavel-las-packed.", want} {
		if !strings.Contains(page, part) {
			t.Errorf("page lacks %q:\n%s", part, page)
		}
	}
	if i, j := strings.Index(page, "## Over the strongest peer"), strings.Index(page, "## oracle vs each policy"); i < 0 || j < i {
		t.Error("the peer table does not lead the page")
	}
}
