// Package nvml is the NVML sampler: device, per-process and GPM counters
// of NVIDIA GPUs read through go-nvml, for profile/sampler's Recorder. It
// is the only package of coloc that needs cgo (go-nvml dlopens
// libnvidia-ml.so.1 through it); the binary reaches it in one file
// (cmd/coloc/nvml.go), and a build with CGO_ENABLED=0 leaves both out.
//
// The counters it fills, their units and the rows they go on are listed
// in the documentation of package sampler.
//
// Inside this package the name nvml refers to go-nvml's package
// (github.com/NVIDIA/go-nvml/pkg/nvml), imported under its own name; a
// package does not see its own name, so there is no clash.
//
// The NVML sampler depends on nvml.Interface, passed in (nvml.New() in the
// binary, go-nvml's mocks in tests). Calling NVML after a failed Init can
// kill the process, so Open is the only function that takes the
// interface: it calls Init first and, if that fails, returns without
// keeping the interface anywhere. Only an opened Sampler holds it, and
// Close shuts NVML down and drops it.
//
// At open the sampler calls every counter's NVML function once per
// device. A function the device answers ERROR_NOT_SUPPORTED to (or that
// the installed driver lacks) is not called again on it; its counters
// read NaN there, and a counter no device offers is left out of Counters.
// An error during a campaign makes the counters of that call NaN for that
// tick and adds a warning; a tick fails (error, recorded by the Recorder,
// which goes on) only when no call succeeded at all.
//
// # GPM method
//
// Each GPM device has two GPM samples. Every tick takes one
// (GpmSampleGet) and computes the metrics with GpmMetricsGet over the
// interval since the other, taken at the previous tick; the two then swap
// roles. So every GPM value is an average over exactly one tick interval,
// and the first tick of a run (Start calls Reset) and the tick after a
// failed GpmSampleGet have no interval: their GPM counters are NaN. A
// metric the device does not compute (NVLink on a PCIe board) is NaN
// without a warning; one that worked before and fails warns.
//
// nvmlDeviceGetPcieThroughput blocks 20 ms per direction and measures only
// those 20 ms, so on GPM devices it is skipped by default (gpm_pcie_* cover
// PCIe over the whole tick); Options.LegacyPCIeWithGPM turns it back on.
// Devices of a multi-GPU run are read concurrently, so a tick takes about
// as long as one device's calls.
//
// # Clock slowdowns
//
// clock_event_reasons is recorded every tick, and a tick whose reasons
// include one of the board's own slowdowns (hardware slowdown, software
// or hardware thermal slowdown, hardware power brake) warns, one message
// per reason, so the run's warnings count the ticks each held the clocks
// down. A software power cap does not warn: co-located jobs that together
// ask for more than the power limit share it, which is interference a
// pair run is meant to measure (device.go, slowdowns).
//
// # Per-process attribution and its limits
//
// GetProcessUtilization is the only NVML view of which process used the
// SMs, which is what separates the two workloads of a pair. The driver
// keeps a buffer of per-process samples; the sampler asks for those newer
// than the newest timestamp it has seen on that device, averages each
// PID's samples and sums the workload's PIDs. Limits:
//
//   - The driver samples on its own period (typically 1/6 s); a tick with
//     no new sample returns ERROR_NOT_FOUND and the proc_*_util counters
//     are NaN for that tick, not 0. At 10 Hz expect gaps; summaries should
//     average the non-null values.
//   - NVML lists only processes that were busy: when new samples exist, a
//     workload with none is recorded as 0 (it was idle).
//   - NVML names processes by their host PIDs (the driver knows no PID
//     namespace). Inside a container with its own PID namespace none of
//     them is a PID coloc started, so the run's processes cannot be told
//     apart: when an NVML call lists PIDs that are neither the run's nor
//     visible in coloc's /proc, and none that are the run's, that call's
//     per-process counters read NaN (not 0) and the run's warnings say
//     why. Run coloc in the host's PID namespace (docker run --pid=host;
//     `coloc profile k8s --host-pid`) to read them.
//   - Every process NVML lists on a run's device that is not the run's is
//     named: one coloc can see and did not start (nor any of its
//     workloads: the process tree is read again first) is another
//     tenant's, so the run shared the GPU and its measurements include
//     that load (Shared, sampler.Sharer; the campaign records the run as
//     shared); the MPS server is not counted. Others are in the warnings:
//     a PID of another namespace beside the run's own is another
//     container's, or a process of the run that had just ended (then for
//     a tick or two). tenants.go holds the rule.
//   - Under MPS the driver may report the MPS server rather than its
//     clients; per-process values of MPS runs are then not attributable.
//   - On MIG devices per-process utilisation is not supported (NaN).
package nvml
