package experiment

import (
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/sim"
)

// The core's policies take what each durations mode allows and refuse
// what belongs to the former rule; the rule refuses the core's estimate
// mode. Every mode replays a trace to the end.
func TestCorePolicySettings(t *testing.T) {
	x := Experiment{Options: sim.DefaultOptions}
	in := Inputs{Trace: "../../examples/traces/physical_cluster/small_test.trace",
		Cluster: "../../examples/cluster-gavel-16.yaml", Data: "../../datasets/reference/gavel"}
	if _, _, err := x.Load(in); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		policy string
		env    sim.Env
		want   string // error, or "" for a run to the end
	}{
		{"oracle", sim.Env{Order: "arrival"}, "--order is coloc-rule's"},
		{"oracle", sim.Env{Durations: "psychic"}, `durations "psychic"`},
		{"oracle-rule", sim.Env{Durations: "estimate"}, "takes known or attained"},
		{"oracle", sim.Env{Durations: "attained"}, ""},
		{"oracle", sim.Env{Durations: "estimate", Seed: 3}, ""},
		{"oracle", sim.Env{Durations: "known"}, ""},
	} {
		y := x
		y.Policies, y.Env = []string{c.policy}, c.env
		res, err := y.Run()
		switch {
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %+v: error %v, want %q", c.policy, c.env, err, c.want)
		case c.want == "" && err != nil:
			t.Errorf("%s %+v: %v", c.policy, c.env, err)
		case c.want == "" && res[0].Completed != len(x.Jobs):
			t.Errorf("%s %+v: completed %d of %d jobs", c.policy, c.env, res[0].Completed, len(x.Jobs))
		}
	}
}
