package sampler

import "testing"

func TestDeviceType(t *testing.T) {
	tests := map[string]string{
		"NVIDIA H200":                "h200",
		"NVIDIA H200 141GB HBM3e":    "h200",
		"Tesla V100-SXM2-16GB":       "v100",
		"Tesla K80":                  "k80",
		"Tesla P100-PCIE-16GB":       "p100",
		"NVIDIA A100-SXM4-80GB":      "a100",
		"NVIDIA A100 80GB PCIe":      "a100",
		"NVIDIA H100 80GB HBM3":      "h100",
		"NVIDIA H100 NVL":            "h100",
		"NVIDIA GeForce RTX 3090":    "rtx3090",
		"NVIDIA GeForce RTX 4090 D":  "rtx4090d",
		"Quadro RTX 6000":            "rtx6000",
		"NVIDIA RTX A6000":           "rtxa6000",
		"NVIDIA A10G":                "a10g",
		"Tesla T4":                   "t4",
		"NVIDIA L4":                  "l4",
		"NVIDIA GH200 480GB":         "gh200",
		"NVIDIA B200":                "b200",
		"NVIDIA TITAN Xp":            "titanxp",
		"NVIDIA A100-SXM4-40GB MIG":  "a100",
		"  nvidia   h100  ":          "h100",
		"NVIDIA":                     "unknown",
		"":                           "unknown",
		"NVIDIA H100 PCIe":           "h100",
		"NVIDIA GeForce GTX 1080 Ti": "gtx1080ti",
	}
	for name, want := range tests {
		if got := DeviceType(name); got != want {
			t.Errorf("DeviceType(%q) = %q, want %q", name, got, want)
		}
	}
}
