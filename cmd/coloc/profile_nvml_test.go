//go:build cgo

package main

import (
	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/coloc-dev/coloc/profile/sampler"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile"
	"github.com/coloc-dev/coloc/profile/sampler/nvml/nvmlfake"
)

// TestProfileRunOnFakeH200 runs a campaign with the NVML samplers wired in,
// on go-nvml's mock of an H200 machine: the plan uses the GPUs, the
// manifest names them, and the samples hold device and host counters.
func TestProfileRunOnFakeH200(t *testing.T) {
	h200 := withNVML(t, nvmlfake.NewH200(2).Server)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "camp")
	python, _ := filepath.Abs("../../profile/testdata/fakepython.sh")
	script, _ := filepath.Abs("../../profile/testdata/fake.sh")
	// One workload that lives 1 s of real time, so that several ticks of
	// 20 ms see it (GPM and CPU% need two samples).
	suite := filepath.Join(tmp, "suite.yaml")
	os.WriteFile(suite, []byte("version: 1\nname: h200\nworkloads:\n  - name: sleepy\n    class: other\n    batch_size: 4\n"+
		"    command: [\"{python}\", \""+script+"\", \"ok\", \"--sleep\", \"1\"]\n"), 0o644)
	_, stderr, err := h200.run("profile", "run", "--suite", suite, "--out", dir, "--python", python,
		"--duration", "1s", "--warmup", "0s", "--repeats", "1", "--pairs", "none", "--degrees", "1", "--interval", "20ms")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	// The mock lists its three processes on every GPU; before the first
	// run none is the campaign's, and the campaign says so as it starts.
	if !strings.Contains(stderr, "GPU 0 already runs 3 compute process(es) before the campaign's first run") {
		t.Errorf("stderr does not name the processes already on GPU 0:\n%s", stderr)
	}
	man, err := profile.ReadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if man.Settings.Device != "cuda" || man.Settings.DeviceType != "h200" || len(man.Hardware.Devices) != 2 {
		t.Errorf("manifest settings %+v, devices %+v", man.Settings, man.Hardware.Devices)
	}
	samples, err := datasets.Read(filepath.Join(dir, "samples.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"gpu_util", "power", "gpm_sm_util", "cpu_util"} {
		c := samples.Column(name)
		if c == nil || c.NullCount() == c.Len() {
			t.Errorf("samples column %s missing or all null", name)
		}
	}
}

// withNVML returns a fakeMachine on which coloc sees lib instead of the
// driver.
func withNVML(t *testing.T, lib gonvml.Interface) fakeMachine {
	return fakeMachine{t, func() sampler.OpenGPU { return nvmlOpener(lib) }}
}

// TestProfileRunRefusesExclusiveGPU: the compute mode NVML reports reaches
// the preflight, which refuses pair runs on an exclusive-process GPU
// before any run (every one would fail).
func TestProfileRunRefusesExclusiveGPU(t *testing.T) {
	f := nvmlfake.NewH200(1)
	f.ComputeModes[0] = gonvml.COMPUTEMODE_EXCLUSIVE_PROCESS
	m := withNVML(t, f.Server)
	tmp := t.TempDir()
	python, _ := filepath.Abs("../../profile/testdata/fakepython.sh")
	script, _ := filepath.Abs("../../profile/testdata/fake.sh")
	suite := filepath.Join(tmp, "suite.yaml")
	os.WriteFile(suite, []byte("version: 1\nname: x\nworkloads:\n  - name: w\n    class: other\n    batch_size: 4\n"+
		"    command: [\"{python}\", \""+script+"\", \"ok\"]\n"), 0o644)
	_, _, err := m.run("profile", "run", "--suite", suite, "--out", filepath.Join(tmp, "camp"), "--python", python,
		"--duration", "1s", "--repeats", "1", "--pairs", "all", "--degrees", "1")
	if err == nil || !strings.Contains(err.Error(), "GPU 0 is in compute mode exclusive_process") {
		t.Errorf("err = %v, want the exclusive compute mode named", err)
	}
}
