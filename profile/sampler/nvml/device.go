package nvml

import (
	"fmt"
	"math"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile/sampler"
)

// nvmlDevice is one device's handle and the state kept between ticks.
type nvmlDevice struct {
	index   int
	h       nvml.Device
	info    sampler.Device
	queries []deviceQuery
	cols    [][]int // per query, the sampler columns of its counters
	buf     []float64

	procUtil, procMem  bool
	procSM, procMemCol int // sampler columns of proc_sm_util, proc_mem_util
	procUsedCol        int
	reasonsCol         int                   // sampler column of clock_event_reasons; -1 when not read
	lastSeen           uint64                // newest process-utilisation timestamp seen (µs)
	perPID             map[uint32][3]uint64  // per tick: SM sum, memory sum, count
	verdicts           map[uint32]pidVerdict // this run's PIDs of others, classified (tenants.go)

	gpm *gpmState // nil when the device has no GPM
}

type gpmState struct {
	samples [2]nvml.GpmSample
	next    int  // the sample the next tick fills
	have    bool // samples[1-next] holds the previous tick's sample
	req     nvml.GpmMetricsGetType
	cols    []int
	seen    []bool // the metric has been read at least once
}

// openDevice describes device i and probes each counter once: a call that
// answers ERROR_NOT_SUPPORTED (or that the library lacks) drops its
// counters on this device; any other error drops them too, with a note.
func openDevice(lib nvml.Interface, h nvml.Device, i int, opts Options, has func(string) bool) *nvmlDevice {
	d := &nvmlDevice{index: i, h: h, perPID: map[uint32][3]uint64{}, verdicts: map[uint32]pidVerdict{}}
	d.info = describeDevice(h, i)
	note := func(call string, r nvml.Return) {
		if r == nvml.ERROR_NOT_SUPPORTED || r == nvml.ERROR_FUNCTION_NOT_FOUND {
			d.info.Unsupported = append(d.info.Unsupported, call)
			return
		}
		d.info.Notes = append(d.info.Notes, fmt.Sprintf("%s failed at open (%s); its counters are off on this device", call, retName(r)))
	}

	if !opts.NoGPM && has("nvmlGpmQueryDeviceSupport") {
		sup, r := h.GpmQueryDeviceSupport()
		switch {
		case r != nvml.SUCCESS:
			note("GpmQueryDeviceSupport", r)
		case sup.IsSupportedDevice == 0:
			d.info.Unsupported = append(d.info.Unsupported, "GPM")
		default:
			d.gpm = allocGPM(lib, note)
		}
	}
	d.info.GPM = d.gpm != nil

	reasons := queryEventReasons
	if !has("nvmlDeviceGetCurrentClocksEventReasons") {
		reasons = queryThrottleReasons
	}
	qs := []deviceQuery{queryUtilization, queryMemory, querySMClock, queryMemClock, queryPower, queryTemperature}
	if d.gpm == nil || opts.LegacyPCIeWithGPM {
		qs = append(qs, queryPCIeTX, queryPCIeRX)
	}
	qs = append(qs, reasons)
	buf := make([]float64, 2)
	for _, q := range qs {
		if r := q.read(h, buf); r != nvml.SUCCESS {
			note(q.call, r)
			continue
		}
		d.queries = append(d.queries, q)
		d.info.Counters = append(d.info.Counters, q.counters...)
	}
	d.buf = buf

	samples, r := h.GetProcessUtilization(0)
	if r == nvml.SUCCESS || noNewSamples(samples, r) {
		d.procUtil = true
		d.lastSeen = newestTimestamp(samples, 0)
		d.info.Counters = append(d.info.Counters, sampler.CounterProcSMUtil, sampler.CounterProcMemUtil)
	} else {
		note("GetProcessUtilization", r)
	}
	if _, r := h.GetComputeRunningProcesses(); r == nvml.SUCCESS {
		d.procMem = true
		d.info.Counters = append(d.info.Counters, sampler.CounterProcMemUsed)
	} else {
		note("GetComputeRunningProcesses", r)
	}
	if d.gpm != nil {
		for _, m := range gpmMetrics {
			d.info.Counters = append(d.info.Counters, m.c)
		}
	}
	return d
}

func allocGPM(lib nvml.Interface, note func(string, nvml.Return)) *gpmState {
	g := &gpmState{cols: make([]int, len(gpmMetrics)), seen: make([]bool, len(gpmMetrics))}
	for k := range g.samples {
		s, r := lib.GpmSampleAlloc()
		if r != nvml.SUCCESS {
			note("GpmSampleAlloc", r)
			for _, prev := range g.samples[:k] {
				lib.GpmSampleFree(prev)
			}
			return nil
		}
		g.samples[k] = s
	}
	return g
}

