package policy_test

import (
	"slices"
	"testing"

	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim/policies"
)

// The values the checker accepts are those the writer writes: a node's
// GPUs within the cluster spec's limit, and the objective's rule,
// durations and orders of the completion-time rule.
func TestCheckerKnowsTheWritersValues(t *testing.T) {
	if policy.MaxGPUsPerNode != cluster.MaxGPUsPerNode {
		t.Errorf("policy.MaxGPUsPerNode %d, place/cluster.MaxGPUsPerNode %d", policy.MaxGPUsPerNode, cluster.MaxGPUsPerNode)
	}
	for _, d := range []string{"known", "attained"} {
		x, err := policies.ParseDurations(d)
		if err != nil {
			t.Fatal(err)
		}
		o := policies.RuleExport{Durations: x, Order: policies.OrderArrival}.Objective()
		if !slices.Contains(policy.Rules, o.Rule) || !slices.Contains(policy.Durations, o.Durations) || !slices.Contains(policy.Orders, o.Order) {
			t.Errorf("the writer's objective %+v has a value the checker refuses", o)
		}
	}
	if !slices.Contains(policy.Orders, policies.OrderShortest) {
		t.Errorf("order %q missing", policies.OrderShortest)
	}
}
