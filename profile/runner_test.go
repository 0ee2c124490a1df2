package profile

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

func runOnce(t *testing.T, s *Suite, o RunOptions, pr PlannedRun) (*RunRecord, *fakeMonitor) {
	t.Helper()
	mon := &fakeMonitor{}
	r := &Runner{Suite: s, Options: o, Monitor: mon}
	rec, samples, err := r.run(context.Background(), pr)
	if err != nil {
		t.Fatalf("Run(%s): %v", pr.ID, err)
	}
	if samples == nil || samples.Len() == 0 {
		t.Errorf("Run(%s): no samples from the monitor", pr.ID)
	}
	return rec, mon
}

func soloRun(name string) PlannedRun {
	return PlannedRun{ID: "solo." + name + ".r0", Mode: datasets.ModeSolo, Workloads: []string{name}, Degree: 1}
}

func pairRun(a, b string) PlannedRun {
	return PlannedRun{ID: "pair." + a + "+" + b + ".r0", Mode: datasets.ModePair, Workloads: []string{a, b}, Degree: 1}
}

func TestRunOutcomes(t *testing.T) {
	none := fake("plain", "silent")
	none.Protocol, none.Steps = protocolNone, 100
	s := fakeSuite(t,
		fake("ok", "ok", "--warm", "4", "--peak", "1000"),
		fake("crash", "crash"),
		fake("oom", "oom"),
		fake("noproto", "noproto"),
		fake("short", "ok", "--steps", "8"),
		fake("drift", "drift"),
		fake("one", "ok", "--steps", "1"),
		fake("negpeak", "ok", "--peak", "-5"),
		fake("nanpeak", "ok", "--peak", "NaN"),
		fake("negparams", "ok", "--params", "-3"),
		fake("longline", "longline"),
		none,
	)
	tests := []struct {
		workload  string
		status    string
		errHas    []string
		warnHas   string
		unsettled bool
	}{
		{"ok", datasets.StatusOK, nil, "", false},
		{"crash", datasets.StatusFailed, []string{"exit status 1", "ValueError: fake crash"}, "", false},
		{"oom", datasets.StatusFailed, []string{"out of memory (exit status 3)", "CUDA out of memory. Tried to allocate"}, "", false},
		{"noproto", datasets.StatusFailed, []string{"without a protocol step line", "protocol: none"}, "2 stdout lines ignored", false},
		// Too short to settle, a rate that keeps drifting: measured, not failed.
		{"short", datasets.StatusOK, nil, "", true},
		{"drift", datasets.StatusOK, nil, "", true},
		{"one", datasets.StatusFailed, []string{"one protocol step line"}, "", false},
		{"negpeak", datasets.StatusFailed, []string{"negative value", "peak_memory_bytes -5"}, "", false},
		{"nanpeak", datasets.StatusFailed, []string{"non-finite value"}, "", false},
		{"negparams", datasets.StatusFailed, []string{"negative params (-3)"}, "", false},
		{"longline", datasets.StatusFailed, []string{"stdout line 1 is longer than 1048576 bytes"}, "", false},
		{"plain", datasets.StatusOK, nil, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.workload, func(t *testing.T) {
			rec, mon := runOnce(t, s, fakeOptions(t), soloRun(tc.workload))
			if rec.Status != tc.status || len(rec.Sides) != 1 || rec.Sides[0].Status != tc.status {
				t.Fatalf("status %s (error %q), want %s", rec.Status, rec.Error, tc.status)
			}
			for _, want := range tc.errHas {
				if !strings.Contains(rec.Error, want) {
					t.Errorf("error %q lacks %q", rec.Error, want)
				}
			}
			if tc.warnHas != "" && !strings.Contains(strings.Join(rec.Warnings, "\n"), tc.warnHas) {
				t.Errorf("warnings %q lack %q", rec.Warnings, tc.warnHas)
			}
			if !slices.Equal(mon.started, []string{rec.RunID}) || len(mon.targets[0].Devices) != 0 {
				t.Errorf("monitor started %v with %+v, want once for %s with no GPU", mon.started, mon.targets, rec.RunID)
			}
			side := rec.Sides[0]
			if tc.status == datasets.StatusOK && (side.Throughput == nil || *side.Throughput <= 0) {
				t.Errorf("ok run without a positive throughput: %+v", side)
			}
			if tc.status != datasets.StatusOK && side.Throughput != nil {
				t.Errorf("failed run with a throughput: %+v", side)
			}
			if got := rec.unsettled(); got != tc.unsettled {
				t.Errorf("unsettled %v, want %v", got, tc.unsettled)
			}
			if tc.status == datasets.StatusOK {
				if side.Settled == nil || side.WindowFrom == nil || side.WindowTo == nil || *side.WindowTo < *side.WindowFrom {
					t.Errorf("ok side without settled flag or window: %+v", side)
				}
				if tc.unsettled && (side.Spread == nil || *side.Spread < fakeOptions(t).Window.Tolerance) {
					t.Errorf("unsettled side with spread %v, want at least the tolerance", side.Spread)
				}
			}
		})
	}
}

