package profile

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/profile/sampler"
)

func TestSelectGPUs(t *testing.T) {
	four := []Device{
		{Index: 0, Type: "h200", UUID: "GPU-aaaa0000"}, {Index: 1, Type: "h200", UUID: "GPU-bbbb1111"},
		{Index: 2, Type: "h200", UUID: "GPU-cccc2222"}, {Index: 3, Type: "h200", UUID: "GPU-dddd3333"},
	}
	tests := []struct {
		name     string
		found    []Device
		n        int
		cvd      string
		set      bool
		want     string // indices chosen, or the error
		wantNote string
	}{
		{"unset: all", four, 0, "", false, "0,1,2,3", ""},
		{"unset: first 2", four, 2, "", false, "0,1", ""},
		{"Slurm gives 2 and 3", four, 0, "2,3", true, "2,3", "using GPUs 2,3"},
		{"order kept", four, 0, "3,1", true, "3,1", ""},
		{"--gpus of the visible", four, 1, "2,3", true, "2", ""},
		{"by UUID prefix", four, 0, "GPU-cccc", true, "2", ""},
		{"renumbered by a cgroup", four[:2], 0, "5,6", true, "0,1", "renumbered"},
		{"too few visible", four, 3, "2,3", true, "--gpus 3: only 2 GPUs visible", ""},
		{"unknown index", four, 0, "7", true, "GPU 7 is not among the 4 GPUs", ""},
		{"MIG", four, 0, "MIG-1234", true, "MIG instances are not supported", ""},
		{"empty", four, 0, "", true, "hides every GPU", ""},
		{"twice", four, 0, "1,1", true, "names GPU 1 twice", ""},
		{"negative", four, -1, "", false, "--gpus -1", ""},
	}
	for _, tc := range tests {
		devs, note, err := SelectGPUs(tc.found, tc.n, tc.cvd, tc.set)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = DeviceIndices(devs)
		}
		if !strings.Contains(got, tc.want) || (err == nil) != (got == tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
		if !strings.Contains(note, tc.wantNote) || (tc.set && err == nil && note == "") || (!tc.set && note != "") {
			t.Errorf("%s: note %q, want one with %q", tc.name, note, tc.wantNote)
		}
	}
}

// Without a GPU, a campaign falls back to the CPU unless --device cuda
// asks for one; a device kind other than cuda or cpu is refused.
func TestOpenMachineWithoutGPU(t *testing.T) {
	noGPU := func() (sampler.GPU, error) { return nil, errors.New("no driver here") }
	m, err := OpenMachine(noGPU, "")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Kind != "cpu" || len(m.Hardware.Devices) != 1 || m.Hardware.Devices[0].Type != "cpu" {
		t.Errorf("kind %q, devices %+v: want one cpu device", m.Kind, m.Hardware.Devices)
	}
	if !slices.ContainsFunc(m.Warnings(), func(w string) bool { return strings.Contains(w, "no driver here") }) {
		t.Errorf("warnings %q do not say why there are no GPU counters", m.Warnings())
	}
	if _, err := OpenMachine(noGPU, "cuda"); err == nil || !strings.Contains(err.Error(), "no GPU found (") {
		t.Errorf("--device cuda without a GPU: error %v", err)
	}
	if _, err := OpenMachine(noGPU, "tpu"); err == nil || !strings.Contains(err.Error(), `--device "tpu"`) {
		t.Errorf("--device tpu: error %v", err)
	}
}
