package reports

import (
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/experiment"
)

// The summary compares coloc with the strongest peer present (lowest
// average JCT) and coloc's best model with the best tree baseline, and
// says nothing where either side is missing.
func TestSummaryRows(t *testing.T) {
	spec, err := cluster.Load("../examples/cluster-gavel-16.yaml")
	if err != nil {
		t.Fatal(err)
	}
	topo, err := sim.NewTopology(spec)
	if err != nil {
		t.Fatal(err)
	}
	b := &builder{}
	if _, ok := b.summary(); ok {
		t.Fatal("a summary with no rows")
	}
	b.summarizePolicies([]*replay{
		{Replay: &experiment.Replay{Trace: experiment.ReplayTrace{Path: "t/one.trace"}, Cluster: experiment.ReplayCluster{Name: topo.Name}, Results: []*sim.Result{
			{Policy: "fifo", AvgJCT: 50, Makespan: 10},
			{Policy: "gavel-las", AvgJCT: 200, Makespan: 10},
			{Policy: "tiresias", AvgJCT: 100, Makespan: 20},
			{Policy: "coloc", AvgJCT: 80, Makespan: 15},
		}}},
		{Replay: &experiment.Replay{Trace: experiment.ReplayTrace{Path: "t/two.trace"}, Cluster: experiment.ReplayCluster{Name: topo.Name},
			Results: []*sim.Result{{Policy: "coloc", AvgJCT: 1, Makespan: 1}}}},
	})
	b.summarizeModels(&eval.Result{Summaries: []eval.Summary{
		{Model: "mean", Protocol: "pairs", Device: "v100", Fraction: 0.5, MAEMedian: 0.01},
		{Model: "iasp", Protocol: "pairs", Device: "v100", Fraction: 0.5, MAEMedian: 0.06, CoverageMedian: 0.91},
		{Model: "iapp", Protocol: "pairs", Device: "v100", Fraction: 0.5, MAEMedian: 0.05, CoverageMedian: 0.93},
		{Model: "tree", Protocol: "pairs", Device: "v100", Fraction: 0.5, MAEMedian: 0.1},
		{Model: "iasp", Protocol: "pairs", Device: "k80", Fraction: 0.5, MAEMedian: 0.02},
	}})
	sec, ok := b.summary()
	if !ok || len(sec.Tables) != 2 {
		t.Fatalf("%+v", sec)
	}
	if got := strings.Join(sec.Tables[0].Rows[0], " "); len(sec.Tables[0].Rows) != 1 || got != traceName("t/one.trace")+" "+topo.Name+" tiresias 0.800 0.750" {
		t.Errorf("policies %q", sec.Tables[0].Rows)
	}
	if got := strings.Join(sec.Tables[1].Rows[0], " "); len(sec.Tables[1].Rows) != 1 || got != "pairs v100 0.5 iapp 0.0500 tree 0.1000 0.500 0.93" {
		t.Errorf("models %q", sec.Tables[1].Rows)
	}
}
