package profile

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile/sampler"
)

// Machine is what a campaign found on the machine it runs on: the
// hardware for the manifest, the device kind the workloads get ("cuda" or
// "cpu"), and the samplers a run is recorded with. Close releases the
// samplers (it shuts NVML down).
type Machine struct {
	Hardware  Hardware
	Kind      string // "cuda" or "cpu"
	Detection *sampler.Detection
}

// OpenMachine detects this machine's GPUs through open (the caller's one
// way to the driver) and its host counters, and settles the device kind:
// cuda when a GPU is found, else cpu, unless device ("cuda" or "cpu")
// says which. With device "cpu" the GPUs are not opened at all.
func OpenMachine(open sampler.OpenGPU, device string) (*Machine, error) {
	m := &Machine{Hardware: Hardware{CPU: cpuModel()}}
	m.Hardware.Host, _ = os.Hostname()
	switch device {
	case "", "cuda", "cpu":
	default:
		return nil, fmt.Errorf("--device %q: want cuda or cpu", device)
	}
	d := sampler.Detect(open, sampler.DetectOptions{NoGPU: device == "cpu"})
	m.Detection = d
	var gpus []Device
	for _, dev := range d.Devices {
		gpus = append(gpus, Device{Index: dev.Index, Type: dev.Type, Name: dev.Name, UUID: dev.UUID, MemoryBytes: dev.MemoryTotal,
			ComputeMode: dev.ComputeMode, PowerLimitW: dev.PowerLimitW})
	}
	m.Hardware.Driver, m.Hardware.CUDA = d.System.Driver, d.System.CUDADriver
	switch {
	case device == "cuda" && len(gpus) == 0:
		d.Close()
		return nil, fmt.Errorf("--device cuda: no GPU found (%s); use --device cpu", d.GPUReason)
	case device == "" && len(gpus) > 0, device == "cuda":
		m.Kind = "cuda"
		m.Hardware.Devices = gpus
	default:
		m.Kind = "cpu"
		m.Hardware.Devices = []Device{{Index: 0, Type: "cpu", Name: m.Hardware.CPU}}
	}
	return m, nil
}

// Warnings are what detection found wrong without stopping the work (no
// GPU counters and why, a device that lacks some counters).
func (m *Machine) Warnings() []string { return m.Detection.Warnings }

// Monitor returns a recorder of every sampler found, ticking every
// interval, as the Runner's Monitor.
func (m *Machine) Monitor(interval time.Duration) (Monitor, error) {
	rec, err := sampler.NewRecorder(m.Detection.Samplers(), sampler.RecorderOptions{Interval: interval})
	if err != nil {
		return nil, err
	}
	return &recorderMonitor{rec: rec}, nil
}

// Close releases the samplers.
func (m *Machine) Close() error { return m.Detection.Close() }

// recorderMonitor is a sampler.Recorder behind the Runner's Monitor.
type recorderMonitor struct {
	rec      *sampler.Recorder
	startErr error
}

func (r *recorderMonitor) Start(runID string, t sampler.Target) {
	r.startErr = r.rec.Start(runID, t)
}

// Tenants says which processes of others the devices hold (tenantLister).
func (r *recorderMonitor) Tenants(devices []int) []string {
	out, err := r.rec.Tenants(devices)
	if err != nil {
		return []string{"listing the GPUs' processes: " + err.Error()}
	}
	return out
}

func (r *recorderMonitor) Stop() (*datasets.Table, sampler.Notes) {
	if r.startErr != nil {
		err := r.startErr
		r.startErr = nil
		return nil, sampler.Notes{Warnings: []string{"counters not sampled: " + err.Error()}}
	}
	s, notes, err := r.rec.Stop()
	if err != nil {
		notes.Warnings = append(notes.Warnings, "counters: "+err.Error())
	}
	if s == nil || s.Len() == 0 {
		return nil, notes
	}
	return s.Table(), notes
}

// SelectGPUs returns the GPUs a CUDA campaign uses: those that
// CUDA_VISIBLE_DEVICES (cvd, when set) lets through, then the first n of
// them (n = 0: all). A cluster manager sets the variable to a job's GPUs
// (Slurm with --gres=gpu:k), so a shard uses the GPUs it was given and
// plans for as many. Entries are NVML indices (the order of PCI bus IDs,
// which the runner also gives CUDA) or UUIDs; when integer entries name
// indices NVML does not show but as many GPUs as entries are shown, the
// node's devices were renumbered for the job (a device cgroup) and those
// shown are taken. The note says what was chosen ("" when cvd is unset).
func SelectGPUs(found []Device, n int, cvd string, set bool) ([]Device, string, error) {
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
			var d *Device
			for k := range found {
				if err == nil && found[k].Index == idx || err != nil && strings.HasPrefix(e, "GPU-") && strings.HasPrefix(found[k].UUID, e) {
					d = &found[k]
					break
				}
			}
			switch {
			case d == nil && unknown == "":
				unknown = e
			case d != nil && slices.ContainsFunc(vis, func(v Device) bool { return v.Index == d.Index }):
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
				cvd, unknown, len(found), DeviceIndices(found))
		default:
			note = fmt.Sprintf("CUDA_VISIBLE_DEVICES=%s: using GPUs %s", cvd, DeviceIndices(vis))
		}
	}
	if n > len(vis) {
		return nil, "", fmt.Errorf("--gpus %d: only %d GPUs visible (indices %s)", n, len(vis), DeviceIndices(vis))
	}
	if n > 0 {
		vis = vis[:n]
	}
	return vis, note, nil
}

// DeviceIndices lists the devices' indices, comma-separated: the form of
// CUDA_VISIBLE_DEVICES and of MPS's device list.
func DeviceIndices(ds []Device) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = strconv.Itoa(d.Index)
	}
	return strings.Join(s, ",")
}

// cpuModel is the "model name" of /proc/cpuinfo, "" when unknown.
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
