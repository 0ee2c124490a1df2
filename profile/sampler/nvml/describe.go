package nvml

import (
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/coloc-dev/coloc/profile/sampler"
)

func describeDevice(h nvml.Device, i int) sampler.Device {
	d := sampler.Device{Index: i}
	if v, r := h.GetName(); r == nvml.SUCCESS {
		d.Name = v
	}
	if v, r := h.GetUUID(); r == nvml.SUCCESS {
		d.UUID = v
	}
	if m, r := h.GetMemoryInfo(); r == nvml.SUCCESS {
		d.MemoryTotal = m.Total
	}
	if a, r := h.GetArchitecture(); r == nvml.SUCCESS {
		d.Architecture = archName(a)
	}
	if major, minor, r := h.GetCudaComputeCapability(); r == nvml.SUCCESS {
		d.ComputeCapability = fmt.Sprintf("%d.%d", major, minor)
	}
	if m, r := h.GetComputeMode(); r == nvml.SUCCESS {
		d.ComputeMode = computeModeName(m)
	}
	if mw, r := h.GetEnforcedPowerLimit(); r == nvml.SUCCESS {
		d.PowerLimitW = float64(mw) / 1000
	}
	d.Type = sampler.DeviceType(d.Name)
	return d
}

// computeModes name NVML's compute modes as sampler.Device does.
var computeModes = map[nvml.ComputeMode]string{
	nvml.COMPUTEMODE_DEFAULT:           "default",
	nvml.COMPUTEMODE_EXCLUSIVE_THREAD:  "exclusive_thread",
	nvml.COMPUTEMODE_PROHIBITED:        "prohibited",
	nvml.COMPUTEMODE_EXCLUSIVE_PROCESS: "exclusive_process",
}

// computeModeName names an NVML compute mode (computeModes).
func computeModeName(m nvml.ComputeMode) string {
	if name, ok := computeModes[m]; ok {
		return name
	}
	return fmt.Sprintf("unknown (%d)", m)
}

func archName(a nvml.DeviceArchitecture) string {
	switch a {
	case nvml.DEVICE_ARCH_KEPLER:
		return "kepler"
	case nvml.DEVICE_ARCH_MAXWELL:
		return "maxwell"
	case nvml.DEVICE_ARCH_PASCAL:
		return "pascal"
	case nvml.DEVICE_ARCH_VOLTA:
		return "volta"
	case nvml.DEVICE_ARCH_TURING:
		return "turing"
	case nvml.DEVICE_ARCH_AMPERE:
		return "ampere"
	case nvml.DEVICE_ARCH_ADA:
		return "ada"
	case nvml.DEVICE_ARCH_HOPPER:
		return "hopper"
	case nvml.DEVICE_ARCH_BLACKWELL:
		return "blackwell"
	case nvml.DEVICE_ARCH_RUBIN:
		return "rubin"
	}
	return "unknown"
}
