package profile

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

// fakeGPU drives go-nvml's DGX mock servers through a scripted campaign:
// the test advances tick, and every counter is a known function of the
// tick and the device index, so tests assert exact values. Calls the DGX
// mocks do not script (utilisation, clocks, power, per-process, GPM) are
// stubbed through the mock's function fields here.
type fakeGPU struct {
	srv *server.Server

	mu   sync.Mutex // devices are read concurrently
	tick int

	// failAll makes every device call fail with this return at these ticks.
	failAll map[int]nvml.Return
	// failCall makes one call (by deviceQuery.call name) fail at a tick.
	failCall map[int]string
	// unsupported calls answer ERROR_NOT_SUPPORTED always, per device
	// (device -1: every device).
	unsupported map[int]map[string]bool
	// noEventReasons hides nvmlDeviceGetCurrentClocksEventReasons (an old
	// driver), so the sampler must use the throttle-reasons call.
	noEventReasons bool
	gpm            bool
}

// Process IDs of the scripted campaign: workload "a" is 101, workload "b"
// is 102 and its child 103.
const (
	pidA  = 101
	pidB  = 102
	pidB2 = 103
)

func newFakeH200(n int) *fakeGPU {
	return newFake(dgxh200.NewWithGPUs(gpus.Multiple(n, gpus.H200_SXM5_141GB)...), true)
}

func newFakeA100(n int) *fakeGPU {
	return newFake(dgxa100.NewWithGPUs(gpus.Multiple(n, gpus.A100_SXM4_40GB)...), false)
}

func newFake(srv *server.Server, gpm bool) *fakeGPU {
	f := &fakeGPU{srv: srv, failAll: map[int]nvml.Return{}, failCall: map[int]string{},
		unsupported: map[int]map[string]bool{}, gpm: gpm}
	srv.LookupSymbolFunc = func(symbol string) error {
		if f.noEventReasons && symbol == "nvmlDeviceGetCurrentClocksEventReasons" {
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
		f.script(d.(*server.Device), i)
	}
	return f
}

func (f *fakeGPU) advance() {
	f.mu.Lock()
	f.tick++
	f.mu.Unlock()
}

// ret is the answer of call on device dev at the current tick.
func (f *fakeGPU) ret(dev int, call string) nvml.Return {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unsupported[-1][call] || f.unsupported[dev][call] {
		return nvml.ERROR_NOT_SUPPORTED
	}
	if r, ok := f.failAll[f.tick]; ok {
		return r
	}
	if f.failCall[f.tick] == call {
		return nvml.ERROR_UNKNOWN
	}
	return nvml.SUCCESS
}

func (f *fakeGPU) now() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tick
}

func (f *fakeGPU) unsupport(dev int, calls ...string) {
	if f.unsupported[dev] == nil {
		f.unsupported[dev] = map[string]bool{}
	}
	for _, c := range calls {
		f.unsupported[dev][c] = true
	}
}

const gib = 1 << 30

// Scripted values, as functions of tick t and device index i:
//
//	gpu_util 50+t %, mem_util 20+i %, mem_used (1+t) GiB, sm_clock 1980,
//	mem_clock 3201, power 300+t W, temperature 40+i C, pcie 1000/2000 KiB/s,
//	reasons 0x4; per process: pid 101 one sample (60%, 30%), pid 102 two
//	samples (10%, 20% SM; 4%, 6% memory) per tick, stamped 1000*(t+1) µs;
//	memory 101: 10 GiB, 102: 4 GiB, 103: 1 GiB; GPM metric id m: m+t.
func (f *fakeGPU) script(d *server.Device, i int) {
	d.UUID = fmt.Sprintf("GPU-00000000-0000-0000-0000-%012d", i)
	d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
		return nvml.Utilization{Gpu: uint32(50 + f.now()), Memory: uint32(20 + i)}, f.ret(i, "GetUtilizationRates")
	}
	total := d.MemoryInfo.Total
	d.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) {
		used := uint64(1+f.now()) * gib
		return nvml.Memory{Total: total, Used: used, Free: total - used}, f.ret(i, "GetMemoryInfo")
	}
	d.GetClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
		if c == nvml.CLOCK_SM {
			return 1980, f.ret(i, "GetClockInfo(CLOCK_SM)")
		}
		return 3201, f.ret(i, "GetClockInfo(CLOCK_MEM)")
	}
	d.GetPowerUsageFunc = func() (uint32, nvml.Return) {
		return uint32(300000 + 1000*f.now()), f.ret(i, "GetPowerUsage")
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
		return 0x8, f.ret(i, "GetCurrentClocksThrottleReasons")
	}
	d.GetProcessUtilizationFunc = func(last uint64) ([]nvml.ProcessUtilizationSample, nvml.Return) {
		if r := f.ret(i, "GetProcessUtilization"); r != nvml.SUCCESS {
			return nil, r
		}
		ts := uint64(1000 * (f.now() + 1))
		if last >= ts {
			return nil, nvml.ERROR_NOT_FOUND
		}
		return []nvml.ProcessUtilizationSample{
			{Pid: pidA, TimeStamp: ts, SmUtil: 60, MemUtil: 30},
			{Pid: pidB, TimeStamp: ts - 500, SmUtil: 10, MemUtil: 4},
			{Pid: pidB, TimeStamp: ts, SmUtil: 20, MemUtil: 6},
		}, nvml.SUCCESS
	}
	d.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
		return []nvml.ProcessInfo{
			{Pid: pidA, UsedGpuMemory: 10 * gib},
			{Pid: pidB, UsedGpuMemory: 4 * gib},
			{Pid: pidB2, UsedGpuMemory: 1 * gib},
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
func (f *fakeGPU) gpmMetrics(m *nvml.GpmMetricsGetType) nvml.Return {
	if r := f.ret(-1, "GpmMetricsGet"); r != nvml.SUCCESS {
		return r
	}
	if m.Sample1 == nil || m.Sample2 == nil || m.Sample1 == m.Sample2 {
		return nvml.ERROR_INVALID_ARGUMENT
	}
	t := f.now()
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

// totalCalls counts every call a go-nvml mock recorded, through its
// generated XxxCalls methods.
func totalCalls(m any) int {
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
