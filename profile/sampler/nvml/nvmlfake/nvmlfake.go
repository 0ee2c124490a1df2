package nvmlfake

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxa100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// Fake drives a DGX mock server through a scripted campaign. Server is
// the nvml.Interface to hand to the code under test. Set the fields before
// that code opens NVML; Advance may be called at any time.
type Fake struct {
	Server *server.Server

	mu   sync.Mutex // devices are read concurrently
	tick int

	// FailAll makes every device call fail with this return at these ticks.
	FailAll map[int]nvml.Return
	// FailCall makes one call fail with ERROR_UNKNOWN at a tick; calls are
	// named as in coloc's warnings: "GetPowerUsage",
	// "GetClockInfo(CLOCK_SM)", "GetPcieThroughput(TX)", "GpmSampleGet"...
	FailCall map[int]string
	// unsupported calls answer ERROR_NOT_SUPPORTED always, per device
	// (device -1: every device).
	unsupported map[int]map[string]bool
	// NoEventReasons hides nvmlDeviceGetCurrentClocksEventReasons (a
	// driver older than 535), so the throttle-reasons call must be used.
	NoEventReasons bool
	// ComputeModes overrides a device's compute mode (default: DEFAULT).
	ComputeModes map[int]nvml.ComputeMode
	gpm          bool
}

// Process IDs of the scripted campaign: workload "a" is PIDA, workload
// "b" is PIDB and its child PIDB2.
const (
	PIDA  = 101
	PIDB  = 102
	PIDB2 = 103
)

// NewH200 returns n scripted H200s (Hopper: GPM offered).
func NewH200(n int) *Fake {
	return New(dgxh200.NewWithGPUs(gpus.Multiple(n, gpus.H200_SXM5_141GB)...), true)
}

// NewA100 returns n scripted A100s (Ampere: no GPM).
func NewA100(n int) *Fake {
	return New(dgxa100.NewWithGPUs(gpus.Multiple(n, gpus.A100_SXM4_40GB)...), false)
}

// New scripts srv's devices; gpm says whether they offer GPM.
func New(srv *server.Server, gpm bool) *Fake {
	f := &Fake{Server: srv, FailAll: map[int]nvml.Return{}, FailCall: map[int]string{},
		unsupported: map[int]map[string]bool{}, ComputeModes: map[int]nvml.ComputeMode{}, gpm: gpm}
	srv.LookupSymbolFunc = func(symbol string) error {
		if f.NoEventReasons && symbol == "nvmlDeviceGetCurrentClocksEventReasons" {
			return errors.New("undefined symbol")
		}
		return nil
	}
	srv.GpmSampleAllocFunc = func() (nvml.GpmSample, nvml.Return) {
		return &mock.GpmSample{}, nvml.SUCCESS
	}
	srv.GpmSampleFreeFunc = func(nvml.GpmSample) nvml.Return { return nvml.SUCCESS }
	srv.GpmMetricsGetFunc = f.gpmMetrics
	for i, d := range srv.Devices {
		f.Script(d.(*server.Device), i)
	}
	return f
}

// Advance moves the campaign to its next tick.
func (f *Fake) Advance() {
	f.mu.Lock()
	f.tick++
	f.mu.Unlock()
}

// ret is the answer of call on device dev at the current tick.
func (f *Fake) ret(dev int, call string) nvml.Return {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unsupported[-1][call] || f.unsupported[dev][call] {
		return nvml.ERROR_NOT_SUPPORTED
	}
	if r, ok := f.FailAll[f.tick]; ok {
		return r
	}
	if f.FailCall[f.tick] == call {
		return nvml.ERROR_UNKNOWN
	}
	return nvml.SUCCESS
}

// Tick returns the current tick.
func (f *Fake) Tick() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tick
}

// Unsupport makes calls answer ERROR_NOT_SUPPORTED on device dev (-1:
// every device), as a board without the feature does.
func (f *Fake) Unsupport(dev int, calls ...string) {
	if f.unsupported[dev] == nil {
		f.unsupported[dev] = map[string]bool{}
	}
	for _, c := range calls {
		f.unsupported[dev][c] = true
	}
}

// GiB is 2^30 bytes.
const GiB = 1 << 30

