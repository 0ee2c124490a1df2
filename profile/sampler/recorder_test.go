package sampler

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// fakeClock is a Clock whose ticks the test sends by hand. A send returns
// once the recorder has taken the tick, and Stop waits for the tick being
// processed, so nothing depends on timing.
type fakeClock struct {
	now      time.Time
	ticks    chan time.Time
	interval time.Duration
	stopped  bool
}

func newFakeClock() *fakeClock { return &fakeClock{now: t0, ticks: make(chan time.Time)} }

func (c *fakeClock) Now() time.Time { return c.now }
func (c *fakeClock) NewTicker(d time.Duration) Ticker {
	c.interval = d
	return c
}
func (c *fakeClock) C() <-chan time.Time { return c.ticks }
func (c *fakeClock) Stop()               { c.stopped = true }

// tick sends tick k (k >= 1; tick 0 is the one Start takes at Now).
func (c *fakeClock) tick(k int) { c.ticks <- c.now.Add(time.Duration(k) * c.interval) }

// scripted is a fake Sampler: per call it returns script[call], or err
// when the entry is an error.
type scripted struct {
	name     string
	counters []datasets.Counter
	script   []any // []Reading or error, per tick
	warn     map[int][]string
	share    map[int][]string
	calls    int
	resets   int
	pending  []string
	sharing  []string
}

func (s *scripted) Name() string                 { return s.name }
func (s *scripted) Counters() []datasets.Counter { return s.counters }
func (s *scripted) Close() error                 { return nil }
func (s *scripted) Reset()                       { s.resets++ }
func (s *scripted) Warnings() []string {
	w := s.pending
	s.pending = nil
	return w
}
func (s *scripted) Shared() []string {
	w := s.sharing
	s.sharing = nil
	return w
}
func (s *scripted) Sample(Target) ([]Reading, error) {
	i := s.calls
	s.calls++
	s.pending = append(s.pending, s.warn[i]...)
	s.sharing = append(s.sharing, s.share[i]...)
	if i >= len(s.script) {
		return nil, nil
	}
	switch v := s.script[i].(type) {
	case error:
		return nil, v
	case []Reading:
		return v, nil
	}
	panic("bad script")
}

func rd(dev int, wl string, vals ...float64) Reading {
	return Reading{Device: dev, Workload: wl, Values: vals}
}

// rows renders a samples table as text, one row per line.
func rows(t *datasets.Table) []string {
	var out []string
	for i := 0; i < t.Len(); i++ {
		var f []string
		for _, c := range t.Columns {
			s := c.Format(i)
			if c.IsNull(i) {
				s = "-"
			}
			f = append(f, s)
		}
		out = append(out, strings.Join(f, " "))
	}
	return out
}

