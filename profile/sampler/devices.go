package sampler

import (
	"regexp"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
)

// Device describes one GPU as NVML reported it when the sampler opened.
type Device struct {
	Index int    `json:"index"` // NVML index (PCI bus order)
	Name  string `json:"name"`  // e.g. "NVIDIA H200"
	UUID  string `json:"uuid"`
	// Type is the normalized device type name used in the datasets'
	// device_type columns (see DeviceType), e.g. "h200".
	Type              string `json:"type"`
	MemoryTotal       uint64 `json:"memory_total_bytes"`
	Architecture      string `json:"architecture"`       // e.g. "hopper"
	ComputeCapability string `json:"compute_capability"` // e.g. "9.0"
	// ComputeMode is NVML's compute mode: "default" (any number of
	// processes), "exclusive_process" (one process; MPS clients count as
	// the server's), "prohibited" (none); "" when NVML did not say.
	ComputeMode string `json:"compute_mode,omitempty"`
	// PowerLimitW is the power limit the driver enforces, in watts (0:
	// unknown). Runs on boards capped differently are not comparable.
	PowerLimitW float64 `json:"power_limit_w,omitempty"`
	System      System  `json:"system"`
	// GPM says whether the device offers GPM metrics (Hopper and newer).
	GPM bool `json:"gpm"`
	// Counters are the counters this device offers, device-wide ones first.
	Counters []datasets.Counter `json:"counters"`
	// Unsupported lists the NVML calls (or "GPM") the device answered
	// ERROR_NOT_SUPPORTED to; their counters read NaN on it.
	Unsupported []string `json:"unsupported,omitempty"`
	// Notes are problems met at open (a probe that failed otherwise).
	Notes []string `json:"notes,omitempty"`
}

// System describes the driver NVML talks to.
type System struct {
	Driver     string `json:"driver"`      // e.g. 550.54.15
	CUDADriver string `json:"cuda_driver"` // highest CUDA version the driver supports, e.g. 12.4
	NVML       string `json:"nvml"`        // NVML library version
}

// brandWords are dropped from a device name before it becomes a type.
var brandWords = map[string]bool{"nvidia": true, "tesla": true, "geforce": true, "quadro": true}

// specWord matches a word that starts the form-factor or memory part of a
// name: "80GB", "141GB", "HBM3e", "PCIe", "SXM5", "NVL", "MIG".
var specWord = regexp.MustCompile(`^(\d+gb|hbm\d*e?|pcie|sxm\d*|nvl|mig|dgxs|max-q|mobile|laptop)$`)

// DeviceType turns an NVML device name into the short type name the
// datasets use, so measurements of one model from different boards and
// drivers group together:
//
//  1. lower-case the name and split it into words;
//  2. drop the brand words nvidia, tesla, geforce and quadro;
//  3. cut each word at its first '-' ("v100-sxm2-16gb" -> "v100") and stop
//     at that word;
//  4. stop before the first form-factor or memory word (80gb, hbm3e, pcie,
//     sxm5, nvl, ...);
//  5. join what is left without spaces.
//
// "NVIDIA H200" -> "h200", "Tesla V100-SXM2-16GB" -> "v100", "NVIDIA
// A100-SXM4-80GB" -> "a100", "NVIDIA H100 80GB HBM3" -> "h100", "NVIDIA
// GeForce RTX 3090" -> "rtx3090", "Quadro RTX 6000" -> "rtx6000". Form
// factors of one model (H100 PCIe and SXM) share a type; a campaign that
// must keep them apart names the type itself. An empty or all-brand name
// gives "unknown".
func DeviceType(name string) string {
	var kept []string
	for _, w := range strings.Fields(strings.ToLower(name)) {
		if brandWords[w] {
			continue
		}
		if specWord.MatchString(w) {
			break
		}
		if i := strings.IndexByte(w, '-'); i >= 0 {
			if i > 0 {
				kept = append(kept, w[:i])
			}
			break
		}
		kept = append(kept, w)
	}
	if len(kept) == 0 {
		return "unknown"
	}
	return strings.Join(kept, "")
}
