package profile

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// nSuite is a suite of n protocol workloads w0..w(n-1) whose durations
// differ by protocol none estimates (w_i takes i+1 seconds per 10 steps).
func nSuite(n int) *Suite {
	s := &Suite{Name: "n", Dir: "."}
	for i := 0; i < n; i++ {
		s.Workloads = append(s.Workloads, workload{
			Name: fmt.Sprintf("w%d", i), Class: "other", Command: []string{"{python}", "x.py"},
			BatchSize: 1, Precision: "fp32", Protocol: protocolColoc,
		})
	}
	return s
}

func planOpts(pairs string, repeats, gpus int, degrees ...int) PlanOptions {
	o := DefaultPlanOptions
	o.Pairs, o.Repeats, o.GPUs, o.Degrees = pairs, repeats, gpus, degrees
	return o
}

func countModes(p *Plan) map[string]int {
	m := map[string]int{}
	for _, r := range p.Runs {
		m[r.Mode]++
	}
	return m
}

func TestPlanCounts(t *testing.T) {
	tests := []struct {
		name               string
		n                  int
		opts               PlanOptions
		solo, pairs, scale int
		notesContain       string
	}{
		{"all pairs", 4, planOpts("all", 1, 0, 1), 4, 10, 0, ""},
		{"all pairs, 3 repeats", 4, planOpts("all", 3, 0, 1), 12, 30, 0, ""},
		{"no pairs", 5, planOpts("none", 2, 0, 1), 10, 0, 0, ""},
		{"eight workloads", 8, planOpts("all", 1, 0, 1), 8, 36, 0, ""},
		{"list", 4, planOpts("w0+w1, w3+w3,w1+w0", 2, 0, 1), 8, 4, 0, ""},
		{"fraction", 8, planOpts("fraction:0.25", 1, 0, 1), 8, 9, 0, ""},
		{"degrees that fit", 3, planOpts("none", 1, 4, 1, 2, 4, 8), 3, 0, 6, "degrees 8 skipped: 4 GPUs present"},
		{"cpu", 3, planOpts("none", 1, 0, 1, 2), 3, 0, 0, "degrees 2 skipped: 0 GPUs present"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPlan(nSuite(tc.n), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			m := countModes(p)
			if m[datasets.ModeSolo] != tc.solo || m[datasets.ModePair] != tc.pairs || m[datasets.ModeScale] != tc.scale {
				t.Errorf("solo %d pairs %d scale %d, want %d %d %d", m[datasets.ModeSolo], m[datasets.ModePair], m[datasets.ModeScale], tc.solo, tc.pairs, tc.scale)
			}
			if tc.notesContain != "" && !strings.Contains(strings.Join(p.Notes, "\n"), tc.notesContain) {
				t.Errorf("notes %q lack %q", p.Notes, tc.notesContain)
			}
			ids := map[string]bool{}
			for _, r := range p.Runs {
				if ids[r.ID] {
					t.Errorf("duplicate run ID %s", r.ID)
				}
				ids[r.ID] = true
			}
		})
	}
}