func TestRunCommandMissing(t *testing.T) {
	w := fake("typo", "ok")
	w.Command = []string{"{suite_dir}/no-such-script.sh"}
	r := &Runner{Suite: fakeSuite(t, w, fake("ok", "ok")), Options: fakeOptions(t)}
	for _, pr := range []PlannedRun{soloRun("typo"), pairRun("ok", "typo")} {
		rec, _, err := r.run(context.Background(), pr)
		if err != nil {
			t.Fatalf("%s: %v, want a failed run", pr.ID, err)
		}
		if rec.Status != datasets.StatusFailed || !strings.Contains(rec.Error, "no-such-script.sh") {
			t.Errorf("%s: status %s error %q", pr.ID, rec.Status, rec.Error)
		}
	}
}

func TestRunThroughputOfFake(t *testing.T) {
	// fake.sh ok: batch 4, 0.05 s a step after 4 slow steps → 80 samples/s.
	s := fakeSuite(t, fake("ok", "ok", "--warm", "4", "--peak", "1000"))
	rec, _ := runOnce(t, s, fakeOptions(t), soloRun("ok"))
	side := rec.Sides[0]
	if math.Abs(*side.Throughput-80) > 1e-6 || math.Abs(*side.StepTime-0.05) > 1e-6 {
		t.Errorf("throughput %v, step time %v; want 80 samples/s, 0.05 s", *side.Throughput, *side.StepTime)
	}
	if side.PeakMemory == nil || *side.PeakMemory != 1000 || side.Steps != 40 || side.Meta == nil || side.Meta.Torch != "0.0-fake" {
		t.Errorf("side %+v", side)
	}
}

func TestRunProtocolNoneByWallTime(t *testing.T) {
	w := fake("plain", "silent")
	w.Protocol, w.Steps = protocolNone, 1000
	rec, _ := runOnce(t, fakeSuite(t, w), fakeOptions(t), soloRun("plain"))
	side := rec.Sides[0]
	if rec.Status != datasets.StatusOK || side.WallS <= 0 {
		t.Fatalf("%+v", rec)
	}
	if want := 4000 / side.WallS; math.Abs(*side.Throughput-want) > 1e-9*want {
		t.Errorf("throughput %v, want steps × batch / wall = %v", *side.Throughput, want)
	}
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	for _, mode := range []string{"hang", "stubborn"} {
		t.Run(mode, func(t *testing.T) {
			o := fakeOptions(t)
			o.Timeout = 300 * time.Millisecond
			rec, mon := runOnce(t, fakeSuite(t, fake(mode, mode)), o, soloRun(mode))
			if rec.Status != datasets.StatusFailed || !strings.Contains(rec.Error, "timed out after") {
				t.Fatalf("status %s error %q, want failed by timeout", rec.Status, rec.Error)
			}
			for _, pids := range mon.pids() {
				if !groupGone(pids[0]) {
					t.Errorf("process group %d still there after the run", pids[0])
				}
			}
		})
	}
}

