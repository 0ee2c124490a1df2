//go:build cgo

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/coloc-dev/coloc/profile/sampler"
	"github.com/coloc-dev/coloc/profile/sampler/nvml/nvmlfake"
)

func TestDevices(t *testing.T) {
	tests := []struct {
		name string
		lib  func() nvml.Interface
		want []string // in the text output
	}{
		{
			name: "no-driver",
			lib: func() nvml.Interface {
				return &mock.Interface{InitFunc: func() nvml.Return { return nvml.ERROR_LIBRARY_NOT_FOUND }}
			},
			want: []string{"GPUs: none. NVML init failed: ERROR_LIBRARY_NOT_FOUND", "cpu_util  %"},
		},
		{
			name: "h200x2",
			lib: func() nvml.Interface {
				f := nvmlfake.NewH200(2)
				f.Unsupport(1, "GetPowerUsage")
				return f.Server
			},
			want: []string{"GPUs: 2 (driver 550.54.15, CUDA 12.4", "Device 1 does not support: GetPowerUsage"},
		},
		{
			name: "a100x2",
			lib:  func() nvml.Interface { return nvmlfake.NewA100(2).Server },
			want: []string{"a100", "pcie_tx"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib := tt.lib()
			m := withNVML(t, lib)
			text, _ := m.mustRun("devices")
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q", w)
				}
			}
			golden(t, filepath.Join("testdata", "devices-"+tt.name+".txt"), text)

			js, _ := m.mustRun("devices", "--json")
			var doc sampler.Listing
			if err := json.Unmarshal([]byte(js), &doc); err != nil {
				t.Fatalf("--json output does not parse: %v", err)
			}
			if doc.Version != 1 || !doc.Host.Available || len(doc.Host.Counters) != 3 {
				t.Errorf("--json: version %d, host %v with %d counters", doc.Version, doc.Host.Available, len(doc.Host.Counters))
			}
			golden(t, filepath.Join("testdata", "devices-"+tt.name+".json"), js)
		})
	}
}

// TestDevicesNoCallAfterFailedInit: two runs of `coloc devices` on a
// machine whose Init fails make two Init calls and nothing else.
func TestDevicesNoCallAfterFailedInit(t *testing.T) {
	m := &mock.Interface{InitFunc: func() nvml.Return { return nvml.ERROR_DRIVER_NOT_LOADED }}
	fake := withNVML(t, m)
	fake.mustRun("devices")
	fake.mustRun("devices", "--json")
	if n := nvmlfake.TotalCalls(m); n != 2 {
		t.Errorf("NVML saw %d calls, want the 2 Inits", n)
	}
}
