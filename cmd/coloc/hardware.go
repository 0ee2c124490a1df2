package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile"
	"github.com/coloc-dev/coloc/profile/sampler"
)

// machine is what `coloc profile` found on this machine: the hardware for
// the manifest, the device kind the workloads get (--device), and the
// samplers a run is recorded with. Close releases the samplers (it shuts
// NVML down).
type machine struct {
	hw        profile.Hardware
	kind      string // "cuda" or "cpu"
	detection *sampler.Detection
}

// openMachine detects this machine's GPUs through open (env.openGPU, the
// one place coloc reaches the driver) and its host counters, and settles
// --device: cuda when a GPU is found, else cpu, unless the flag says which.
// On a CPU run NVML is not opened at all.
func openMachine(open func() sampler.OpenGPU, device string) (*machine, error) {
	m := &machine{hw: profile.Hardware{CPU: cpuModel()}}
	m.hw.Host, _ = os.Hostname()
	switch device {
	case "", "cuda", "cpu":
	default:
		return nil, fmt.Errorf("--device %q: want cuda or cpu", device)
	}
	d := sampler.Detect(open(), sampler.DetectOptions{NoGPU: device == "cpu"})
	m.detection = d
	var gpus []profile.Device
	for _, dev := range d.Devices {
		gpus = append(gpus, profile.Device{Index: dev.Index, Type: dev.Type, Name: dev.Name, UUID: dev.UUID, MemoryBytes: dev.MemoryTotal})
	}
	m.hw.Driver, m.hw.CUDA = d.System.Driver, d.System.CUDADriver
	switch {
	case device == "cuda" && len(gpus) == 0:
		d.Close()
		return nil, fmt.Errorf("--device cuda: no GPU found (%s); use --device cpu", d.GPUReason)
	case device == "" && len(gpus) > 0, device == "cuda":
		m.kind = "cuda"
		m.hw.Devices = gpus
	default:
		m.kind = "cpu"
		m.hw.Devices = []profile.Device{{Index: 0, Type: "cpu", Name: m.hw.CPU}}
	}
	return m, nil
}

// warnings are what detection found wrong without stopping the work (no
// GPU counters and why, a device that lacks some counters).
func (m *machine) warnings() []string { return m.detection.Warnings }

// monitor returns a recorder of every sampler found, ticking every interval.
func (m *machine) monitor(interval time.Duration) (profile.Monitor, error) {
	rec, err := sampler.NewRecorder(m.detection.Samplers(), sampler.RecorderOptions{Interval: interval})
	if err != nil {
		return nil, err
	}
	return &recorderMonitor{rec: rec}, nil
}

// Close releases the samplers.
func (m *machine) Close() error { return m.detection.Close() }

// recorderMonitor is the sampler.Recorder behind the harness's Monitor.
type recorderMonitor struct {
	rec      *sampler.Recorder
	startErr error
}

func (r *recorderMonitor) Start(runID string, t sampler.Target) {
	r.startErr = r.rec.Start(runID, t)
}

func (r *recorderMonitor) Stop() (*datasets.Table, []string) {
	if r.startErr != nil {
		err := r.startErr
		r.startErr = nil
		return nil, []string{"counters not sampled: " + err.Error()}
	}
	s, warns, err := r.rec.Stop()
	if err != nil {
		warns = append(warns, "counters: "+err.Error())
	}
	if s == nil || s.Len() == 0 {
		return nil, warns
	}
	return s.Table(), warns
}

// selectGPUs returns the GPUs a CUDA campaign uses: those that
// CUDA_VISIBLE_DEVICES (cvd, when set) lets through, then the first n of
// them (n = 0: all). A cluster manager sets the variable to a job's GPUs
// (Slurm with --gres=gpu:k), so a shard uses the GPUs it was given and
// plans for as many. Entries are NVML indices (the order of PCI bus IDs,
// which the runner also gives CUDA) or UUIDs; when integer entries name
// indices NVML does not show but as many GPUs as entries are shown, the
// node's devices were renumbered for the job (a device cgroup) and those
// shown are taken. The note says what was chosen ("" when cvd is unset).
func selectGPUs(found []profile.Device, n int, cvd string, set bool) ([]profile.Device, string, error) {
	if n < 0 {
		return nil, "", fmt.Errorf("--gpus %d: want 0 (all) or more", n)
	}
	vis, note := found, ""
	if set {
		var entries []string
		for _, e := range strings.Split(cvd, ",") {
			if e = strings.TrimSpace(e); e != "" {
				entries = append(entries, e)
			}
		}
		if len(entries) == 0 {
			return nil, "", fmt.Errorf("CUDA_VISIBLE_DEVICES=%q hides every GPU (use --device cpu for a CPU campaign)", cvd)
		}
		vis = nil
		allInts, unknown := true, ""
		for _, e := range entries {
			idx, err := strconv.Atoi(e)
			allInts = allInts && err == nil
			var d *profile.Device
			for k := range found {
				if err == nil && found[k].Index == idx || err != nil && strings.HasPrefix(e, "GPU-") && strings.HasPrefix(found[k].UUID, e) {
					d = &found[k]
					break
				}
			}
			switch {
			case d == nil && unknown == "":
				unknown = e
			case d != nil && slices.ContainsFunc(vis, func(v profile.Device) bool { return v.Index == d.Index }):
				return nil, "", fmt.Errorf("CUDA_VISIBLE_DEVICES=%q names GPU %s twice", cvd, e)
			case d != nil:
				vis = append(vis, *d)
			}
		}
		switch {
		case unknown != "" && allInts && len(entries) == len(found):
			vis = found
			note = fmt.Sprintf("CUDA_VISIBLE_DEVICES=%s names GPUs NVML numbers otherwise; taking the %d GPUs NVML shows (renumbered for this job)", cvd, len(found))
		case unknown != "":
			return nil, "", fmt.Errorf("CUDA_VISIBLE_DEVICES=%q: GPU %s is not among the %d GPUs NVML shows (indices %s; MIG instances are not supported)",
				cvd, unknown, len(found), deviceIndices(found))
		default:
			note = fmt.Sprintf("CUDA_VISIBLE_DEVICES=%s: using GPUs %s", cvd, deviceIndices(vis))
		}
	}
	if n > len(vis) {
		return nil, "", fmt.Errorf("--gpus %d: only %d GPUs visible (indices %s)", n, len(vis), deviceIndices(vis))
	}
	if n > 0 {
		vis = vis[:n]
	}
	return vis, note, nil
}

func deviceIndices(ds []profile.Device) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = strconv.Itoa(d.Index)
	}
	return strings.Join(s, ",")
}
