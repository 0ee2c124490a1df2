package reports

import (
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/experiment"
)

// Every warning is shown once with its source: a simulator warning every
// policy met names no policy, one that some met names them; repeats of
// the same source and text collapse; sources keep their order; a stage
// file's warning another source gave is not repeated.
func TestWarningsSection(t *testing.T) {
	spec, err := cluster.Load("../examples/cluster-gavel-48.yaml")
	if err != nil {
		t.Fatal(err)
	}
	topo, err := sim.NewTopology(spec)
	if err != nil {
		t.Fatal(err)
	}
	rp := &replay{Replay: &experiment.Replay{Trace: experiment.ReplayTrace{Path: "traces/msr/a.trace"}, Cluster: experiment.ReplayCluster{Name: topo.Name},
		Results: []*sim.Result{
			{Policy: "fifo", Warnings: []string{"2 job(s) not simulated", "idle k80"}},
			{Policy: "coloc", Warnings: []string{"2 job(s) not simulated"}},
		}}}
	b := &builder{}
	if got := b.warningsSection(); len(got.Items) != 0 || !strings.HasPrefix(got.Text, "None") {
		t.Errorf("no warnings: %+v", got)
	}
	b.warn("data gavel", "3 suspect pairs", "", "3 suspect pairs")
	b.warn("model iapp of m", "f2 is missing")
	b.warn("model iasp of m", "f2 is missing")
	b.simWarnings(rp)
	// A stage's file repeats the data's warnings: only its own are added.
	b.warnStage("evaluation file e.arrow", "3 suspect pairs", "mean: 2 cells skipped")
	got := b.warningsSection()
	want := []string{
		"data gavel: 3 suspect pairs",
		"model iapp of m: f2 is missing",
		"model iasp of m: f2 is missing",
		"simulator, msr/a on " + topo.Name + " (every policy): 2 job(s) not simulated",
		"simulator, msr/a on " + topo.Name + " (fifo): idle k80",
		"evaluation file e.arrow: mean: 2 cells skipped",
	}
	if strings.Join(got.Items, "\n") != strings.Join(want, "\n") {
		t.Errorf("items:\n%s\nwant\n%s", strings.Join(got.Items, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(got.Text, "6 problems") {
		t.Errorf("text %q", got.Text)
	}
}
