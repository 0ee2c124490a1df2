package place

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/policy"
)

// fakeEst is a hand-written estimator: solo rates by workload, type,
// degree and spread; normalized throughputs by workload pair and type (at
// any degree), optionally different at the node level.
type fakeEst struct {
	solo  map[soloK]float64
	pairs map[pairK]float64
	node  map[pairK]float64 // node-level values where they differ
}

type soloK struct {
	w, t   string
	d      int
	spread bool
}

type pairK struct{ w, p, t string }

func newFake() *fakeEst {
	return &fakeEst{solo: map[soloK]float64{}, pairs: map[pairK]float64{}, node: map[pairK]float64{}}
}

func (f *fakeEst) Solo(t *Task, typ string, d int, spread bool) (float64, bool) {
	r, ok := f.solo[soloK{t.Workload, typ, d, spread}]
	return r, ok
}

func (f *fakeEst) Normalized(l Level, t, p *Task, typ string, d int) (float64, string, bool) {
	k := pairK{t.Workload, p.Workload, typ}
	if l == NodeLevel {
		if v, ok := f.node[k]; ok {
			return v, "node", true
		}
	}
	v, ok := f.pairs[k]
	return v, "fake", ok
}

func (f *fakeEst) pair(a, b, typ string, ab, ba float64) {
	f.pairs[pairK{a, b, typ}] = ab
	f.pairs[pairK{b, a, typ}] = ba
}

func task(id, w string, degrees ...int) *Task {
	if len(degrees) == 0 {
		degrees = []int{1}
	}
	return &Task{ID: id, Workload: w, Degrees: degrees}
}

