package nvml

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile/sampler"
	"github.com/coloc-dev/coloc/profile/sampler/nvml/nvmlfake"
)

// t0 is the start of the recorded runs, the time the fake /proc is read at.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// handClock is a sampler.Clock whose ticks the test sends by hand; a send
// returns once the recorder has taken the tick, so nothing depends on
// timing.
type handClock struct {
	ticks    chan time.Time
	interval time.Duration
}

func (c *handClock) Now() time.Time { return t0 }
func (c *handClock) NewTicker(d time.Duration) sampler.Ticker {
	c.interval = d
	return c
}
func (c *handClock) C() <-chan time.Time { return c.ticks }
func (c *handClock) Stop()               {}

// tick sends tick k (k >= 1; tick 0 is the one Start takes at Now).
func (c *handClock) tick(k int) { c.ticks <- t0.Add(time.Duration(k) * c.interval) }

// rows renders a samples table as text, one row per line.
func rows(t *datasets.Table) []string {
	var out []string
	for i := 0; i < t.Len(); i++ {
		var f []string
		for _, c := range t.Columns {
			f = append(f, c.Format(i))
		}
		out = append(out, strings.Join(f, " "))
	}
	return out
}

// advancing moves the fake GPU to its next tick after every sample, on the
// recorder's goroutine.
type advancing struct {
	*Sampler
	f *nvmlfake.Fake
}

func (a advancing) Sample(t sampler.Target) ([]sampler.Reading, error) {
	defer a.f.Advance()
	return a.Sampler.Sample(t)
}

// TestRecorderNVMLCampaign records a pair on a mock H200 with the host
// sampler on the fake /proc, following child processes; tick 3 of 5 fails
// in NVML. The table must validate and read back from disk.
func TestRecorderNVMLCampaign(t *testing.T) {
	f := nvmlfake.NewH200(1)
	f.FailAll[2] = 77 // an NVML error code this build does not name
	nv := mustOpen(t, f, DefaultOptions)
	host, err := sampler.NewHostSampler(sampler.HostOptions{ProcRoot: "../testdata/proc", PageSize: 4096, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	clk := &handClock{ticks: make(chan time.Time)}
	r, err := sampler.NewRecorder([]sampler.Sampler{advancing{nv, f}, host}, sampler.RecorderOptions{Interval: 100 * time.Millisecond, Clock: clk, ProcRoot: "../testdata/proc"})
	if err != nil {
		t.Fatal(err)
	}
	// b's child 103 is not named: the recorder finds it through /proc.
	if err := r.Start("pair-a-b", sampler.Target{Devices: []int{0}, Procs: map[string][]int{"a": {nvmlfake.PIDA}, "b": {nvmlfake.PIDB}}}); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 4; k++ {
		clk.tick(k)
	}
	s, notes, err := r.Stop()
	if err != nil {
		t.Fatal(err)
	}
	warnings := notes.Warnings
	tab := s.Table()
	if got, want := tab.Len(), 3*4+2; got != want { // the failed tick has host rows only
		t.Errorf("%d rows, want %d", got, want)
	}
	col := func(name string) *datasets.Column {
		c := tab.Column(name)
		if c == nil {
			t.Fatalf("no column %s", name)
		}
		return c
	}
	// Row 2 is workload b at tick 1: NVML memory of 102 and 103 (5 GiB),
	// host CPU time of 102 and 103 (1.6 s).
	if got := col("workload").StringAt(2); got != "b" {
		t.Fatalf("row 2 is workload %q, want b", got)
	}
	if got := col("proc_mem_used").FloatAt(2); got != 5*nvmlfake.GiB {
		t.Errorf("b proc_mem_used %v, want 5 GiB (child 103 followed)", got)
	}
	if got := col("cpu_time").FloatAt(2); got != 1.6 {
		t.Errorf("b cpu_time %v, want 1.6 s", got)
	}
	if got := col("gpu_util").FloatAt(0); got != 50 {
		t.Errorf("tick 1 gpu_util %v, want 50", got)
	}
	if u := col("power").Unit; u != "W" {
		t.Errorf("power unit %q", u)
	}
	wantWarning := "tick 3 of 5 (2026-03-01T12:00:00.2Z): nvml: tick failed, no readings from it: every NVML call failed on devices [0] (see warnings)"
	if !slices.Contains(warnings, wantWarning) {
		t.Errorf("warnings %q lack %q", warnings, wantWarning)
	}
	if !slices.Contains(warnings, "tick 3 of 5 (2026-03-01T12:00:00.2Z): nvml: device 0: GetPowerUsage: NVML error 77 (power read as NaN)") {
		t.Errorf("warnings %q lack the power failure", warnings)
	}
	path := filepath.Join(t.TempDir(), "samples.arrow")
	if err := datasets.Write(path, tab); err != nil {
		t.Fatalf("write: %v", err)
	}
	back, err := datasets.Read(path)
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	if fmt.Sprint(rows(back)) != fmt.Sprint(rows(tab)) {
		t.Errorf("read back differs:\n%s\n%s", rows(back), rows(tab))
	}
}
