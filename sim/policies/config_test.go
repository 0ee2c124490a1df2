package policies

import (
	"math"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/sim"
)

// Check refuses each knob's bad values with the knob's name and meaning,
// takes the zero Config and every named value, and the factories refuse
// to build with a Config that does not check.
func TestConfigCheck(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string // error, or "" for none
	}{
		{Config{}, ""},
		{Config{Durations: "known", Order: "arrival", Decide: "lower", MinNormalized: 1, OracleNoise: MaxOracleNoise, EstimateMedian: -1, EstimateSigma: -1}, ""},
		{Config{Durations: "psychic"}, `durations "psychic" (what coloc and the oracle know of a job's size): want attained, estimate or known`},
		{Config{Decide: "pessimistic"}, `decide "pessimistic" (what coloc decides a pair on): want expected or lower`},
		{Config{Order: "random"}, `order "random" (in which coloc-rule's and oracle-rule's waiting jobs choose): want shortest or arrival`},
		{Config{MinNormalized: 1.5}, "min normalized 1.5 (the floor below which no pair shares)"},
		{Config{MinNormalized: math.NaN()}, "min normalized NaN"},
		{Config{OracleNoise: -0.1}, "oracle noise -0.1 (the perturbation of the pair rates the oracle decides on)"},
		{Config{OracleNoise: 0.6}, "want a number in [0, 0.5]"},
		{Config{EstimateMedian: math.Inf(1)}, "estimate median +Inf"},
		{Config{EstimateSigma: math.NaN()}, "estimate sigma NaN"},
	} {
		err := c.cfg.Check()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: error %v, want %q", c.cfg, err, c.want)
		}
	}
	for _, p := range Policies(Config{Durations: "psychic"}) {
		if _, err := p.New(sim.Env{}); err == nil || !strings.Contains(err.Error(), "policy "+p.Name+`: durations "psychic"`) {
			t.Errorf("%s built with a bad config: %v", p.Name, err)
		}
	}
}
