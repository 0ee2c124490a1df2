package sim

import (
	"fmt"
	"testing"

	"github.com/coloc-dev/coloc/place/cluster"
)

// fakeRates is a hand-written Rates: solo rates by workload and GPU type
// (any shape), co-located rates by ordered pair and GPU type.
type fakeRates struct {
	solo map[string]float64 // "workload|type" or "workload|type|spread"
	co   map[string]float64 // "workload|partner|type"
}

func (f fakeRates) Solo(w string, s Shape) (float64, bool) {
	key := w + "|" + s.GPUType
	if s.Spread {
		key += "|spread"
	}
	v, ok := f.solo[key]
	return v, ok
}

func (f fakeRates) Colocated(w, p string, s Shape) (float64, bool) {
	v, ok := f.co[w+"|"+p+"|"+s.GPUType]
	return v, ok
}

func (f fakeRates) Knows(w string) bool {
	for k := range f.solo {
		if len(k) > len(w) && k[:len(w)+1] == w+"|" {
			return true
		}
	}
	return false
}

// topo builds a topology of groups "name:type:nodes:gpus".
func topo(t testing.TB, groups ...string) *Topology {
	t.Helper()
	spec := &cluster.Spec{Version: 1, Name: "toy"}
	for _, g := range groups {
		var name, typ string
		var count, gpus int
		if _, err := fmt.Sscanf(g, "%s %s %d %d", &name, &typ, &count, &gpus); err != nil {
			t.Fatalf("group %q: %v", g, err)
		}
		spec.Groups = append(spec.Groups, cluster.NodeGroup{Name: name, Count: count, GPUType: typ, GPUs: gpus})
	}
	tp, err := NewTopology(spec)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// opts are the default options without rounds or restart penalty unless a
// test sets them.
func opts() Options {
	o := DefaultOptions
	o.Round = 0
	o.RestartPenalty = 0
	return o
}

func run(t *testing.T, tp *Topology, jobs []TraceJob, truth Rates, p Policy, o Options) *Result {
	t.Helper()
	r, err := Run(tp, jobs, truth, p, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return r
}

// near reports whether a and b agree to 1e-9 relative.
func near(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	m := b
	if m < 0 {
		m = -m
	}
	return d <= 1e-9*max(1, m)
}

func checkJCT(t *testing.T, r *Result, want map[int]float64) {
	t.Helper()
	for id, w := range want {
		if got := r.Jobs[id].JCT; !near(got, w) {
			t.Errorf("%s: job %d JCT = %v, want %v", r.Policy, id, got, w)
		}
	}
}

// scripted is a fake policy: at each call it runs the next step of its
// script, a function of the view that returns a plan.
type scripted struct {
	name  string
	steps []func(v *View) *Plan
	calls []Events
}

func (s *scripted) Name() string { return s.name }

func (s *scripted) Schedule(v *View) (*Plan, error) {
	s.calls = append(s.calls, v.Events)
	if len(s.steps) == 0 {
		return nil, nil
	}
	f := s.steps[0]
	s.steps = s.steps[1:]
	return f(v), nil
}