// bind maps the device's counters to the sampler's columns.
func (d *nvmlDevice) bind(col map[string]int) {
	d.cols = make([][]int, len(d.queries))
	d.reasonsCol = -1
	for i, q := range d.queries {
		for _, c := range q.counters {
			d.cols[i] = append(d.cols[i], col[c.Name])
			if c.Name == sampler.CounterClockReasons.Name {
				d.reasonsCol = col[c.Name]
			}
		}
	}
	d.procSM, d.procMemCol, d.procUsedCol = -1, -1, -1
	if d.procUtil {
		d.procSM, d.procMemCol = col[sampler.CounterProcSMUtil.Name], col[sampler.CounterProcMemUtil.Name]
	}
	if d.procMem {
		d.procUsedCol = col[sampler.CounterProcMemUsed.Name]
	}
	if d.gpm != nil {
		for i, m := range gpmMetrics {
			d.gpm.cols[i] = col[m.c.Name]
		}
	}
}

// sample reads one tick of the device: its device-wide reading, then one
// reading per workload when the device offers per-process counters. ok
// reports whether any NVML call succeeded.
func (d *nvmlDevice) sample(s *Sampler, procs map[string][]int, workloads []string) (readings []sampler.Reading, ok bool) {
	n := len(s.counters)
	vals := sampler.NaNs(n)
	for i, q := range d.queries {
		v := d.buf[:len(q.counters)]
		if r := q.read(d.h, v); r != nvml.SUCCESS {
			s.warnf("device %d: %s: %s (%s read as NaN)", d.index, q.call, retName(r), counterNames(q.counters))
			continue
		}
		ok = true
		for j, c := range d.cols[i] {
			vals[c] = v[j]
		}
	}
	if d.gpm != nil && d.gpm.read(s, d, vals) {
		ok = true
	}
	if d.reasonsCol >= 0 && !math.IsNaN(vals[d.reasonsCol]) {
		warnSlowdowns(s, d.index, uint64(vals[d.reasonsCol]))
	}
	readings = append(readings, sampler.Reading{Device: d.index, Values: vals})
	if len(workloads) == 0 || (!d.procUtil && !d.procMem) {
		return readings, ok
	}
	per := make([][]float64, len(workloads))
	for i := range per {
		per[i] = sampler.NaNs(n)
	}
	if d.procUtil && d.readProcUtil(s, procs, workloads, per) {
		ok = true
	}
	if d.procMem && d.readProcMem(s, procs, workloads, per) {
		ok = true
	}
	for i, w := range workloads {
		readings = append(readings, sampler.Reading{Device: d.index, Workload: w, Values: per[i]})
	}
	return readings, ok
}

// readProcUtil attributes per-process SM and memory utilisation to the
// workloads. NVML returns the samples newer than lastSeen, one or more per
// process that was busy; a PID's samples are averaged and a workload's PIDs
// summed. A process without a sample was idle (0). When NVML has no new
// sample at all (ERROR_NOT_FOUND: its sampling period is longer than the
// tick, or every process was idle) the values stay NaN: the two cases
// cannot be told apart.
func (d *nvmlDevice) readProcUtil(s *Sampler, procs map[string][]int, workloads []string, per [][]float64) bool {
	samples, r := d.h.GetProcessUtilization(d.lastSeen)
	if noNewSamples(samples, r) {
		return true
	}
	if r != nvml.SUCCESS {
		s.warnf("device %d: GetProcessUtilization: %s (proc_sm_util, proc_mem_util read as NaN)", d.index, retName(r))
		return false
	}
	d.lastSeen = newestTimestamp(samples, d.lastSeen)
	listed := make([]uint32, len(samples))
	for i, p := range samples {
		listed[i] = p.Pid
	}
	if !s.attribute(d, "GetProcessUtilization", listed, procs) {
		return true // the call worked; its values stay NaN
	}
	clear(d.perPID)
	for _, p := range samples {
		a := d.perPID[p.Pid]
		d.perPID[p.Pid] = [3]uint64{a[0] + uint64(p.SmUtil), a[1] + uint64(p.MemUtil), a[2] + 1}
	}
	for i, w := range workloads {
		var sm, mem float64
		for _, pid := range procs[w] {
			if a, ok := d.perPID[uint32(pid)]; ok {
				sm += float64(a[0]) / float64(a[2])
				mem += float64(a[1]) / float64(a[2])
			}
		}
		per[i][d.procSM], per[i][d.procMemCol] = sm, mem
	}
	return true
}

