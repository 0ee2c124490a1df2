package nvml

import (
	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile/sampler"
)

// deviceQuery is one NVML call that fills one or more device counters.
// Scales of the raw NVML readings: PCIe throughput comes in KiB/s, GPM
// link rates in MiB/s, power in mW.
const (
	kibibyte     = 1024
	mebibyte     = 1024 * 1024
	milliPerUnit = 1000
)

type deviceQuery struct {
	call     string // the NVML call, named in warnings
	counters []datasets.Counter
	read     func(h nvml.Device, v []float64) nvml.Return
}

func counters(cs ...datasets.Counter) []datasets.Counter { return cs }

var (
	queryUtilization = deviceQuery{"GetUtilizationRates", counters(sampler.CounterGPUUtil, sampler.CounterMemUtil),
		func(h nvml.Device, v []float64) nvml.Return {
			u, r := h.GetUtilizationRates()
			v[0], v[1] = float64(u.Gpu), float64(u.Memory)
			return r
		}}
	queryMemory = deviceQuery{"GetMemoryInfo", counters(sampler.CounterMemUsed, sampler.CounterMemTotal),
		func(h nvml.Device, v []float64) nvml.Return {
			m, r := h.GetMemoryInfo()
			v[0], v[1] = float64(m.Used), float64(m.Total)
			return r
		}}
	querySMClock = deviceQuery{"GetClockInfo(CLOCK_SM)", counters(sampler.CounterSMClock),
		func(h nvml.Device, v []float64) nvml.Return {
			c, r := h.GetClockInfo(nvml.CLOCK_SM)
			v[0] = float64(c)
			return r
		}}
	queryMemClock = deviceQuery{"GetClockInfo(CLOCK_MEM)", counters(sampler.CounterMemClock),
		func(h nvml.Device, v []float64) nvml.Return {
			c, r := h.GetClockInfo(nvml.CLOCK_MEM)
			v[0] = float64(c)
			return r
		}}
	queryPower = deviceQuery{"GetPowerUsage", counters(sampler.CounterPower),
		func(h nvml.Device, v []float64) nvml.Return {
			mw, r := h.GetPowerUsage()
			v[0] = float64(mw) / milliPerUnit
			return r
		}}
	queryTemperature = deviceQuery{"GetTemperature(TEMPERATURE_GPU)", counters(sampler.CounterTemperature),
		func(h nvml.Device, v []float64) nvml.Return {
			t, r := h.GetTemperature(nvml.TEMPERATURE_GPU)
			v[0] = float64(t)
			return r
		}}
	queryPCIeTX = deviceQuery{"GetPcieThroughput(TX)", counters(sampler.CounterPCIeTX),
		func(h nvml.Device, v []float64) nvml.Return {
			kb, r := h.GetPcieThroughput(nvml.PCIE_UTIL_TX_BYTES)
			v[0] = float64(kb) * kibibyte
			return r
		}}
	queryPCIeRX = deviceQuery{"GetPcieThroughput(RX)", counters(sampler.CounterPCIeRX),
		func(h nvml.Device, v []float64) nvml.Return {
			kb, r := h.GetPcieThroughput(nvml.PCIE_UTIL_RX_BYTES)
			v[0] = float64(kb) * kibibyte
			return r
		}}
	// NVML renamed throttle reasons to clocks event reasons (driver 535);
	// older drivers have only the first name, and calling a symbol the
	// library lacks crashes, so the choice is made by symbol lookup.
	queryEventReasons = deviceQuery{"GetCurrentClocksEventReasons", counters(sampler.CounterClockReasons),
		func(h nvml.Device, v []float64) nvml.Return {
			b, r := h.GetCurrentClocksEventReasons()
			v[0] = float64(b)
			return r
		}}
	queryThrottleReasons = deviceQuery{"GetCurrentClocksThrottleReasons", counters(sampler.CounterClockReasons),
		func(h nvml.Device, v []float64) nvml.Return {
			b, r := h.GetCurrentClocksThrottleReasons()
			v[0] = float64(b)
			return r
		}}
)

// gpmMetrics are the GPM metrics read on Hopper and newer, with the factor
// that converts NVML's unit to the counter's (MiB/s to bytes/s).
var gpmMetrics = []struct {
	id    nvml.GpmMetricId
	c     datasets.Counter
	scale float64
}{
	{nvml.GPM_METRIC_SM_UTIL, sampler.CounterGPMSMUtil, 1},
	{nvml.GPM_METRIC_SM_OCCUPANCY, sampler.CounterGPMOccupancy, 1},
	{nvml.GPM_METRIC_ANY_TENSOR_UTIL, sampler.CounterGPMTensorUtil, 1},
	{nvml.GPM_METRIC_HMMA_TENSOR_UTIL, sampler.CounterGPMHMMAUtil, 1},
	{nvml.GPM_METRIC_DRAM_BW_UTIL, sampler.CounterGPMDRAMBW, 1},
	{nvml.GPM_METRIC_FP16_UTIL, sampler.CounterGPMFP16Util, 1},
	{nvml.GPM_METRIC_FP32_UTIL, sampler.CounterGPMFP32Util, 1},
	{nvml.GPM_METRIC_FP64_UTIL, sampler.CounterGPMFP64Util, 1},
	{nvml.GPM_METRIC_PCIE_TX_PER_SEC, sampler.CounterGPMPCIeTX, mebibyte},
	{nvml.GPM_METRIC_PCIE_RX_PER_SEC, sampler.CounterGPMPCIeRX, mebibyte},
	{nvml.GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, sampler.CounterGPMNVLinkTX, mebibyte},
	{nvml.GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, sampler.CounterGPMNVLinkRX, mebibyte},
}

// allNVMLCounters lists every counter the NVML sampler can fill, in the
// order of its Counters.
func allNVMLCounters() []datasets.Counter {
	var out []datasets.Counter
	for _, q := range []deviceQuery{queryUtilization, queryMemory, querySMClock, queryMemClock,
		queryPower, queryTemperature, queryPCIeTX, queryPCIeRX, queryEventReasons} {
		out = append(out, q.counters...)
	}
	out = append(out, sampler.CounterProcSMUtil, sampler.CounterProcMemUtil, sampler.CounterProcMemUsed)
	for _, m := range gpmMetrics {
		out = append(out, m.c)
	}
	return out
}