// Script stubs device d, of index i, with a fixed UUID and these values at
// tick t:
//
//	utilisation 50+t % (GPU), 20+i % (memory); memory used (1+t) GiB;
//	clocks 1980 MHz (SM), 3201 MHz (memory); power 300+t W; temperature
//	40+i C; PCIe 1000 KiB/s sent, 2000 KiB/s received; clocks event reasons
//	0x4 (throttle reasons 0x10 on an old driver);
//	process utilisation: PIDA one sample (SM 60%, memory 30%), PIDB two
//	samples (SM 10% and 20%, memory 4% and 6%), stamped 1000*(t+1) µs, so a
//	query with the newest timestamp seen gets ERROR_NOT_FOUND until the
//	next tick; process memory PIDA 10 GiB, PIDB 4 GiB, PIDB2 1 GiB;
//	GPM metric of id m: m+t, NVLink metrics not supported; enforced power
//	limit 700 W with GPM (an H200's), else 400 W (an A100's); compute mode
//	DEFAULT unless ComputeModes says otherwise.
func (f *Fake) Script(d *server.Device, i int) {
	d.UUID = fmt.Sprintf("GPU-00000000-0000-0000-0000-%012d", i)
	d.GetComputeModeFunc = func() (nvml.ComputeMode, nvml.Return) {
		f.mu.Lock()
		m := f.ComputeModes[i]
		f.mu.Unlock()
		return m, f.ret(i, "GetComputeMode")
	}
	limit := uint32(400000) // mW: an A100 SXM4's
	if f.gpm {
		limit = 700000 // an H200 SXM5's
	}
	d.GetEnforcedPowerLimitFunc = func() (uint32, nvml.Return) { return limit, f.ret(i, "GetEnforcedPowerLimit") }
	d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
		return nvml.Utilization{Gpu: uint32(50 + f.Tick()), Memory: uint32(20 + i)}, f.ret(i, "GetUtilizationRates")
	}
	total := d.MemoryInfo.Total
	d.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) {
		used := uint64(1+f.Tick()) * GiB
		return nvml.Memory{Total: total, Used: used, Free: total - used}, f.ret(i, "GetMemoryInfo")
	}
	d.GetClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
		if c == nvml.CLOCK_SM {
			return 1980, f.ret(i, "GetClockInfo(CLOCK_SM)")
		}
		return 3201, f.ret(i, "GetClockInfo(CLOCK_MEM)")
	}
	d.GetPowerUsageFunc = func() (uint32, nvml.Return) {
		return uint32(300000 + 1000*f.Tick()), f.ret(i, "GetPowerUsage")
	}
	d.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) {
		return uint32(40 + i), f.ret(i, "GetTemperature(TEMPERATURE_GPU)")
	}
	d.GetPcieThroughputFunc = func(c nvml.PcieUtilCounter) (uint32, nvml.Return) {
		if c == nvml.PCIE_UTIL_TX_BYTES {
			return 1000, f.ret(i, "GetPcieThroughput(TX)")
		}
		return 2000, f.ret(i, "GetPcieThroughput(RX)")
	}
	d.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) {
		return 0x4, f.ret(i, "GetCurrentClocksEventReasons")
	}
	d.GetCurrentClocksThrottleReasonsFunc = func() (uint64, nvml.Return) {
		return 0x10, f.ret(i, "GetCurrentClocksThrottleReasons")
	}
	d.GetProcessUtilizationFunc = func(last uint64) ([]nvml.ProcessUtilizationSample, nvml.Return) {
		if r := f.ret(i, "GetProcessUtilization"); r != nvml.SUCCESS {
			return nil, r
		}
		ts := uint64(1000 * (f.Tick() + 1))
		if last >= ts {
			return nil, nvml.ERROR_NOT_FOUND
		}
		return []nvml.ProcessUtilizationSample{
			{Pid: PIDA, TimeStamp: ts, SmUtil: 60, MemUtil: 30},
			{Pid: PIDB, TimeStamp: ts - 500, SmUtil: 10, MemUtil: 4},
			{Pid: PIDB, TimeStamp: ts, SmUtil: 20, MemUtil: 6},
		}, nvml.SUCCESS
	}
	d.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
		return []nvml.ProcessInfo{
			{Pid: PIDA, UsedGpuMemory: 10 * GiB},
			{Pid: PIDB, UsedGpuMemory: 4 * GiB},
			{Pid: PIDB2, UsedGpuMemory: 1 * GiB},
		}, f.ret(i, "GetComputeRunningProcesses")
	}
	d.GpmQueryDeviceSupportFunc = func() (nvml.GpmSupport, nvml.Return) {
		s := nvml.GpmSupport{Version: nvml.GPM_SUPPORT_VERSION}
		if f.gpm {
			s.IsSupportedDevice = 1
		}
		return s, f.ret(i, "GpmQueryDeviceSupport")
	}
	d.GpmSampleGetFunc = func(nvml.GpmSample) nvml.Return { return f.ret(i, "GpmSampleGet") }
}

// gpmMetrics answers GpmMetricsGet: metric id m reads m+tick, except the
// NVLink metrics, which a single-GPU board does not offer.
func (f *Fake) gpmMetrics(m *nvml.GpmMetricsGetType) nvml.Return {
	if r := f.ret(-1, "GpmMetricsGet"); r != nvml.SUCCESS {
		return r
	}
	if m.Sample1 == nil || m.Sample2 == nil || m.Sample1 == m.Sample2 {
		return nvml.ERROR_INVALID_ARGUMENT
	}
	t := f.Tick()
	for i := 0; i < int(m.NumMetrics); i++ {
		id := nvml.GpmMetricId(m.Metrics[i].MetricId)
		if id == nvml.GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC || id == nvml.GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC {
			m.Metrics[i].NvmlReturn = uint32(nvml.ERROR_NOT_SUPPORTED)
			continue
		}
		m.Metrics[i].NvmlReturn = uint32(nvml.SUCCESS)
		m.Metrics[i].Value = float64(int(id) + t)
	}
	return nvml.SUCCESS
}

// TotalCalls counts every call a go-nvml mock (an Interface, a Device...)
// recorded, through its generated XxxCalls methods.
func TotalCalls(m any) int {
	v := reflect.ValueOf(m)
	n := 0
	for i := 0; i < v.NumMethod(); i++ {
		name := v.Type().Method(i).Name
		if !strings.HasSuffix(name, "Calls") || v.Method(i).Type().NumIn() != 0 {
			continue
		}
		n += v.Method(i).Call(nil)[0].Len()
	}
	return n
}