// readProcMem sums the device memory of each workload's processes. A
// workload with no process on the device uses 0 bytes; one whose memory
// NVML cannot report (NVML_VALUE_NOT_AVAILABLE) reads NaN.
func (d *nvmlDevice) readProcMem(s *Sampler, procs map[string][]int, workloads []string, per [][]float64) bool {
	infos, r := d.h.GetComputeRunningProcesses()
	if r != nvml.SUCCESS {
		s.warnf("device %d: GetComputeRunningProcesses: %s (proc_mem_used read as NaN)", d.index, retName(r))
		return false
	}
	listed := make([]uint32, len(infos))
	for i, p := range infos {
		listed[i] = p.Pid
	}
	if !s.attribute(d, "GetComputeRunningProcesses", listed, procs) {
		return true // the call worked; its values stay NaN
	}
	for i, w := range workloads {
		var used float64
		for _, pid := range procs[w] {
			for _, p := range infos {
				if p.Pid != uint32(pid) {
					continue
				}
				if p.UsedGpuMemory == math.MaxUint64 {
					used = math.NaN()
				} else {
					used += float64(p.UsedGpuMemory)
				}
			}
		}
		per[i][d.procUsedCol] = used
	}
	return true
}

// read takes this tick's GPM sample and, when the previous tick left one,
// computes the metrics over the interval between the two. The first tick
// after open or Reset only takes the baseline (metrics NaN).
func (g *gpmState) read(s *Sampler, d *nvmlDevice, vals []float64) bool {
	cur := g.samples[g.next]
	if r := d.h.GpmSampleGet(cur); r != nvml.SUCCESS {
		g.have = false
		s.warnf("device %d: GpmSampleGet: %s (GPM counters read as NaN, next tick restarts the interval)", d.index, retName(r))
		return false
	}
	ok := true
	if g.have {
		g.req.NumMetrics = uint32(len(gpmMetrics))
		g.req.Sample1, g.req.Sample2 = g.samples[1-g.next], cur
		for i, m := range gpmMetrics {
			g.req.Metrics[i] = nvml.GpmMetric{MetricId: uint32(m.id)}
		}
		if r := s.lib.GpmMetricsGet(&g.req); r != nvml.SUCCESS {
			s.warnf("device %d: GpmMetricsGet: %s (GPM counters read as NaN)", d.index, retName(r))
			ok = false
		} else {
			for i, m := range gpmMetrics {
				got := g.req.Metrics[i]
				switch {
				case nvml.Return(got.NvmlReturn) == nvml.SUCCESS:
					vals[g.cols[i]] = got.Value * m.scale
					g.seen[i] = true
				case g.seen[i]:
					s.warnf("device %d: GPM metric %s: %s (read as NaN)", d.index, m.c.Name, retName(nvml.Return(got.NvmlReturn)))
				}
			}
		}
	}
	g.have = true
	g.next = 1 - g.next
	return ok
}

// noNewSamples reports NVML's "no sample newer than lastSeen" answers.
func noNewSamples(samples []nvml.ProcessUtilizationSample, r nvml.Return) bool {
	return r == nvml.ERROR_NOT_FOUND || (r == nvml.ERROR_INSUFFICIENT_SIZE && len(samples) == 0)
}

func newestTimestamp(samples []nvml.ProcessUtilizationSample, since uint64) uint64 {
	for _, p := range samples {
		since = max(since, p.TimeStamp)
	}
	return since
}

func counterNames(cs []datasets.Counter) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// slowdowns are the clocks event reasons that say the device, not the
// work, held the clocks down: the board is too hot or its power supply
// asked it to slow down. A run measured then is slower than the GPU is,
// whoever ran on it. The other reasons are left alone: a software power
// cap is how a GPU shares its power between co-located jobs (part of
// what a pair run measures), and idle, sync boost, application and
// display clocks are settings or no load.
var slowdowns = []struct {
	bit  uint64
	what string
}{
	{nvml.ClocksThrottleReasonHwSlowdown, "hardware slowdown (HW_SLOWDOWN: the board's thermal or power-brake signal)"},
	{nvml.ClocksEventReasonSwThermalSlowdown, "software thermal slowdown (the GPU or its memory above their maximum operating temperature)"},
	{nvml.ClocksThrottleReasonHwThermalSlowdown, "hardware thermal slowdown (the GPU too hot)"},
	{nvml.ClocksThrottleReasonHwPowerBrakeSlowdown, "hardware power-brake slowdown (an external power brake, e.g. the system's power supply)"},
}

// warnSlowdowns warns, one message per reason, when this tick's clocks
// event reasons include a slowdown; the Recorder counts the ticks of each.
func warnSlowdowns(s *Sampler, dev int, reasons uint64) {
	for _, sd := range slowdowns {
		if reasons&sd.bit != 0 {
			s.warnf("device %d: clocks held down by %s (clocks event reason 0x%x): the run's step times are slower than the GPU's", dev, sd.what, sd.bit)
		}
	}
}
