package main

import (
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/profile"
)

func TestSelectGPUs(t *testing.T) {
	four := []profile.Device{
		{Index: 0, Type: "h200", UUID: "GPU-aaaa0000"}, {Index: 1, Type: "h200", UUID: "GPU-bbbb1111"},
		{Index: 2, Type: "h200", UUID: "GPU-cccc2222"}, {Index: 3, Type: "h200", UUID: "GPU-dddd3333"},
	}
	tests := []struct {
		name     string
		found    []profile.Device
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
		devs, note, err := selectGPUs(tc.found, tc.n, tc.cvd, tc.set)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = deviceIndices(devs)
		}
		if !strings.Contains(got, tc.want) || (err == nil) != (got == tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
		if !strings.Contains(note, tc.wantNote) || (tc.set && err == nil && note == "") || (!tc.set && note != "") {
			t.Errorf("%s: note %q, want one with %q", tc.name, note, tc.wantNote)
		}
	}
}
