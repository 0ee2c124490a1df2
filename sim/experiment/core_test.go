package experiment

import (
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/policies"
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
		cfg    policies.Config
		seed   uint64
		want   string // error, or "" for a run to the end
	}{
		{"oracle", policies.Config{Order: "arrival"}, 0, "--order is coloc-rule's"},
		{"oracle", policies.Config{Durations: "psychic"}, 0, `durations "psychic"`},
		{"oracle-rule", policies.Config{Durations: "estimate"}, 0, "takes known or attained"},
		{"oracle", policies.Config{Durations: "attained"}, 0, ""},
		{"oracle", policies.Config{Durations: "estimate"}, 3, ""},
		{"oracle", policies.Config{Durations: "known"}, 0, ""},
	} {
		y := x
		y.Policies, y.Config, y.Env = []string{c.policy}, c.cfg, sim.Env{Seed: c.seed}
		res, err := y.Run()
		switch {
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %+v: error %v, want %q", c.policy, c.cfg, err, c.want)
		case c.want == "" && err != nil:
			t.Errorf("%s %+v: %v", c.policy, c.cfg, err)
		case c.want == "" && res[0].Completed != len(x.Jobs):
			t.Errorf("%s %+v: completed %d of %d jobs", c.policy, c.cfg, res[0].Completed, len(x.Jobs))
		}
	}
}
