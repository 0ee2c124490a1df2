package policies

import (
	"fmt"
	"math"

	"github.com/coloc-dev/coloc/place/decide"
	"github.com/coloc-dev/coloc/policy"
)

// Config holds the knobs of the model-driven policies of this package,
// those `coloc simulate` takes as --models, --min-normalized, --durations,
// --order, --decide, --estimate-median, --estimate-sigma and
// --oracle-noise. Policies builds the policies with it; Check validates
// it. The zero Config is no models and every knob at its default, except
// that EstimateSigma 0 gives estimates without spread (sim.Estimate).
type Config struct {
	// Models is the model directory written by `coloc fit` ("" when none
	// was given); the policies load what they need from it.
	Models string
	// MinNormalized is an optional floor (an SLO guard): coloc and the
	// oracle never co-locate two jobs when either is estimated below it;
	// 0 turns it off (the default).
	MinNormalized float64
	// Durations is what coloc and the oracle know of a job's size:
	// "attained" (unknown: its attained service and the sizes of the jobs
	// completed so far; the default when ""), "estimate" (a user's
	// estimate, EstimateMedian and EstimateSigma) or "known" (the trace's
	// steps: foresight, a reference). coloc-rule and oracle-rule take
	// known or attained.
	Durations string
	// Order is the order in which coloc-rule and oracle-rule let waiting
	// jobs choose: OrderShortest (predicted remaining GPU time; the
	// default when "") or OrderArrival. The decision core ranks jobs by
	// their index and refuses any other order.
	Order string
	// Decide is what coloc decides a pair on: its predicted normalized
	// throughput (policy.DecideExpected, the default when "") or the lower
	// bound of the prediction's interval (policy.DecideLower,
	// risk-averse), as `coloc policy export --decide` does.
	Decide string
	// EstimateMedian and EstimateSigma describe the users' estimates of
	// their jobs' sizes that policies deciding on estimates see
	// (sim.Estimate): the true size times a log-normal factor of this
	// median and log-space standard deviation (a median of 0 or less, a
	// sigma below 0: sim's defaults).
	EstimateMedian, EstimateSigma float64
	// OracleNoise perturbs the rates the oracle decides on: each pair's
	// measured normalized throughput times 1 + OracleNoise·u, u uniform in
	// [-1, 1] drawn per pair from sim.Env.Seed (0: off, the true oracle;
	// at most MaxOracleNoise). The jobs still run at the measured rates.
	// It shows how far the oracle's results move with small changes of
	// what it decides on.
	OracleNoise float64
}

// Check validates c, what can be checked before any file is read; each
// error names the knob and what it means. Which policy takes which value
// (an order for the decision core, estimates for the rule) is checked
// when a policy is built.
func (c Config) Check() error {
	switch c.Durations {
	case "", decide.Attained, decide.Estimate, decide.Known:
	default:
		return fmt.Errorf("durations %q (what coloc and the oracle know of a job's size): want %s, %s or %s", c.Durations, decide.Attained, decide.Estimate, decide.Known)
	}
	if _, err := ParseDecide(c.Decide); err != nil {
		return fmt.Errorf("decide %q (what coloc decides a pair on): want %s or %s", c.Decide, policy.DecideExpected, policy.DecideLower)
	}
	if err := (&Rule{}).SetOrder(c.Order); err != nil {
		return fmt.Errorf("order %q (in which coloc-rule's and oracle-rule's waiting jobs choose): want %s or %s", c.Order, OrderShortest, OrderArrival)
	}
	if f := c.MinNormalized; !(f >= 0 && f <= 1) {
		return fmt.Errorf("min normalized %v (the floor below which no pair shares): want a number in [0, 1] (0: off)", f)
	}
	if m := c.EstimateMedian; math.IsNaN(m) || math.IsInf(m, 0) {
		return fmt.Errorf("estimate median %v (of a user's estimate over a job's true size): want a finite number (0 or less: the default)", m)
	}
	if s := c.EstimateSigma; math.IsNaN(s) || math.IsInf(s, 0) {
		return fmt.Errorf("estimate sigma %v (the log-space spread of a user's estimate over a job's true size): want a finite number (below 0: the default)", s)
	}
	if a := c.OracleNoise; !(a >= 0 && a <= MaxOracleNoise) {
		return fmt.Errorf("oracle noise %v (the perturbation of the pair rates the oracle decides on): want a number in [0, %v] (0: off)", a, MaxOracleNoise)
	}
	return nil
}
