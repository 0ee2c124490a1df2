package decide

import (
	"fmt"
	"strings"
	"testing"
)

func scoreRates() rates {
	r := rates{solo: map[string]map[string]float64{
		"a": {"fast": 2, "slow": 1},
		"b": {"fast": 2, "slow": 1},
		"c": {"fast": 2, "slow": 1},
	}, pair: map[[2]string]float64{
		{"a", "b"}: 0.8, {"b", "a"}: 0.6, // worth sharing: 1.4 > 1
		{"a", "c"}: 0.5, {"c", "a"}: 0.4, // not: 0.9
	}}
	return r
}

// A free GPU of the fastest type ranks first, then a free slower one, then
// sharing; a pair that does less together than the tenant alone is no
// option, and neither is any pair with one job per GPU.
func TestScoreRanksNodes(t *testing.T) {
	j := Job{Workload: "a", Degrees: []int{1}}
	nodes := []Node{
		{Name: "share-b", Type: "fast", GPUs: 1, Tenants: []Tenant{{Workload: "b", GPUs: []int{0}}}},
		{Name: "share-c", Type: "fast", GPUs: 1, Tenants: []Tenant{{Workload: "c", GPUs: []int{0}}}},
		{Name: "slow-free", Type: "slow", GPUs: 2},
		{Name: "fast-free", Type: "fast", GPUs: 2, Tenants: []Tenant{{Workload: "b", GPUs: []int{0}}}},
	}
	got := Score(scoreRates(), 2, j, nodes)
	var order []string
	for _, o := range got {
		order = append(order, fmt.Sprintf("%s:%.2f", o.Node, o.Score))
	}
	if want := "fast-free:1.00 slow-free:0.50 share-b:0.40 share-c:0.00"; strings.Join(order, " ") != want {
		t.Errorf("order %v, want %s", order, want)
	}
	if got[0].GPUs[0] != 1 || got[0].Partner != "" {
		t.Errorf("best %+v, want GPU 1 of fast-free, alone", got[0])
	}
	for _, o := range got {
		if o.Node == "share-b" && (o.Partner != "b" || o.Normalized != 0.8 || o.PartnerNormalized != 0.6) {
			t.Errorf("share-b: %+v", o)
		}
		if o.Node == "share-c" && (o.Score != 0 || !strings.Contains(o.Reason, "no allowed degree")) {
			t.Errorf("share-c: %+v, want no option", o)
		}
	}
	// One job per GPU: no sharing at all.
	for _, o := range Score(scoreRates(), 1, j, nodes) {
		if o.Partner != "" {
			t.Errorf("max one job per GPU, yet %+v", o)
		}
	}
	// An exclusive node offers its free GPUs only.
	nodes[0].Exclusive = true
	for _, o := range Score(scoreRates(), 2, j, nodes) {
		if o.Node == "share-b" && (o.Score != 0 || o.Partner != "") {
			t.Errorf("exclusive share-b: %+v, want no option", o)
		}
	}
}

// A job with no rate anywhere has no option on any node, and says why.
func TestScoreUnknownWorkload(t *testing.T) {
	got := Score(scoreRates(), 2, Job{Workload: "z", Degrees: []int{1}}, []Node{{Name: "n", Type: "fast", GPUs: 1}})
	if len(got) != 1 || got[0].Score != 0 || !strings.Contains(got[0].Reason, `"z" has no measured solo rate`) {
		t.Errorf("%+v", got)
	}
}

// BenchmarkScore5000Nodes scores one job against 5,000 nodes of 8 GPUs,
// each with a 2-GPU and two 1-GPU tenants (issue goal: under 10 ms on one
// core).
func BenchmarkScore5000Nodes(b *testing.B) {
	r := scoreRates()
	var nodes []Node
	for i := range 5000 {
		typ := "fast"
		if i%2 == 1 {
			typ = "slow"
		}
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%d", i), Type: typ, GPUs: 8, Tenants: []Tenant{
			{Workload: "b", GPUs: []int{0, 1}}, {Workload: "b", GPUs: []int{2}}, {Workload: "c", GPUs: []int{3}}}})
	}
	j := Job{Workload: "a", Degrees: []int{1, 2, 4}}
	b.ResetTimer()
	for range b.N {
		Score(r, 2, j, nodes)
	}
}
