package sim

import (
	"slices"
	"testing"
)

// loneChecked runs a policy and, after each of its Schedule calls, checks
// that the lone jobs the plan and the simulator revise after changes are
// the ones a scan of every GPU finds, and so are the free GPUs counted by
// node.
type loneChecked struct {
	Policy
	t      *testing.T
	checks int
}

func (c *loneChecked) Schedule(v *View) (*Plan, error) {
	fresh := v.Plan()
	p, err := c.Policy.Schedule(v)
	for _, pl := range []*Plan{fresh, p} {
		if pl == nil {
			continue
		}
		// The free GPUs counted by node as changes are made (FreeOnNode
		// and FreeSpread read them) are those a look at each GPU finds.
		for ni, n := range v.Topology.Nodes {
			free := 0
			for _, g := range n.GPUs {
				if pl.isFree(g) {
					free++
				}
			}
			if pl.avail[ni] != free {
				c.t.Fatalf("t=%g node %d: %d free GPUs counted, %d found", v.Now, ni, pl.avail[ni], free)
			}
		}
		for _, n := range []int{1, 2, 4} {
			got, want := pl.loneOf(n), pl.scanLone(n)
			if pl.view.MaxPerGPU() < 2 || pl.lone == 0 {
				want = nil
			}
			if !slices.EqualFunc(got, want, func(a, b loneJob) bool {
				return a.job == b.job && a.typ == b.typ && a.spread == b.spread && a.first == b.first && slices.Equal(a.gpus, b.gpus)
			}) {
				c.t.Fatalf("t=%g size %d: revised lone jobs %v, a scan finds %v", v.Now, n, got, want)
			}
			c.checks++
		}
	}
	return p, err
}

func TestLoneRevisedMatchesScan(t *testing.T) {
	types := []string{"v100", "k80"}
	truth := fakeRates{solo: map[string]float64{}, co: map[string]float64{}}
	ws := []string{"a", "b", "c"}
	for i, w := range ws {
		for k, typ := range types {
			truth.solo[w+"|"+typ] = float64(10 + i + 5*k)
			truth.solo[w+"|"+typ+"|spread"] = float64(5 + i + 5*k)
			for _, o := range ws {
				truth.co[w+"|"+o+"|"+typ] = float64(4 + i + k)
			}
		}
	}
	jobs, err := Generate(GenOptions{Jobs: 400, Seed: 3, Workloads: ws, Rates: truth, RefType: "v100", MeanGap: 60})
	if err != nil {
		t.Fatal(err)
	}
	tp := topo(t, "v v100 4 4", "k k80 4 4")
	for _, p := range []Policy{NewGreedyPack(truth), newRandomPack(5)} {
		t.Run(p.Name(), func(t *testing.T) {
			c := &loneChecked{Policy: p, t: t}
			r := run(t, tp, jobs, truth, c, DefaultOptions)
			if c.checks < 1000 || r == nil {
				t.Fatalf("%d checks: the trace did not exercise the lone jobs", c.checks)
			}
		})
	}
}
