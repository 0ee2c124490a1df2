package sampler

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// testdata/proc is a fake /proc: workload "a" is pid 101 (and its child
// 301, which has a thread 302 that started 304), workload "b" is pid 102
// (whose command name holds spaces and parentheses) and its child 103.
// utime+stime: 101: 300, 301: 600, 304: 10, 102: 120, 103: 40 ticks.
// Resident pages: 101: 25600, 301: 51200, 102: 12800, 103: 2560.

const testPage = 4096

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestHostSamplerReadsFakeProc(t *testing.T) {
	h, err := NewHostSampler(HostOptions{ProcRoot: "testdata/proc", PageSize: testPage, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := h.Sample(Target{Devices: []int{2, 3}, Procs: map[string][]int{"a": {101, 301}, "b": {102, 103}, "gone": {999}}})
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	want := []Reading{
		{Device: 2, Workload: "a", Values: []float64{nan, 9, (25600 + 51200) * testPage}},
		{Device: 2, Workload: "b", Values: []float64{nan, 1.6, (12800 + 2560) * testPage}},
		{Device: 2, Workload: "gone", Values: []float64{nan, nan, nan}},
	}
	if len(rs) != len(want) {
		t.Fatalf("%d readings, want %d", len(rs), len(want))
	}
	for i, w := range want {
		if rs[i].Device != w.Device || rs[i].Workload != w.Workload || !slices.EqualFunc(rs[i].Values, w.Values, sameFloat) {
			t.Errorf("reading %d = %+v, want %+v", i, rs[i], w)
		}
	}
	// A workload none of whose processes lives reads NaN without a
	// warning: the expected end of a run (the side of a pair that ends
	// first).
	if w := h.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q, want none", w)
	}
	rs, err = h.Sample(Target{Procs: map[string][]int{"a": {999}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || !math.IsNaN(rs[0].Values[2]) {
		t.Errorf("ended workload read %+v, want NaN", rs)
	}
	if w := h.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q after a workload ended, want none", w)
	}
}

// writeProc writes the stat and statm of a fake process.
func writeProc(t *testing.T, root string, pid int, utime, stime, start, pages uint64) {
	t.Helper()
	dir := filepath.Join(root, fmt.Sprint(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stat := fmt.Sprintf("%d (python3) R 1 %d %d 0 -1 0 0 0 0 0 %d %d 0 0 20 0 1 0 %d 1000 %d\n", pid, pid, pid, utime, stime, start, pages)
	if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "statm"), []byte(fmt.Sprintf("9000 %d 10 1 0 100 0\n", pages)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestHostSamplerCPUUtil(t *testing.T) {
	type proc struct{ pid, utime, stime, start int }
	ticks := []struct {
		at       time.Duration
		procs    []proc
		reset    bool
		cpuUtil  float64
		cpuTime  float64
		scenario string
	}{
		{0, []proc{{101, 100, 0, 7}}, false, math.NaN(), 1, "first tick: no interval yet"},
		{500 * time.Millisecond, []proc{{101, 140, 10, 7}}, false, 100, 1.5, "50 ticks in 0.5 s: one core"},
		{1 * time.Second, []proc{{101, 150, 10, 7}, {105, 300, 0, 9}}, false, 20, 4.6, "new pid 105 adds CPU time, not utilisation"},
		{1500 * time.Millisecond, []proc{{101, 10, 0, 8}}, false, math.NaN(), 0.1, "pid 101 reused by a new process: no interval"},
		{2 * time.Second, []proc{{101, 30, 0, 8}}, true, math.NaN(), 0.3, "after Reset: no interval"},
		{2250 * time.Millisecond, []proc{{101, 80, 0, 8}}, false, 200, 0.8, "two cores"},
	}
	root := t.TempDir()
	now := t0
	h, err := NewHostSampler(HostOptions{ProcRoot: root, PageSize: testPage, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range ticks {
		os.RemoveAll(root)
		var pids []int
		for _, p := range tk.procs {
			writeProc(t, root, p.pid, uint64(p.utime), uint64(p.stime), uint64(p.start), 100)
			pids = append(pids, p.pid)
		}
		if tk.reset {
			h.Reset()
		}
		now = t0.Add(tk.at)
		rs, err := h.Sample(Target{Procs: map[string][]int{"w": pids}})
		if err != nil {
			t.Fatalf("%s: %v", tk.scenario, err)
		}
		if len(rs) != 1 || rs[0].Device != 0 {
			t.Fatalf("%s: readings %+v, want one on device 0", tk.scenario, rs)
		}
		if got := rs[0].Values[0]; !sameFloat(got, tk.cpuUtil) && math.Abs(got-tk.cpuUtil) > 1e-9 {
			t.Errorf("%s: cpu_util %v, want %v", tk.scenario, got, tk.cpuUtil)
		}
		if got := rs[0].Values[1]; math.Abs(got-tk.cpuTime) > 1e-9 {
			t.Errorf("%s: cpu_time %v, want %v", tk.scenario, got, tk.cpuTime)
		}
	}
}

func TestHostSamplerErrors(t *testing.T) {
	if _, err := NewHostSampler(HostOptions{ProcRoot: "testdata/no-such-dir"}); err == nil {
		t.Error("NewHostSampler accepted a missing proc root")
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "7"), 0o755)
	os.WriteFile(filepath.Join(root, "7", "stat"), []byte("7 (x) S 1 2 3\n"), 0o644)
	h, err := NewHostSampler(HostOptions{ProcRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Sample(Target{Procs: map[string][]int{"w": {7}}})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(root, "7", "stat")) {
		t.Errorf("truncated stat: error %v, want one naming the file", err)
	}
}

func TestDescendants(t *testing.T) {
	tests := []struct {
		pids, want []int
	}{
		{[]int{101, 102}, []int{101, 102, 301, 103, 304}},
		{[]int{102, 102, 103}, []int{102, 103}},
		{[]int{999}, []int{999}},
		{nil, []int{}},
	}
	for _, tt := range tests {
		if got := Descendants("testdata/proc", tt.pids); !slices.Equal(got, tt.want) {
			t.Errorf("Descendants(%v) = %v, want %v", tt.pids, got, tt.want)
		}
	}
}

// sameFloat says whether a and b are equal, NaN equal to NaN.
func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
