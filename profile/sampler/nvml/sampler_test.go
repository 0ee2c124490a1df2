package nvml

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile/sampler"
	"github.com/coloc-dev/coloc/profile/sampler/nvml/nvmlfake"
)

var pairTarget = sampler.Target{Devices: []int{0}, Procs: map[string][]int{"a": {nvmlfake.PIDA}, "b": {nvmlfake.PIDB, nvmlfake.PIDB2}}}

func mustOpen(t *testing.T, f *nvmlfake.Fake, opts Options) *Sampler {
	t.Helper()
	if opts.ProcRoot == "" {
		opts.ProcRoot = t.TempDir() // no process of the fake is visible unless a test says so
	}
	s, err := Open(f.Server, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// value returns the named counter of a reading, failing the test when the
// sampler has no such counter.
func value(t *testing.T, cs []datasets.Counter, rd sampler.Reading, name string) float64 {
	t.Helper()
	for i, c := range cs {
		if c.Name == name {
			return rd.Values[i]
		}
	}
	t.Fatalf("no counter %s in %v", name, counterNames(cs))
	return 0
}

// find returns the reading of (device, workload).
func find(t *testing.T, rs []sampler.Reading, dev int, wl string) sampler.Reading {
	t.Helper()
	for _, r := range rs {
		if r.Device == dev && r.Workload == wl {
			return r
		}
	}
	t.Fatalf("no reading for device %d workload %q in %d readings", dev, wl, len(rs))
	return sampler.Reading{}
}

func names(cs []datasets.Counter) []string { return strings.Split(counterNames(cs), ", ") }

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func TestOpenNVMLDescribesH200(t *testing.T) {
	s := mustOpen(t, nvmlfake.NewH200(2), DefaultOptions)
	want := []string{"gpu_util", "mem_util", "mem_used", "mem_total", "sm_clock", "mem_clock", "power",
		"temperature", "clock_event_reasons", "proc_sm_util", "proc_mem_util", "proc_mem_used",
		"gpm_sm_util", "gpm_sm_occupancy", "gpm_tensor_util", "gpm_hmma_util", "gpm_dram_bw_util",
		"gpm_fp16_util", "gpm_fp32_util", "gpm_fp64_util", "gpm_pcie_tx", "gpm_pcie_rx",
		"gpm_nvlink_tx", "gpm_nvlink_rx"}
	if got := names(s.Counters()); !slices.Equal(got, want) {
		t.Errorf("counters\n got %v\nwant %v", got, want)
	}
	devs := s.Devices()
	if len(devs) != 2 {
		t.Fatalf("%d devices, want 2", len(devs))
	}
	d := devs[1]
	d.Counters = nil
	wantDev := sampler.Device{Index: 1, Name: "NVIDIA H200 141GB HBM3e", UUID: "GPU-00000000-0000-0000-0000-000000000001",
		Type: "h200", MemoryTotal: 144384 << 20, Architecture: "hopper", ComputeCapability: "9.0", ComputeMode: "default", PowerLimitW: 700,
		System: sampler.System{Driver: "550.54.15", CUDADriver: "12.4", NVML: "12.550.54.15"}, GPM: true,
		Unsupported: nil}
	if !reflect.DeepEqual(d, wantDev) {
		t.Errorf("device 1\n got %+v\nwant %+v", d, wantDev)
	}
	if got := names(devs[0].Counters); !slices.Equal(got, want) {
		t.Errorf("device 0 offers %v, want %v", got, want)
	}
}

func TestNVMLSampleValues(t *testing.T) {
	f := nvmlfake.NewH200(1)
	s := mustOpen(t, f, DefaultOptions)
	cs := s.Counters()
	nan := math.NaN()
	type want struct {
		dev                      map[string]float64
		a, b                     map[string]float64
		procUtilLastSeenArgument uint64
	}
	ticks := []want{
		{ // tick 0: GPM takes its baseline; NVML has no process sample newer than the probe's
			dev: map[string]float64{"gpu_util": 50, "mem_util": 20, "mem_used": 1 * nvmlfake.GiB, "mem_total": 144384 << 20,
				"sm_clock": 1980, "mem_clock": 3201, "power": 300, "temperature": 40, "clock_event_reasons": 4,
				"gpm_sm_util": nan, "proc_sm_util": nan, "proc_mem_used": nan},
			a:                        map[string]float64{"proc_sm_util": nan, "proc_mem_util": nan, "proc_mem_used": 10 * nvmlfake.GiB, "gpu_util": nan},
			b:                        map[string]float64{"proc_sm_util": nan, "proc_mem_util": nan, "proc_mem_used": 5 * nvmlfake.GiB},
			procUtilLastSeenArgument: 1000,
		},
		{ // tick 1: everything read; b's two samples of pid 102 averaged
			dev: map[string]float64{"gpu_util": 51, "power": 301, "gpm_sm_util": 3, "gpm_sm_occupancy": 4,
				"gpm_tensor_util": 6, "gpm_hmma_util": 8, "gpm_dram_bw_util": 11, "gpm_fp16_util": 14,
				"gpm_fp32_util": 13, "gpm_fp64_util": 12, "gpm_pcie_tx": 21 << 20, "gpm_pcie_rx": 22 << 20,
				"gpm_nvlink_tx": nan, "gpm_nvlink_rx": nan},
			a:                        map[string]float64{"proc_sm_util": 60, "proc_mem_util": 30, "proc_mem_used": 10 * nvmlfake.GiB},
			b:                        map[string]float64{"proc_sm_util": 15, "proc_mem_util": 5, "proc_mem_used": 5 * nvmlfake.GiB},
			procUtilLastSeenArgument: 1000,
		},
		{
			dev:                      map[string]float64{"gpu_util": 52, "gpm_sm_util": 4},
			a:                        map[string]float64{"proc_sm_util": 60},
			b:                        map[string]float64{"proc_sm_util": 15},
			procUtilLastSeenArgument: 2000,
		},
	}
	dev := f.Server.Devices[0].(*server.Device)
	for tick, w := range ticks {
		rs, err := s.Sample(pairTarget)
		if err != nil {
			t.Fatalf("tick %d: %v", tick, err)
		}
		if len(rs) != 3 || rs[0].Workload != "" || rs[1].Workload != "a" || rs[2].Workload != "b" {
			t.Fatalf("tick %d: readings %+v, want device, a, b", tick, rs)
		}
		for _, c := range []struct {
			rd   sampler.Reading
			want map[string]float64
		}{{rs[0], w.dev}, {rs[1], w.a}, {rs[2], w.b}} {
			for name, v := range c.want {
				if got := value(t, cs, c.rd, name); !sameFloat(got, v) {
					t.Errorf("tick %d: device %d workload %q: %s = %v, want %v", tick, c.rd.Device, c.rd.Workload, name, got, v)
				}
			}
		}
		calls := dev.GetProcessUtilizationCalls()
		if got := calls[len(calls)-1].V; got != w.procUtilLastSeenArgument {
			t.Errorf("tick %d: GetProcessUtilization(%d), want the newest timestamp seen, %d", tick, got, w.procUtilLastSeenArgument)
		}
		f.Advance()
	}
	if w := s.Warnings(); len(w) != 0 {
		t.Errorf("warnings on a clean campaign: %q", w)
	}
}

// TestNVMLErrorMidCampaign: tick 2 fails entirely, tick 3 loses one call;
// every later tick reads again, and the warnings say what went NaN.
func TestNVMLErrorMidCampaign(t *testing.T) {
	f := nvmlfake.NewH200(1)
	f.FailAll[2] = nvml.ERROR_UNKNOWN
	f.FailCall[3] = "GetPowerUsage"
	s := mustOpen(t, f, DefaultOptions)
	cs := s.Counters()
	type want struct {
		err          bool
		power, gpmSM float64
		warnings     []string
	}
	nan := math.NaN()
	wants := []want{
		{power: 300, gpmSM: nan},
		{power: 301, gpmSM: 3},
		{err: true, warnings: []string{
			"device 0: GetUtilizationRates: ERROR_UNKNOWN (gpu_util, mem_util read as NaN)",
			"device 0: GetPowerUsage: ERROR_UNKNOWN (power read as NaN)",
			"device 0: GpmSampleGet: ERROR_UNKNOWN (GPM counters read as NaN, next tick restarts the interval)",
			"device 0: GetProcessUtilization: ERROR_UNKNOWN (proc_sm_util, proc_mem_util read as NaN)",
			"device 0: GetComputeRunningProcesses: ERROR_UNKNOWN (proc_mem_used read as NaN)",
		}},
		{power: nan, gpmSM: nan, warnings: []string{"device 0: GetPowerUsage: ERROR_UNKNOWN (power read as NaN)"}},
		{power: 304, gpmSM: 6},
	}
	for tick, w := range wants {
		rs, err := s.Sample(pairTarget)
		warnings := s.Warnings()
		if (err != nil) != w.err {
			t.Fatalf("tick %d: error %v, want error %v", tick, err, w.err)
		}
		for _, msg := range w.warnings {
			if !slices.Contains(warnings, msg) {
				t.Errorf("tick %d: no warning %q in %q", tick, msg, warnings)
			}
		}
		if !w.err && len(warnings) != len(w.warnings) {
			t.Errorf("tick %d: warnings %q, want %q", tick, warnings, w.warnings)
		}
		if w.err {
			f.Advance()
			continue
		}
		d := find(t, rs, 0, "")
		if got := value(t, cs, d, "power"); !sameFloat(got, w.power) {
			t.Errorf("tick %d: power %v, want %v", tick, got, w.power)
		}
		if got := value(t, cs, d, "gpm_sm_util"); !sameFloat(got, w.gpmSM) {
			t.Errorf("tick %d: gpm_sm_util %v, want %v", tick, got, w.gpmSM)
		}
		if got := value(t, cs, d, "gpu_util"); got != float64(50+tick) {
			t.Errorf("tick %d: gpu_util %v, want %d", tick, got, 50+tick)
		}
		f.Advance()
	}
}

// TestNVMLFailedInitCallsNothingElse: after a failed Init, not one more
// NVML call, through Open or Detect (a bare mock panics on any call
// not stubbed, and its call log must hold the one Init).
func TestNVMLFailedInitCallsNothingElse(t *testing.T) {
	for _, ret := range []nvml.Return{nvml.ERROR_LIBRARY_NOT_FOUND, nvml.ERROR_DRIVER_NOT_LOADED, nvml.ERROR_NO_PERMISSION, nvml.ERROR_UNKNOWN} {
		t.Run(retName(ret), func(t *testing.T) {
			m := &mock.Interface{InitFunc: func() nvml.Return { return ret }}
			s, err := Open(m, DefaultOptions)
			var ie *InitError
			if s != nil || !errors.As(err, &ie) || ie.Ret != ret {
				t.Fatalf("Open = %v, %v; want nil, InitError(%s)", s, err, retName(ret))
			}
			d := sampler.Detect(Opener(m, DefaultOptions), sampler.DetectOptions{Host: sampler.HostOptions{ProcRoot: "../testdata/proc"}})
			if d.GPU != nil || d.Host == nil {
				t.Fatalf("Detect: GPU %v, host %v; want host only", d.GPU, d.Host)
			}
			if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "NVML init failed: "+retName(ret)) {
				t.Errorf("Detect warnings %q, want the Init failure", d.Warnings)
			}
			if got := names(d.Samplers()[0].Counters()); !slices.Equal(got, []string{"cpu_util", "cpu_time", "rss"}) {
				t.Errorf("samplers offer %v, want the host counters", got)
			}
			if err := d.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if n := nvmlfake.TotalCalls(m); n != 2 {
				t.Errorf("mock saw %d calls, want the 2 Inits only", n)
			}
		})
	}
}

func TestOpenNVMLNoDevices(t *testing.T) {
	srv := dgxh200.NewWithGPUs()
	_, err := Open(srv, DefaultOptions)
	if !errors.Is(err, ErrNoDevices) {
		t.Fatalf("Open with no GPU: %v, want ErrNoDevices", err)
	}
	if n := len(srv.ShutdownCalls()); n != 1 {
		t.Errorf("Shutdown called %d times, want 1 (Init had succeeded)", n)
	}
}

func TestNVMLCounterSupport(t *testing.T) {
	tests := []struct {
		name        string
		fake        func() *nvmlfake.Fake
		opts        Options
		has, hasNot []string
		// device 1's value of a counter at tick 0, when set
		dev1 map[string]float64
	}{
		{
			name:   "no device reads power",
			fake:   func() *nvmlfake.Fake { f := nvmlfake.NewH200(2); f.Unsupport(-1, "GetPowerUsage"); return f },
			hasNot: []string{"power"},
		},
		{
			name: "one device of two lacks power",
			fake: func() *nvmlfake.Fake { f := nvmlfake.NewH200(2); f.Unsupport(1, "GetPowerUsage"); return f },
			has:  []string{"power"},
			dev1: map[string]float64{"power": math.NaN(), "gpu_util": 50},
		},
		{
			name:   "A100 has no GPM and reads PCIe the old way",
			fake:   func() *nvmlfake.Fake { return nvmlfake.NewA100(2) },
			has:    []string{"pcie_tx", "pcie_rx"},
			hasNot: []string{"gpm_sm_util", "gpm_pcie_tx"},
			dev1:   map[string]float64{"pcie_tx": 1000 * 1024, "pcie_rx": 2000 * 1024},
		},
		{
			name: "legacy PCIe asked for on GPM devices",
			fake: func() *nvmlfake.Fake { return nvmlfake.NewH200(2) },
			opts: Options{LegacyPCIeWithGPM: true},
			has:  []string{"pcie_tx", "gpm_pcie_tx"},
		},
		{
			name:   "GPM turned off",
			fake:   func() *nvmlfake.Fake { return nvmlfake.NewH200(2) },
			opts:   Options{NoGPM: true},
			has:    []string{"pcie_tx"},
			hasNot: []string{"gpm_sm_util"},
		},
		{
			name: "old driver: throttle reasons",
			fake: func() *nvmlfake.Fake { f := nvmlfake.NewH200(2); f.NoEventReasons = true; return f },
			dev1: map[string]float64{"clock_event_reasons": 16},
		},
		{
			name:   "no per-process utilisation",
			fake:   func() *nvmlfake.Fake { f := nvmlfake.NewH200(2); f.Unsupport(-1, "GetProcessUtilization"); return f },
			has:    []string{"proc_mem_used"},
			hasNot: []string{"proc_sm_util", "proc_mem_util"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.fake()
			s := mustOpen(t, f, tt.opts)
			got := names(s.Counters())
			for _, n := range tt.has {
				if !slices.Contains(got, n) {
					t.Errorf("counters %v lack %s", got, n)
				}
			}
			for _, n := range tt.hasNot {
				if slices.Contains(got, n) {
					t.Errorf("counters %v have %s", got, n)
				}
			}
			rs, err := s.Sample(sampler.Target{Devices: []int{0, 1}, Procs: pairTarget.Procs})
			if err != nil {
				t.Fatal(err)
			}
			for name, v := range tt.dev1 {
				if got := value(t, s.Counters(), find(t, rs, 1, ""), name); !sameFloat(got, v) {
					t.Errorf("device 1 %s = %v, want %v", name, got, v)
				}
			}
			if w := s.Warnings(); len(w) != 0 {
				t.Errorf("unsupported counters raised warnings: %q", w)
			}
		})
	}
}

func TestNVMLReadsDevicesInTargetOrder(t *testing.T) {
	s := mustOpen(t, nvmlfake.NewH200(4), DefaultOptions)
	rs, err := s.Sample(sampler.Target{Devices: []int{3, 1}, Procs: map[string][]int{"a": {nvmlfake.PIDA}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, string(rune('0'+r.Device))+r.Workload)
	}
	if want := []string{"3", "3a", "1", "1a"}; !slices.Equal(got, want) {
		t.Errorf("readings %v, want %v", got, want)
	}
	if got := value(t, s.Counters(), rs[0], "temperature"); got != 43 {
		t.Errorf("device 3 temperature %v, want 43", got)
	}
	if _, err := s.Sample(sampler.Target{Devices: []int{7}}); err == nil || !strings.Contains(err.Error(), "device 7: no such device") {
		t.Errorf("unknown device: %v", err)
	}
	if _, err := s.Sample(sampler.Target{Devices: []int{1, 2, 1}}); err == nil || !strings.Contains(err.Error(), "device 1 is listed twice") {
		t.Errorf("device listed twice: %v", err)
	}
}

func TestNVMLResetRestartsGPMInterval(t *testing.T) {
	f := nvmlfake.NewH200(1)
	s := mustOpen(t, f, DefaultOptions)
	gpm := func() float64 {
		rs, err := s.Sample(pairTarget)
		if err != nil {
			t.Fatal(err)
		}
		f.Advance()
		return value(t, s.Counters(), rs[0], "gpm_sm_util")
	}
	got := []float64{gpm(), gpm()}
	s.Reset()
	got = append(got, gpm(), gpm())
	if !math.IsNaN(got[0]) || got[1] != 3 || !math.IsNaN(got[2]) || got[3] != 5 {
		t.Errorf("gpm_sm_util over ticks 0,1 | reset | 2,3 = %v, want NaN 3 NaN 5", got)
	}
}

func TestNVMLCloseShutsDownOnce(t *testing.T) {
	f := nvmlfake.NewH200(2)
	s, err := Open(f.Server, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(f.Server.ShutdownCalls()); n != 1 {
		t.Errorf("Shutdown called %d times, want 1", n)
	}
	if n := len(f.Server.GpmSampleFreeCalls()); n != 4 {
		t.Errorf("GpmSampleFree called %d times, want 4 (two samples on each of two devices)", n)
	}
	before := nvmlfake.TotalCalls(f.Server)
	if _, err := s.Sample(pairTarget); err == nil {
		t.Error("Sample after Close succeeded")
	}
	if after := nvmlfake.TotalCalls(f.Server); after != before {
		t.Errorf("Sample after Close made %d NVML calls", after-before)
	}
}

// TestNVMLWarnsOfSlowdowns: clocks held down by the board (too hot, a
// power brake) are warned of, one message per reason; a software power
// cap, which co-located jobs meet by sharing the power, is not.
func TestNVMLWarnsOfSlowdowns(t *testing.T) {
	f := nvmlfake.NewH200(1)
	dev := f.Server.Devices[0].(*server.Device)
	reasons := uint64(nvml.ClocksEventReasonSwPowerCap)
	dev.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) { return reasons, nvml.SUCCESS }
	s := mustOpen(t, f, DefaultOptions)
	for _, tc := range []struct {
		reasons uint64
		want    []string
	}{
		{nvml.ClocksEventReasonSwPowerCap | nvml.ClocksEventReasonGpuIdle, nil},
		{nvml.ClocksEventReasonSwPowerCap | nvml.ClocksEventReasonSwThermalSlowdown | nvml.ClocksThrottleReasonHwThermalSlowdown,
			[]string{"device 0: clocks held down by software thermal slowdown", "device 0: clocks held down by hardware thermal slowdown"}},
		{nvml.ClocksThrottleReasonHwSlowdown | nvml.ClocksThrottleReasonHwPowerBrakeSlowdown,
			[]string{"hardware slowdown (HW_SLOWDOWN", "hardware power-brake slowdown"}},
	} {
		reasons = tc.reasons
		if _, err := s.Sample(pairTarget); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range s.Warnings() {
			if strings.Contains(w, "clocks held down") {
				got = append(got, w)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("reasons %#x: warnings %q, want %d", tc.reasons, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("reasons %#x: warning %q, want %q", tc.reasons, got[i], w)
			}
		}
	}
}