func TestRecorderMergesTicks(t *testing.T) {
	nan := math.NaN()
	gpu := &scripted{
		name:     "gpu",
		counters: []datasets.Counter{{Name: "g", Unit: "%"}, {Name: "p", Unit: "W"}},
		script: []any{
			[]Reading{rd(1, "", 50, 300), rd(1, "b", 10, nan), rd(1, "a", 20, nan)},
			[]Reading{rd(1, "", 51, 301), rd(1, "a", 21, nan)},
			errors.New("device lost"),
			[]Reading{rd(1, "", 53, nan)},
		},
		warn:  map[int][]string{3: {"power read as NaN"}},
		share: map[int][]string{1: {"device 1: pid 7 (python)"}, 3: {"device 1: pid 7 (python)"}},
	}
	cpu := &scripted{
		name:     "cpu",
		counters: []datasets.Counter{{Name: "c", Unit: "%"}},
		script: []any{
			[]Reading{rd(1, "a", 100), rd(1, "b", 50)},
			[]Reading{rd(1, "a", 101), rd(1, "b", 51)},
			[]Reading{rd(1, "a", 102), rd(1, "b", 52), rd(1, "x", 1, 2)},
			[]Reading{rd(1, "a", 103)},
		},
		warn: map[int][]string{1: {"b is slow"}, 2: {"b is slow"}},
	}
	clk := newFakeClock()
	r, err := NewRecorder([]Sampler{gpu, cpu}, RecorderOptions{Interval: 250 * time.Millisecond, Clock: clk, NoChildren: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := counterNames(r.Counters()); !slices.Equal(got, []string{"g", "p", "c"}) {
		t.Errorf("counters %v", got)
	}
	if err := r.Start("run-1", Target{Devices: []int{1}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Start("run-2", Target{}); err == nil {
		t.Error("a second Start while recording succeeded")
	}
	for k := 1; k <= 3; k++ {
		clk.tick(k)
	}
	s, notes, err := r.Stop()
	if err != nil {
		t.Fatal(err)
	}
	warnings := notes.Warnings
	if !clk.stopped {
		t.Error("ticker not stopped")
	}
	if gpu.resets != 1 || cpu.resets != 1 {
		t.Errorf("resets gpu %d cpu %d, want 1 each", gpu.resets, cpu.resets)
	}
	want := []string{
		"run-1 1 - 2026-03-01T12:00:00Z 50 300 -",
		"run-1 1 a 2026-03-01T12:00:00Z 20 - 100",
		"run-1 1 b 2026-03-01T12:00:00Z 10 - 50",
		"run-1 1 - 2026-03-01T12:00:00.25Z 51 301 -",
		"run-1 1 a 2026-03-01T12:00:00.25Z 21 - 101",
		"run-1 1 b 2026-03-01T12:00:00.25Z - - 51",
		"run-1 1 a 2026-03-01T12:00:00.5Z - - 102",
		"run-1 1 b 2026-03-01T12:00:00.5Z - - 52",
		"run-1 1 - 2026-03-01T12:00:00.75Z 53 - -",
		"run-1 1 a 2026-03-01T12:00:00.75Z - - 103",
	}
	if got := rows(s.Table()); !slices.Equal(got, want) {
		t.Errorf("rows\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	wantWarnings := []string{
		"cpu: b is slow (in 2 of 4 ticks, first at tick 2, 2026-03-01T12:00:00.25Z)",
		"tick 3 of 4 (2026-03-01T12:00:00.5Z): gpu: tick failed, no readings from it: device lost",
		"tick 3 of 4 (2026-03-01T12:00:00.5Z): cpu: reading with 2 values for 1 counters dropped",
		"tick 4 of 4 (2026-03-01T12:00:00.75Z): gpu: power read as NaN",
	}
	if !slices.Equal(warnings, wantWarnings) {
		t.Errorf("warnings\n got %q\nwant %q", warnings, wantWarnings)
	}
	// what else ran is kept apart from the warnings, each message once
	wantShared := []string{"gpu: device 1: pid 7 (python) (in 2 of 4 ticks, first at tick 2, 2026-03-01T12:00:00.25Z)"}
	if !slices.Equal(notes.Shared, wantShared) {
		t.Errorf("shared\n got %q\nwant %q", notes.Shared, wantShared)
	}
	if err := datasets.Validate(s.Table(), "samples"); err != nil {
		t.Errorf("the table does not validate: %v", err)
	}
	if _, _, err := r.Stop(); err == nil {
		t.Error("Stop with no run succeeded")
	}
}

func TestRecorderSurvivesPanickingSampler(t *testing.T) {
	p := &scripted{name: "p", counters: []datasets.Counter{{Name: "v", Unit: "1"}}, script: []any{nil}}
	clk := newFakeClock()
	r, err := NewRecorder([]Sampler{p}, RecorderOptions{Clock: clk, NoChildren: true})
	if err != nil {
		t.Fatal(err)
	}
	r.Start("r", Target{})
	s, n, _ := r.Stop()
	if w := n.Warnings; s.Len() != 0 || len(w) != 1 || !strings.Contains(w[0], "p: tick failed, no readings from it: panic: bad script") {
		t.Errorf("rows %d, warnings %q; want none and the panic", s.Len(), w)
	}
}

func TestNewRecorderRefusesBadCounters(t *testing.T) {
	mk := func(name string, cs ...datasets.Counter) Sampler { return &scripted{name: name, counters: cs} }
	tests := []struct {
		samplers []Sampler
		want     string
	}{
		{[]Sampler{mk("a", datasets.Counter{Name: "x", Unit: "%"}), mk("b", datasets.Counter{Name: "x", Unit: "W"})}, `counter "x" is filled by both sampler a and sampler b`},
		{[]Sampler{mk("a", datasets.Counter{Name: "device", Unit: "%"})}, `sampler a: counter "device" has the name of a samples column`},
		{[]Sampler{mk("a", datasets.Counter{Name: "x"})}, `sampler a: counter "x" has no unit`},
	}
	for _, tt := range tests {
		if _, err := NewRecorder(tt.samplers, RecorderOptions{}); err == nil || err.Error() != tt.want {
			t.Errorf("NewRecorder: %v, want %q", err, tt.want)
		}
	}
}

// TestRecorderFollowsNewChildren: a child started during the run is
// sampled from the next process-tree read (every TreeEvery), not before.
func TestRecorderFollowsNewChildren(t *testing.T) {
	root := t.TempDir()
	writeProc(t, root, 101, 100, 0, 1, 10)
	writeProc(t, root, 105, 50, 0, 2, 10)
	h, err := NewHostSampler(HostOptions{ProcRoot: root, PageSize: testPage, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	clk := newFakeClock()
	r, err := NewRecorder([]Sampler{h}, RecorderOptions{Interval: 250 * time.Millisecond, Clock: clk, ProcRoot: root, TreeEvery: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start("r", Target{Procs: map[string][]int{"w": {101}}}); err != nil {
		t.Fatal(err)
	}
	clk.tick(1) // 0.25 s: tree read at 0 s still holds
	// 101 starts 105 (from a second thread) before the 0.5 s tick.
	task := filepath.Join(root, "101", "task", "102")
	if err := os.MkdirAll(task, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(task, "children"), []byte("105 "), 0o644); err != nil {
		t.Fatal(err)
	}
	clk.tick(2) // 0.5 s: not yet read again
	clk.tick(4) // 1 s: read again, 105 found
	s, _, err := r.Stop()
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	c := s.Table().Column("cpu_time")
	for i := 0; i < c.Len(); i++ {
		got = append(got, c.FloatAt(i))
	}
	if want := []float64{1, 1, 1, 1.5}; !slices.Equal(got, want) {
		t.Errorf("cpu_time per tick %v, want %v", got, want)
	}
}

// counterNames lists the names of cs, in order.
func counterNames(cs []datasets.Counter) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// lister is a sampler that lists one tenant on each device asked about.
type lister struct{ scripted }

func (l *lister) Tenants(devices []int) []string {
	var out []string
	for _, d := range devices {
		out = append(out, fmt.Sprintf("%s: GPU %d is busy", l.name, d))
	}
	return out
}

// TestRecorderTenants asks the samplers that can list tenants, and is
// refused while a run is recorded (its own processes would be listed).
func TestRecorderTenants(t *testing.T) {
	c := []datasets.Counter{{Name: "v", Unit: "1"}}
	gpu := &lister{scripted{name: "gpu", counters: c}}
	host := &scripted{name: "host", counters: []datasets.Counter{{Name: "w", Unit: "1"}}}
	r, err := NewRecorder([]Sampler{host, gpu}, RecorderOptions{Clock: newFakeClock(), NoChildren: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Tenants([]int{1, 2})
	if want := []string{"gpu: GPU 1 is busy", "gpu: GPU 2 is busy"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("tenants %q, %v; want %q", got, err, want)
	}
	if err := r.Start("r1", Target{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Tenants([]int{1}); err == nil || !strings.Contains(err.Error(), "run r1 is being recorded") {
		t.Errorf("during a run: %v", err)
	}
	r.Stop()
}
