// Package sampler holds the samplers that read hardware and host counters
// while workloads run (NVML device, per-process and GPM counters; /proc CPU
// time and RSS), the recorder that turns their readings into a samples
// table, and the Nsight Compute CSV import. It is pure Go: the NVML
// sampler, the one user of cgo (go-nvml), is package profile/sampler/nvml,
// and reaches this package only through the GPU interface, so everything
// but that package builds with CGO_ENABLED=0 (see docs/architecture.md).
//
// # Where it sits
//
// The campaign runner (package profile) runs workloads solo, in pairs and at
// parallel degrees. For each run it calls Recorder.Start(runID, target)
// and, when the run ends, Recorder.Stop, which hands back the rows of the
// run's samples table (datasets.Samples) and the run's warnings. Those
// rows end up in samples.arrow; package features summarises them into
// per-workload features. ParseNCU's per-kernel table is meant for features
// too.
//
// # Samplers
//
// A Sampler reads counters once per tick for a Target: the GPU indices of
// a run and the PIDs of each workload. Detect picks what the machine has:
// the GPU sampler when its opener (OpenGPU; nvml.Opener in the binary)
// works, and the host sampler always; when there is no GPU sampler the
// reason becomes a warning and the run goes on with host counters only
// (NullSampler stands in when there is nothing at all). A Detection's
// WriteText and WriteJSON (a Listing, version ListingVersion) are what
// `coloc devices` prints.
//
// # Counters and units
//
// Device-wide, one row per device and tick (workload null):
//
//	gpu_util            %        time a kernel ran (NVML's sample period: 1/6 s to 1 s)
//	mem_util            %        time device memory was read or written
//	mem_used, mem_total bytes    device memory in use (all processes), installed
//	sm_clock, mem_clock MHz      current clocks
//	power               W        board power draw (NVML reports mW)
//	temperature         C        GPU core temperature
//	pcie_tx, pcie_rx    bytes/s  nvmlDeviceGetPcieThroughput (KiB/s x 1024)
//	clock_event_reasons bitmask  NVML clocks event (throttle) reason bits
//
// Per workload, one row per workload, device and tick:
//
//	proc_sm_util, proc_mem_util %     GetProcessUtilization, summed over the workload's PIDs
//	proc_mem_used               bytes GetComputeRunningProcesses, summed likewise
//	cpu_util  %     CPU time over the tick (100 = one core)   [host sampler]
//	cpu_time  s     utime+stime of the live processes         [host sampler]
//	rss       bytes resident set size                          [host sampler]
//
// GPM, device-wide, Hopper and newer (GpmQueryDeviceSupport):
//
//	gpm_sm_util, gpm_sm_occupancy, gpm_tensor_util (any tensor op),
//	gpm_hmma_util, gpm_dram_bw_util, gpm_fp16_util, gpm_fp32_util,
//	gpm_fp64_util                      %
//	gpm_pcie_tx, gpm_pcie_rx,
//	gpm_nvlink_tx, gpm_nvlink_rx       bytes/s (NVML reports MiB/s)
//
// A bitmask is stored as float64, exact for the reason bits NVML defines
// (all below 2^53).
//
// PIDs come from the Target, extended by the Recorder with every
// descendant found in /proc/PID/task/TID/children (re-read once a second),
// so torchrun workers and data-loader processes started after the run
// began are attributed to their workload.
//
// Device indices in a Target are NVML indices, which follow PCI bus order.
// CUDA numbers devices fastest-first unless CUDA_DEVICE_ORDER=PCI_BUS_ID is
// set; the harness must set it for the workloads so the two agree.
//
// # Host sampler
//
// The host sampler reads /proc/PID/stat (utime, stime, start time) and
// /proc/PID/statm (resident pages) under a configurable root, so tests use
// a fake tree. CPU utilisation is the CPU time used between two ticks over
// the wall time between them; a process is tracked by PID and start time,
// so a reused PID is never mistaken for its predecessor, and a process
// first seen at a tick adds to cpu_time but not yet to cpu_util. Host rows
// go on the target's first device (device 0 on a CPU-only run), so they
// merge with the GPU sampler's row of the same workload.
//
// # Recorder
//
// The Recorder takes a tick at Start and one every RecorderOptions.Interval
// (100 ms by default) on its own goroutine; each tick's readings are merged
// by (device, workload) into one row with the union of the samplers'
// counters, NaN (null in the file) where a sampler had nothing. Warnings
// (failed ticks, counters read as NaN and why) are kept once per distinct
// message with how many ticks raised it. Its clock is injected, so tests
// drive ticks by hand.
//
// BenchmarkTick measures a tick: the host sampler on this machine's /proc
// and a whole Recorder tick for a pair (with a GPU-shaped sampler that
// answers at once); the NVML sampler on go-nvml's H200 mock is measured by
// profile/sampler/nvml's benchmark. Together, a Recorder tick for a pair
// cost about 30 µs of CPU, 0.03% of one core at 10 Hz (the mock answers in
// nanoseconds; real NVML calls cost microseconds each and are not measured).
//
// # Nsight Compute import
//
// ParseNCU reads `ncu --csv` output (details or raw page) into one row per
// kernel launch; WriteNCU stores it as an Arrow IPC file with schema
// metadata coloc.table=ncu_kernels, coloc.version=1 and each metric's unit
// in field metadata (see ParseNCU for how ncu's per-value unit scaling is
// undone). It is not one of the five dataset tables: it describes kernels,
// not runs (a features stage can join it by kernel name).
//
// # Device types
//
// DeviceType turns NVML names into the short names of the datasets'
// device_type columns ("NVIDIA H200" -> "h200", "Tesla V100-SXM2-16GB" ->
// "v100"); its comment gives the rule.
package sampler