func TestPlanOrderAndIDs(t *testing.T) {
	p, err := NewPlan(nSuite(2), planOpts("all", 2, 2, 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Runs {
		got = append(got, r.ID)
	}
	want := []string{
		"solo.w0.r0", "solo.w1.r0", "scale.w0.d2.r0", "scale.w1.d2.r0", "pair.w0+w0.r0", "pair.w0+w1.r0", "pair.w1+w1.r0",
		"solo.w0.r1", "solo.w1.r1", "scale.w0.d2.r1", "scale.w1.d2.r1", "pair.w0+w0.r1", "pair.w0+w1.r1", "pair.w1+w1.r1",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("runs\n%v\nwant\n%v", got, want)
	}
	again, _ := NewPlan(nSuite(2), planOpts("all", 2, 2, 1, 2))
	if again.Hash() != p.Hash() {
		t.Error("the same suite and options gave another plan hash")
	}
	fewer, _ := NewPlan(nSuite(2), planOpts("all", 1, 2, 1, 2))
	if fewer.Hash() == p.Hash() {
		t.Error("fewer repeats gave the same plan hash")
	}
}

func TestPlanFractionSeeded(t *testing.T) {
	pick := func(seed uint64) []string {
		o := planOpts("fraction:0.3", 1, 0, 1)
		o.Seed = seed
		p, err := NewPlan(nSuite(6), o)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range p.Runs {
			if r.Mode == datasets.ModePair {
				ids = append(ids, r.ID)
			}
		}
		return ids
	}
	a, b, c := pick(1), pick(1), pick(2)
	if len(a) != 6 { // round(0.3 * 21)
		t.Errorf("%d pairs, want 6", len(a))
	}
	if !slices.Equal(a, b) {
		t.Errorf("seed 1 twice gave %v and %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 1 and 2 gave the same subset %v", a)
	}
}

func TestPlanErrors(t *testing.T) {
	tests := []struct {
		opts PlanOptions
		want string
	}{
		{planOpts("w0+w9", 1, 0, 1), `no workload "w9"`},
		{planOpts("w0-w1", 1, 0, 1), "is not a pair"},
		{planOpts("fraction:0", 1, 0, 1), "0 < F <= 1"},
		{planOpts("fraction:x", 1, 0, 1), "0 < F <= 1"},
		{planOpts("all", 0, 0, 1), "repeats must be positive"},
		{planOpts("all", 1, 0, 0), "not a positive degree"},
	}
	for _, tc := range tests {
		_, err := NewPlan(nSuite(2), tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.opts.Pairs, err, tc.want)
		}
	}
}

func TestPlanScaleNeedsPython(t *testing.T) {
	s := nSuite(2)
	s.Workloads[1].Command = []string{"./train.sh"}
	p, err := NewPlan(s, planOpts("none", 1, 2, 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if m := countModes(p); m[datasets.ModeScale] != 1 {
		t.Errorf("%d scale runs, want 1 (w1 cannot run under torchrun)", m[datasets.ModeScale])
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), "no scale runs for w1") {
		t.Errorf("notes %q do not say why w1 has no scale runs", p.Notes)
	}
}

func TestPlanEstimates(t *testing.T) {
	s := nSuite(2)
	s.Workloads[1].Protocol, s.Workloads[1].Steps, s.Workloads[1].EstStepS = protocolNone, 100, 0.5
	o := planOpts("all", 1, 2, 1, 2)
	o.Duration, o.Overhead = 10*time.Second, 2*time.Second
	p, err := NewPlan(s, o)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Duration{
		"solo.w0.r0":     12 * time.Second,
		"solo.w1.r0":     52 * time.Second, // 100 steps × 0.5 s + overhead
		"scale.w0.d2.r0": 14 * time.Second, // torchrun starts twice
		"pair.w0+w1.r0":  52 * time.Second, // the longer of the two
	}
	for _, r := range p.Runs {
		if w, ok := want[r.ID]; ok && r.Est != w {
			t.Errorf("%s: estimate %v, want %v", r.ID, r.Est, w)
		}
	}
	// solo w0, solo w1, scale w0, pairs w0+w0, w0+w1, w1+w1
	if want := (12 + 52 + 14 + 12 + 52 + 52) * time.Second; p.Total() != want {
		t.Errorf("total %v, want %v", p.Total(), want)
	}
}

func TestShard(t *testing.T) {
	s := nSuite(5)
	for i := range s.Workloads {
		s.Workloads[i].Protocol, s.Workloads[i].Steps, s.Workloads[i].EstStepS = protocolNone, 10*(i+1), 1
	}
	p, err := NewPlan(s, planOpts("all", 2, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	var longest time.Duration
	for _, r := range p.Runs {
		longest = max(longest, r.Est)
	}
	for _, n := range []int{1, 2, 3, 7} {
		seen := map[string]int{}
		var loads []time.Duration
		for i := 1; i <= n; i++ {
			sh, err := p.Shard(i, n)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := p.Shard(i, n)
			if again.Hash() != sh.Hash() {
				t.Errorf("shard %d/%d differs between calls", i, n)
			}
			// plan order is kept
			last := -1
			for _, r := range sh.Runs {
				seen[r.ID]++
				k := slices.IndexFunc(p.Runs, func(x PlannedRun) bool { return x.ID == r.ID })
				if k <= last {
					t.Errorf("shard %d/%d: %s out of plan order", i, n, r.ID)
				}
				last = k
			}
			loads = append(loads, sh.Total())
		}
		if len(seen) != len(p.Runs) {
			t.Errorf("%d shards cover %d of %d runs", n, len(seen), len(p.Runs))
		}
		for id, c := range seen {
			if c != 1 {
				t.Errorf("%d shards: run %s in %d shards", n, id, c)
			}
		}
		// LPT: no shard exceeds another by more than the longest run.
		if d := slices.Max(loads) - slices.Min(loads); d > longest {
			t.Errorf("%d shards: loads %v differ by %v > longest run %v", n, loads, d, longest)
		}
	}
	if _, err := p.Shard(0, 2); err == nil {
		t.Error("shard 0/2 accepted")
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i, n int
		ok   bool
	}{{"1/4", 1, 4, true}, {"4/4", 4, 4, true}, {"0/4", 0, 0, false}, {"5/4", 0, 0, false}, {"1", 0, 0, false}, {"a/b", 0, 0, false}} {
		i, n, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || i != tc.i || n != tc.n {
			t.Errorf("ParseShard(%q) = %d, %d, %v", tc.in, i, n, err)
		}
	}
}
