package sampler

import "github.com/coloc-dev/coloc/datasets"

// Units of the counters. Every counter a sampler fills carries one of these
// in its datasets.Counter, and so in the field metadata of samples.arrow.
const (
	UnitPercent = "%"
	UnitMHz     = "MHz"
	UnitWatts   = "W"
	UnitCelsius = "C"
	UnitBytes   = datasets.UnitBytes // "bytes"
	UnitBytesPS = "bytes/s"
	UnitBitmask = "bitmask"
	UnitSeconds = datasets.UnitSeconds // "s"
)

// Counters of the NVML sampler, one row per device and tick (device
// counters, GPM) or per workload, device and tick (proc_*).
var (
	CounterGPUUtil       = datasets.Counter{Name: "gpu_util", Unit: UnitPercent}
	CounterMemUtil       = datasets.Counter{Name: "mem_util", Unit: UnitPercent}
	CounterMemUsed       = datasets.Counter{Name: "mem_used", Unit: UnitBytes}
	CounterMemTotal      = datasets.Counter{Name: "mem_total", Unit: UnitBytes}
	CounterSMClock       = datasets.Counter{Name: "sm_clock", Unit: UnitMHz}
	CounterMemClock      = datasets.Counter{Name: "mem_clock", Unit: UnitMHz}
	CounterPower         = datasets.Counter{Name: "power", Unit: UnitWatts}
	CounterTemperature   = datasets.Counter{Name: "temperature", Unit: UnitCelsius}
	CounterPCIeTX        = datasets.Counter{Name: "pcie_tx", Unit: UnitBytesPS}
	CounterPCIeRX        = datasets.Counter{Name: "pcie_rx", Unit: UnitBytesPS}
	CounterClockReasons  = datasets.Counter{Name: "clock_event_reasons", Unit: UnitBitmask}
	CounterProcSMUtil    = datasets.Counter{Name: "proc_sm_util", Unit: UnitPercent}
	CounterProcMemUtil   = datasets.Counter{Name: "proc_mem_util", Unit: UnitPercent}
	CounterProcMemUsed   = datasets.Counter{Name: "proc_mem_used", Unit: UnitBytes}
	CounterGPMSMUtil     = datasets.Counter{Name: "gpm_sm_util", Unit: UnitPercent}
	CounterGPMOccupancy  = datasets.Counter{Name: "gpm_sm_occupancy", Unit: UnitPercent}
	CounterGPMTensorUtil = datasets.Counter{Name: "gpm_tensor_util", Unit: UnitPercent}
	CounterGPMHMMAUtil   = datasets.Counter{Name: "gpm_hmma_util", Unit: UnitPercent}
	CounterGPMDRAMBW     = datasets.Counter{Name: "gpm_dram_bw_util", Unit: UnitPercent}
	CounterGPMFP16Util   = datasets.Counter{Name: "gpm_fp16_util", Unit: UnitPercent}
	CounterGPMFP32Util   = datasets.Counter{Name: "gpm_fp32_util", Unit: UnitPercent}
	CounterGPMFP64Util   = datasets.Counter{Name: "gpm_fp64_util", Unit: UnitPercent}
	CounterGPMPCIeTX     = datasets.Counter{Name: "gpm_pcie_tx", Unit: UnitBytesPS}
	CounterGPMPCIeRX     = datasets.Counter{Name: "gpm_pcie_rx", Unit: UnitBytesPS}
	CounterGPMNVLinkTX   = datasets.Counter{Name: "gpm_nvlink_tx", Unit: UnitBytesPS}
	CounterGPMNVLinkRX   = datasets.Counter{Name: "gpm_nvlink_rx", Unit: UnitBytesPS}
)

// Counters of the host sampler, one row per workload and tick.
var (
	CounterCPUUtil = datasets.Counter{Name: "cpu_util", Unit: UnitPercent}
	CounterCPUTime = datasets.Counter{Name: "cpu_time", Unit: UnitSeconds}
	CounterRSS     = datasets.Counter{Name: "rss", Unit: UnitBytes}
)

// counterDocs says in one line what each counter measures; `coloc devices`
// prints it and doc.go repeats it.
var counterDocs = map[string]string{
	"gpu_util":            "time one or more kernels ran, over NVML's last sample period",
	"mem_util":            "time device memory was read or written, over NVML's last sample period",
	"mem_used":            "device memory in use (all processes)",
	"mem_total":           "device memory installed",
	"sm_clock":            "current SM clock",
	"mem_clock":           "current memory clock",
	"power":               "board power draw",
	"temperature":         "GPU core temperature",
	"pcie_tx":             "PCIe bytes sent by the GPU (20 ms window per read)",
	"pcie_rx":             "PCIe bytes received by the GPU (20 ms window per read)",
	"clock_event_reasons": "why clocks are held down (NVML clocks event reason bits)",
	"proc_sm_util":        "SM utilisation of the workload's processes (GetProcessUtilization)",
	"proc_mem_util":       "memory-controller utilisation of the workload's processes",
	"proc_mem_used":       "device memory used by the workload's processes",
	"gpm_sm_util":         "GPM: SMs busy over the tick",
	"gpm_sm_occupancy":    "GPM: active warps vs theoretical maximum",
	"gpm_tensor_util":     "GPM: time SMs ran any tensor operation",
	"gpm_hmma_util":       "GPM: time SMs ran HMMA (half-precision) tensor operations",
	"gpm_dram_bw_util":    "GPM: DRAM bandwidth used vs theoretical maximum",
	"gpm_fp16_util":       "GPM: time SMs ran non-tensor FP16 math",
	"gpm_fp32_util":       "GPM: time SMs ran non-tensor FP32 math",
	"gpm_fp64_util":       "GPM: time SMs ran non-tensor FP64 math",
	"gpm_pcie_tx":         "GPM: PCIe bytes sent by the GPU over the tick",
	"gpm_pcie_rx":         "GPM: PCIe bytes received by the GPU over the tick",
	"gpm_nvlink_tx":       "GPM: NVLink bytes written, all links, over the tick",
	"gpm_nvlink_rx":       "GPM: NVLink bytes read, all links, over the tick",
	"cpu_util":            "CPU time of the workload's processes over the tick (100 = one core)",
	"cpu_time":            "CPU time (user+system) of the workload's live processes since they started",
	"rss":                 "resident memory of the workload's processes",
}

// CounterDoc returns a one-line description of a counter of this package,
// or "" for a name it does not define.
func CounterDoc(name string) string { return counterDocs[name] }
