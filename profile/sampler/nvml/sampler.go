package nvml

import (
	"fmt"
	"slices"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile/sampler"
)

// Options configures the NVML sampler. The zero value is the default
// (DefaultOptions).
type Options struct {
	// NoGPM turns GPM metrics off even on devices that offer them.
	NoGPM bool
	// LegacyPCIeWithGPM also reads pcie_tx and pcie_rx with
	// nvmlDeviceGetPcieThroughput on devices that have GPM. That call
	// blocks 20 ms per direction, so by default it is used only on devices
	// without GPM, where it is the only PCIe counter; GPM devices report
	// gpm_pcie_tx and gpm_pcie_rx instead.
	LegacyPCIeWithGPM bool
	// ProcRoot is where the processes NVML lists are looked up, to tell
	// the run's from another tenant's and to notice PIDs of another PID
	// namespace (tenants.go); "" is /proc.
	ProcRoot string
}

// DefaultOptions are the options Open uses: GPM where offered, the
// blocking PCIe counters only where GPM is not.
var DefaultOptions = Options{}

// Sampler reads device, per-process and GPM counters through NVML. It
// exists only once nvml.Init has succeeded, and it is the only holder of
// the nvml.Interface it was opened with: no code path can call NVML after
// a failed Init. Use it from one goroutine (it reads a run's devices
// concurrently itself).
type Sampler struct {
	lib      nvml.Interface // nil once closed
	opts     Options
	sys      sampler.System
	devs     []*nvmlDevice // by NVML index
	counters []datasets.Counter

	// thisRun and lastRun are the PIDs of the run being sampled and of the
	// one before (Reset starts a run): NVML may still list the last run's
	// processes, or hand out their utilisation samples, at the next run's
	// first ticks, and they are no other tenant's.
	thisRun, lastRun map[uint32]bool

	mu       sync.Mutex // guards warnings and shared (devices are read concurrently)
	warnings pending    // since the last Warnings call
	shared   pending    // other tenants found since the last Shared call
}

// maxPendingWarnings bounds the messages a sampler keeps between two
// Warnings (or Shared) calls, so a sampler nobody drains cannot grow
// without bound.
const maxPendingWarnings = 1000

// pending holds messages until they are taken; past maxPendingWarnings
// it only counts them.
type pending struct {
	msgs    []string
	dropped int
}

func (p *pending) add(msg string) {
	if len(p.msgs) >= maxPendingWarnings {
		p.dropped++
		return
	}
	p.msgs = append(p.msgs, msg)
}

// take returns the messages, and how many were dropped, and forgets them.
func (p *pending) take() []string {
	m := p.msgs
	if p.dropped > 0 {
		m = append(m, fmt.Sprintf("%d more messages dropped (nobody read them)", p.dropped))
	}
	*p = pending{}
	return m
}

// Open initialises NVML through lib (nvml.New() in the binary, a mock
// in tests), finds every device and probes which counters each one offers.
// A counter that no device offers is left out of Counters; one that some
// devices lack reads as NaN there. On error, NVML is shut down again (when
// Init had succeeded) and lib is not kept.
func Open(lib nvml.Interface, opts Options) (*Sampler, error) {
	if r := lib.Init(); r != nvml.SUCCESS {
		return nil, &InitError{Ret: r}
	}
	s, err := openDevices(lib, opts)
	if err != nil {
		lib.Shutdown()
		return nil, err
	}
	return s, nil
}

func openDevices(lib nvml.Interface, opts Options) (*Sampler, error) {
	s := &Sampler{lib: lib, opts: opts}
	if v, r := lib.SystemGetDriverVersion(); r == nvml.SUCCESS {
		s.sys.Driver = v
	}
	if v, r := lib.SystemGetNVMLVersion(); r == nvml.SUCCESS {
		s.sys.NVML = v
	}
	if v, r := lib.SystemGetCudaDriverVersion(); r == nvml.SUCCESS {
		s.sys.CUDADriver = fmt.Sprintf("%d.%d", v/1000, v%1000/10)
	}
	n, r := lib.DeviceGetCount()
	if r != nvml.SUCCESS {
		return nil, fmt.Errorf("NVML device count: %s", retName(r))
	}
	if n == 0 {
		return nil, ErrNoDevices
	}
	ext := lib.Extensions()
	has := func(symbol string) bool { return ext.LookupSymbol(symbol) == nil }
	offered := map[string]bool{}
	for i := 0; i < n; i++ {
		h, r := lib.DeviceGetHandleByIndex(i)
		if r != nvml.SUCCESS {
			return nil, fmt.Errorf("NVML device %d: handle: %s", i, retName(r))
		}
		d := openDevice(lib, h, i, opts, has)
		for _, c := range d.info.Counters {
			offered[c.Name] = true
		}
		s.devs = append(s.devs, d)
	}
	for _, c := range allNVMLCounters() {
		if offered[c.Name] {
			s.counters = append(s.counters, c)
		}
	}
	col := make(map[string]int, len(s.counters))
	for i, c := range s.counters {
		col[c.Name] = i
	}
	for _, d := range s.devs {
		d.bind(col)
	}
	return s, nil
}

