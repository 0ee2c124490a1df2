package policies

import (
	"fmt"

	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/policy"
)

// Risk aversion. coloc decides a pair on the normalized throughputs its
// rate source, place.Models.Predict, returns. With Config.Decide "lower" that
// source returns the lower bound of each prediction's interval (at the
// models' calibrated coverage, 90% by default) instead of the bounded
// prediction: a pair is shared only if even its pessimistic throughput
// makes sharing pay, the rule `coloc policy export --decide lower`
// records in the policy file. The rule itself (Rule) is unchanged; only
// the numbers it is given are. Where a slot had too few pairs to
// calibrate an interval, the interval is the models' whole plausible
// range (model.Estimate), so "lower" decides on its minimum. The oracle
// reads measured rates and has no interval; the similarity policy does
// not read pair predictions.

// ParseDecide checks a decision rule: policy.DecideExpected (the default,
// also for "") or policy.DecideLower.
func ParseDecide(s string) (string, error) {
	switch s {
	case "", policy.DecideExpected:
		return policy.DecideExpected, nil
	case policy.DecideLower:
		return policy.DecideLower, nil
	}
	return "", fmt.Errorf("decide %q: want %s or %s", s, policy.DecideExpected, policy.DecideLower)
}

// decideOn makes the models' predictions the values of the rule decide:
// it must be set before the first prediction (Predict caches them).
func decideOn(m *place.Models, decide string) error {
	d, err := ParseDecide(decide)
	if err != nil {
		return err
	}
	m.Decide = d
	return nil
}
