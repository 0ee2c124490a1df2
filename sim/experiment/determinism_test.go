package experiment

import (
	"fmt"
	"testing"

	"github.com/coloc-dev/coloc/sim"
)

// Under Gavel's settings several jobs complete between two calls of a
// policy (rounds); the rule's estimate of completed jobs' mean size used
// to add them in a map's order, and the same replay gave different
// average JCTs from run to run. Each replay here must give one result.
func TestRoundsReplayDeterministic(t *testing.T) {
	x := Experiment{Options: sim.DefaultOptions, Policies: []string{"oracle-rule"}}
	in := Inputs{Trace: "../../examples/traces/physical_cluster/minimize_makespan.trace",
		Cluster: "../../examples/cluster-gavel-16.yaml", Data: "../../datasets/reference/gavel"}
	if err := ApplySettings(SettingsGavel, &x, &in, Explicit{NotGiven, NotGiven}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := x.Load(in); err != nil {
		t.Fatal(err)
	}
	var first string
	for i := range 8 {
		res, err := x.Run()
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("avg JCT %v s, makespan %v s, %d restarts", res[0].AvgJCT, res[0].Makespan, res[0].Restarts)
		if i == 0 {
			first = got
		} else if got != first {
			t.Fatalf("run %d: %s; run 0: %s", i, got, first)
		}
	}
}