// Name implements Sampler.
func (s *Sampler) Name() string { return "nvml" }

// Counters implements Sampler: the counters at least one device offers, in
// a fixed order (device, per-process, GPM).
func (s *Sampler) Counters() []datasets.Counter { return s.counters }

// System returns the driver versions found at open.
func (s *Sampler) System() sampler.System { return s.sys }

// Devices describes every device found at open, by NVML index.
func (s *Sampler) Devices() []sampler.Device {
	out := make([]sampler.Device, len(s.devs))
	for i, d := range s.devs {
		out[i] = d.info
		out[i].System = s.sys
	}
	return out
}

// Sample implements Sampler. It returns one device-wide reading per target
// device and one reading per workload and device (proc_* counters). A call
// that fails leaves its counters NaN and adds a warning; the tick fails
// (error) only when no call succeeded on any device, or a target device
// does not exist.
func (s *Sampler) Sample(t sampler.Target) ([]sampler.Reading, error) {
	if s.lib == nil {
		return nil, errClosed
	}
	devs := make([]*nvmlDevice, len(t.Devices))
	for i, idx := range t.Devices {
		if idx < 0 || idx >= len(s.devs) {
			return nil, fmt.Errorf("device %d: no such device (NVML found %d)", idx, len(s.devs))
		}
		if slices.Contains(t.Devices[:i], idx) {
			return nil, fmt.Errorf("device %d is listed twice in the target", idx)
		}
		devs[i] = s.devs[idx]
	}
	if s.thisRun == nil {
		s.thisRun = map[uint32]bool{}
	}
	for _, pids := range t.Procs {
		for _, p := range pids {
			s.thisRun[uint32(p)] = true
		}
	}
	workloads := t.Workloads()
	out := make([][]sampler.Reading, len(devs))
	ok := make([]bool, len(devs))
	if len(devs) == 1 {
		out[0], ok[0] = devs[0].sample(s, t.Procs, workloads)
	} else {
		var wg sync.WaitGroup
		for i, d := range devs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i], ok[i] = d.sample(s, t.Procs, workloads)
			}()
		}
		wg.Wait()
	}
	var readings []sampler.Reading
	anyOK := len(devs) == 0
	for i := range devs {
		readings = append(readings, out[i]...)
		anyOK = anyOK || ok[i]
	}
	if !anyOK {
		return nil, fmt.Errorf("every NVML call failed on devices %v (see warnings)", t.Devices)
	}
	return readings, nil
}

// Reset implements Resetter: the next tick takes fresh GPM baselines, so no
// GPM interval spans two runs. Process-utilisation timestamps are kept:
// NVML returns samples newer than the last one seen, whenever that was.
// The PIDs of the run that ended are kept too, for one more run, so that
// NVML's lingering record of them is not taken for another tenant; what
// the devices found other PIDs to be is forgotten.
func (s *Sampler) Reset() {
	s.lastRun, s.thisRun = s.thisRun, nil
	for _, d := range s.devs {
		clear(d.verdicts)
		if d.gpm != nil {
			d.gpm.have = false
		}
	}
}

// Warnings implements Warner.
func (s *Sampler) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.warnings.take()
}

// The Recorder finds these by type assertion; a method renamed would
// silently drop what it reports.
var (
	_ sampler.Warner       = (*Sampler)(nil)
	_ sampler.Sharer       = (*Sampler)(nil)
	_ sampler.Resetter     = (*Sampler)(nil)
	_ sampler.TenantLister = (*Sampler)(nil)
)

// Shared implements sampler.Sharer: the other tenants' processes found on
// the run's devices since the last call (tenants.go).
func (s *Sampler) Shared() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shared.take()
}

func (s *Sampler) sharedf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shared.add(fmt.Sprintf(format, args...))
}

func (s *Sampler) warnf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.warnings.add(fmt.Sprintf(format, args...))
}

// Close frees the GPM samples and shuts NVML down. The sampler cannot be
// used afterwards; a second Close does nothing.
func (s *Sampler) Close() error {
	if s.lib == nil {
		return nil
	}
	for _, d := range s.devs {
		if d.gpm != nil {
			for _, g := range d.gpm.samples {
				s.lib.GpmSampleFree(g)
			}
		}
	}
	r := s.lib.Shutdown()
	s.lib = nil
	if r != nvml.SUCCESS {
		return fmt.Errorf("NVML shutdown: %s", retName(r))
	}
	return nil
}