func TestRunPair(t *testing.T) {
	s := fakeSuite(t, fake("a", "ok", "--warm", "3"), fake("b", "ok", "--dt", "0.1", "--steps", "20"), fake("bad", "crash"), fake("sleepy", "hang"))
	t.Run("both run", func(t *testing.T) {
		rec, mon := runOnce(t, s, fakeOptions(t), pairRun("a", "b"))
		if rec.Status != datasets.StatusOK || rec.Share != datasets.ShareTimeSlice {
			t.Fatalf("status %s share %s error %q", rec.Status, rec.Share, rec.Error)
		}
		for i, want := range []float64{80, 40} {
			if got := *rec.Sides[i].Throughput; math.Abs(got-want) > 1e-6 {
				t.Errorf("side %d throughput %v, want %v", i, got, want)
			}
		}
		if len(mon.targets[0].Procs) != 2 {
			t.Errorf("monitor target %+v, want both workloads' processes", mon.targets[0])
		}
	})
	t.Run("with itself", func(t *testing.T) {
		rec, mon := runOnce(t, s, fakeOptions(t), pairRun("a", "a"))
		if rec.Status != datasets.StatusOK || rec.Sides[0].Label != "a" || rec.Sides[1].Label != "a#2" {
			t.Fatalf("%+v", rec)
		}
		if _, ok := mon.targets[0].Procs["a#2"]; !ok {
			t.Errorf("monitor target %+v lacks a#2", mon.targets[0])
		}
	})
	t.Run("partner crashes", func(t *testing.T) {
		rec, _ := runOnce(t, s, fakeOptions(t), pairRun("sleepy", "bad"))
		if rec.Status != datasets.StatusFailed {
			t.Fatalf("status %s", rec.Status)
		}
		if !strings.Contains(rec.Sides[0].Error, "stopped by the harness") || !strings.Contains(rec.Sides[1].Error, "fake crash") {
			t.Errorf("errors %q / %q", rec.Sides[0].Error, rec.Sides[1].Error)
		}
		if rec.Sides[0].WallS > 10 {
			t.Errorf("the hanging partner ran %.1fs: not stopped when its partner failed", rec.Sides[0].WallS)
		}
	})
}

func TestRunScaleUnderTorchrun(t *testing.T) {
	o := fakeOptions(t)
	o.DeviceKind = "cuda" // the fakes ignore it; the harness sets CUDA_VISIBLE_DEVICES
	o.Devices = []Device{{Index: 3, Type: "h200"}, {Index: 5, Type: "h200"}}
	s := fakeSuite(t, fake("ok", "ok"))
	pr := PlannedRun{ID: "scale.ok.d2.r0", Mode: datasets.ModeScale, Workloads: []string{"ok"}, Degree: 2}
	rec, mon := runOnce(t, s, o, pr)
	if rec.Status != datasets.StatusOK || rec.DeviceIDs != "3,5" || rec.DeviceType != "h200" {
		t.Fatalf("%+v", rec)
	}
	// fakepython.sh passes --nproc_per_node on as WORLD_SIZE; samples
	// count both ranks: 2 × 4 samples / 0.05 s.
	if got := *rec.Sides[0].Throughput; math.Abs(got-160) > 1e-6 {
		t.Errorf("throughput %v, want 160", got)
	}
	if !slices.Equal(mon.targets[0].Devices, []int{3, 5}) {
		t.Errorf("monitor devices %v, want [3 5]", mon.targets[0].Devices)
	}
}

func TestArgv(t *testing.T) {
	s := fakeSuite(t, fake("ok", "ok"))
	s.Workloads[0].Precision = "amp"
	r := &Runner{Suite: s, Options: fakeOptions(t)}
	r.Options.Python = "/usr/bin/python3"
	r.Options.Duration = 2500 * time.Millisecond
	got, err := r.argv(s.Workloads[0], 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/usr/bin/python3", "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "4",
		s.Dir + "/fake.sh", "ok", "--device", "cpu", "--batch-size", "4", "--precision", "amp", "--duration", "2.5", "--seed", "2"}
	if !slices.Equal(got, want) {
		t.Errorf("argv\n%q\nwant\n%q", got, want)
	}
}

// groupGone reports whether process group pgid has no live member: every
// process in it has exited (a zombie waiting for init to reap it counts as
// gone). It reads /proc/*/stat.
func groupGone(pgid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return false
		}
	}
	return true
}