func engine(t *testing.T, est Estimator, nodes ...cluster.Node) *Engine {
	t.Helper()
	opt := Options{Thresholds: policy.DefaultThresholds, Unit: datasets.UnitItersPerS}
	e, err := New(nodes, est, opt)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mustPlace(t *testing.T, e *Engine, tk *Task) *Placed {
	t.Helper()
	p, why := e.Place(tk)
	if p == nil {
		t.Fatalf("task %s unplaceable: %s", tk.ID, why)
	}
	return p
}

func TestBadPairKeptApartWhileAGPUIsFree(t *testing.T) {
	f := newFake()
	for _, w := range []string{"A", "B", "C", "D"} {
		f.solo[soloK{w, "g", 1, false}] = 10
	}
	f.pair("A", "B", "g", 0.5, 0.5)  // interfere badly
	f.pair("A", "C", "g", 0.9, 0.85) // share well
	f.pair("B", "C", "g", 0.95, 0.95)
	f.pair("B", "D", "g", 0.6, 0.9)
	f.pair("A", "D", "g", 0.9, 0.9)
	f.pair("C", "D", "g", 0.9, 0.9)
	e := engine(t, f, cluster.Node{Name: "n", GPUType: "g", GPUs: 2})
	a := mustPlace(t, e, task("a", "A"))
	b := mustPlace(t, e, task("b", "B"))
	if a.GPUs[0] != (GPU{0, 0}) || b.GPUs[0] != (GPU{0, 1}) || len(a.Partners()) != 0 {
		t.Fatalf("a on %v, b on %v: want apart on GPUs 0 and 1", a.GPUs, b.GPUs)
	}
	// No GPU is free now: C shares with the job it interferes least with.
	// With A the cluster level loses (1-0.9)+(1-0.85) = 0.25, with B 0.10.
	c := mustPlace(t, e, task("c", "C"))
	if c.GPUs[0] != (GPU{0, 1}) || c.Partners()[0] != b {
		t.Errorf("c on %v with %v, want GPU 1 with b", c.GPUs, c.Partners())
	}
	y, src := c.Normalized(f, NodeLevel)
	if y != 0.95 || !reflect.DeepEqual(src, []string{"fake"}) {
		t.Errorf("c normalized %v %v", y, src)
	}
	// D may join only A (B's GPU is full); A next to D keeps 0.9.
	d := mustPlace(t, e, task("d", "D"))
	if d.GPUs[0] != (GPU{0, 0}) {
		t.Errorf("d on %v, want GPU 0 with a", d.GPUs)
	}
	// A fifth job finds both GPUs full.
	if p, why := e.Place(task("e", "A")); p != nil || !strings.Contains(why, "all 2 GPUs hold 2 job(s)") {
		t.Errorf("e placed %v (%s)", p, why)
	}
}

func TestBelowThresholdWaits(t *testing.T) {
	f := newFake()
	f.solo[soloK{"A", "g", 1, false}] = 10
	f.solo[soloK{"B", "g", 1, false}] = 10
	f.pair("A", "B", "g", 0.85, 0.79) // B would drop below 0.8
	e := engine(t, f, cluster.Node{Name: "n", GPUType: "g", GPUs: 1})
	mustPlace(t, e, task("a", "A"))
	p, why := e.Place(task("b", "B"))
	if p != nil || !strings.Contains(why, "no room (0 of 1 GPUs free; no co-location keeps every job at or above 0.80") {
		t.Errorf("b placed %v, reason %q", p, why)
	}
}

func TestNodeLevelMayRefuseWhatTheClusterLevelLikes(t *testing.T) {
	f := newFake()
	for _, w := range []string{"A", "B", "C"} {
		f.solo[soloK{w, "g", 1, false}] = 10
	}
	f.pair("A", "C", "g", 0.95, 0.95)
	f.pair("B", "C", "g", 0.85, 0.85)
	f.node[pairK{"C", "A", "g"}] = 0.5 // IAPP disagrees with IASP on (C|A)
	e := engine(t, f, cluster.Node{Name: "n0", GPUType: "g", GPUs: 1}, cluster.Node{Name: "n1", GPUType: "g", GPUs: 1})
	mustPlace(t, e, task("a", "A"))
	b := mustPlace(t, e, task("b", "B"))
	// CLWP ranks n0 (with A) first; NLWP refuses it; n1 (with B) takes c.
	c := mustPlace(t, e, task("c", "C"))
	if c.GPUs[0].Node != 1 || c.Partners()[0] != b {
		t.Errorf("c on %v, want node 1 with b", c.GPUs)
	}
}

func TestMemoryHeavyJobsNeverShare(t *testing.T) {
	f := newFake()
	f.solo[soloK{"A", "g", 1, false}] = 10
	f.pair("A", "A", "g", 1, 1) // they would not even slow each other down
	e := engine(t, f, cluster.Node{Name: "n", GPUType: "g", GPUs: 2, MemoryGB: 16})
	big := func(id string) *Task { tk := task(id, "A"); tk.MemoryGB = 10; return tk }
	p1, p2 := mustPlace(t, e, big("x")), mustPlace(t, e, big("y"))
	if p1.GPUs[0] == p2.GPUs[0] {
		t.Fatalf("x and y share GPU %v", p1.GPUs[0])
	}
	if p, why := e.Place(big("z")); p != nil || !strings.Contains(why, "no room") {
		t.Errorf("z placed on %v (%s): 10 + 10 GB exceed 16", p, why)
	}
	small := task("s", "A")
	small.MemoryGB = 6
	if p := mustPlace(t, e, small); len(p.Partners()) != 1 {
		t.Errorf("a 6 GB job next to a 10 GB one fits in 16: %v", p.GPUs)
	}
	huge := task("h", "A")
	huge.MemoryGB = 40
	if p, why := e.Place(huge); p != nil || why != "g: needs 40 GB per GPU, its GPUs have 16 GB" {
		t.Errorf("h: %v %q", p, why)
	}
}

func TestAllReduceGoesToNVLink(t *testing.T) {
	f := newFake()
	f.solo[soloK{"T", "v", 4, false}] = 14
	f.solo[soloK{"S", "v", 4, false}] = 14
	pcie := cluster.Node{Name: "pcie", GPUType: "v", GPUs: 4, Link: cluster.LinkPCIe, LinkGBs: 16}
	nvl := cluster.Node{Name: "nvl", GPUType: "v", GPUs: 8, Link: cluster.LinkNVLink, LinkGBs: 300}
	e := engine(t, f, pcie, nvl)
	heavy := task("heavy", "T", 4)
	heavy.Params = 5e7
	p := mustPlace(t, e, heavy)
	if p.GPUs[0].Node != 1 {
		t.Fatalf("heavy all-reduce on node %d, want the NVLink node", p.GPUs[0].Node)
	}
	// 2 x 3/4 x 4 B x 5e7 = 3e8 B over 300 GB/s: 1 ms; a step is 4/14 s.
	if want := 3e8 / 300e9; math.Abs(p.CommS-want) > 1e-15 {
		t.Errorf("comm %v s, want %v", p.CommS, want)
	}
	if want := p.CommS / (4.0/14 + p.CommS); math.Abs(p.CommFrac-want) > 1e-15 {
		t.Errorf("comm fraction %v, want %v", p.CommFrac, want)
	}
	// Without a parameter count there is no communication cost: best fit
	// (the node it fills exactly) wins.
	q := mustPlace(t, e, task("unknown-size", "S", 4))
	if q.GPUs[0].Node != 0 {
		t.Errorf("job of unknown size on node %d, want the 4-GPU node (best fit)", q.GPUs[0].Node)
	}
}

func TestDegreeWithinRoom(t *testing.T) {
	f := newFake()
	for d, r := range map[int]float64{1: 100, 2: 180, 4: 280, 8: 320} {
		f.solo[soloK{"A", "g", d, false}] = r
	}
	e := engine(t, f, cluster.Node{Name: "n", GPUType: "g", GPUs: 8})
	p := mustPlace(t, e, task("a", "A", 1, 2, 4, 8))
	if p.Degree != 4 || p.Rate != 280 || math.Abs(p.Efficiency-0.7) > 1e-12 {
		t.Errorf("degree %d rate %v eff %v, want 4 (8 has efficiency 0.4)", p.Degree, p.Rate, p.Efficiency)
	}
	p = mustPlace(t, e, task("b", "A", 1, 2, 4, 8))
	if p.Degree != 4 {
		t.Errorf("second job degree %d, want 4 on the 4 free GPUs", p.Degree)
	}
	// No GPU is free now and (A|A) is unknown: no sharing.
	if p, _ := e.Place(task("c", "A", 1, 2)); p != nil {
		t.Errorf("c placed on %v", p.GPUs)
	}
}

func TestTypeByPredictedThroughput(t *testing.T) {
	f := newFake()
	f.solo[soloK{"A", "fast", 1, false}] = 30
	f.solo[soloK{"B", "fast", 1, false}] = 30
	f.solo[soloK{"B", "slow", 1, false}] = 10
	f.pair("A", "B", "fast", 0.9, 0.9)
	e := engine(t, f, cluster.Node{Name: "f", GPUType: "fast", GPUs: 1}, cluster.Node{Name: "s", GPUType: "slow", GPUs: 1})
	mustPlace(t, e, task("a", "A"))
	// B: 0.9 x 30 next to A on the fast GPU beats 10 alone on the slow one.
	if p := mustPlace(t, e, task("b", "B")); p.GPUType != "fast" || len(p.Partners()) != 1 {
		t.Errorf("b on %s with %d partners, want fast shared", p.GPUType, len(p.Partners()))
	}
	f.pair("A", "B", "fast", 0.3, 0.9) // now B would keep 0.3 x 30 = 9 < 10
	e.Reset()
	mustPlace(t, e, task("a", "A"))
	if p, why := e.Place(task("b", "B")); p == nil || p.GPUType != "slow" {
		t.Errorf("b %v (%s), want slow alone", p, why)
	}
}

func TestSpreadOverNodes(t *testing.T) {
	f := newFake()
	f.solo[soloK{"A", "g", 8, true}] = 50
	n := func(name string, net float64) cluster.Node {
		return cluster.Node{Name: name, GPUType: "g", GPUs: 4, NetworkGB: net}
	}
	e := engine(t, f, n("a", 1.25), n("b", 3.125), n("c", 3.125))
	tk := task("x", "A", 8)
	tk.Params = 1e8
	p := mustPlace(t, e, tk)
	if !p.Spread || p.GPUs[0].Node != 1 || p.GPUs[7].Node != 2 {
		t.Errorf("spread on %v, want nodes b and c (faster network)", p.GPUs)
	}
	if want := 2 * 7.0 / 8 * 4 * 1e8 / 3.125e9; math.Abs(p.CommS-want) > 1e-12 {
		t.Errorf("comm %v, want %v", p.CommS, want)
	}
}

func TestUnplaceableReasons(t *testing.T) {
	f := newFake()
	f.solo[soloK{"A", "v", 1, false}] = 10
	e := engine(t, f, cluster.Node{Name: "v", GPUType: "v", GPUs: 4}, cluster.Node{Name: "x", GPUType: "a100", GPUs: 8})
	cases := []struct {
		tk   *Task
		want string
	}{
		{task("big", "A", 16), "needs at least 16 GPUs of one type; the cluster has at most 8 (a100)"},
		{task("unknown", "Z"), "a100: no measured throughput of Z at 1 GPU(s); v: no measured throughput of Z at 1 GPU(s)"},
		{task("eight", "A", 8), "a100: no measured throughput of A at 8 GPU(s); v: needs 8 GPUs, the cluster has 4"},
		{&Task{ID: "none", Workload: "A"}, "no allowed degree"},
	}
	for _, c := range cases {
		p, why := e.Place(c.tk)
		if p != nil || why != c.want {
			t.Errorf("%s: %v, reason %q, want %q", c.tk.ID, p, why, c.want)
		}
	}
}

func TestOccupy(t *testing.T) {
	f := newFake()
	f.solo[soloK{"A", "g", 2, false}] = 10
	f.pair("A", "A", "g", 0.9, 0.9)
	e := engine(t, f, cluster.Node{Name: "n", GPUType: "g", GPUs: 4})
	if _, err := e.Occupy(task("r", "A", 2), []GPU{{0, 2}, {0, 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Occupy(task("bad", "A", 2), []GPU{{0, 2}, {0, 3}}); err == nil || !strings.Contains(err.Error(), "not all") {
		t.Errorf("partial overlap: %v", err)
	}
	if _, err := e.Occupy(task("bad", "A"), []GPU{{0, 9}}); err == nil {
		t.Error("GPU 9 of a 4-GPU node accepted")
	}
	p := mustPlace(t, e, task("s", "A", 2))
	if !reflect.DeepEqual(p.GPUs, []GPU{{0, 0}, {0, 3}}) {
		t.Errorf("placed on %v, want the free GPUs 0 and 3", p.GPUs)
	}
	q := mustPlace(t, e, task("t", "A", 2))
	if !reflect.DeepEqual(q.GPUs, []GPU{{0, 1}, {0, 2}}) || q.Partners()[0].Task.ID != "r" {
		t.Errorf("placed on %v, want with r on GPUs 1 and 2", q.GPUs)
	}
}

func TestOptionsValidate(t *testing.T) {
	bad := []policy.Thresholds{
		{MaxPerGPU: 0, MinNormalized: 0.8, ScalingEfficiency: 0.7, SimilarityK: 3},
		{MaxPerGPU: 2, MinNormalized: 1.2, ScalingEfficiency: 0.7, SimilarityK: 3},
		{MaxPerGPU: 2, MinNormalized: 0.8, ScalingEfficiency: math.NaN(), SimilarityK: 3},
		{MaxPerGPU: 2, MinNormalized: 0.8, ScalingEfficiency: 0.7, SimilarityK: 0},
	}
	for _, th := range bad {
		if err := (Options{Thresholds: th}).Validate(); err == nil {
			t.Errorf("%+v accepted", th)
		}
	}
	if err := (Options{Thresholds: policy.DefaultThresholds}).Validate(); err != nil {
		t.Error(err)
	}
}
