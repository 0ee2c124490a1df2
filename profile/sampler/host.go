package sampler

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// HostOptions configures the host sampler. Zero fields take the values of
// DefaultHostOptions.
type HostOptions struct {
	// ProcRoot is the proc file system to read; tests point it at a fake
	// tree under testdata.
	ProcRoot string
	// ClockTicks is USER_HZ, the unit of utime and stime in
	// /proc/PID/stat (100 on every mainstream Linux build; Go cannot ask
	// sysconf without cgo).
	ClockTicks int
	// PageSize converts /proc/PID/statm pages to bytes.
	PageSize int
	// Now is the clock that times CPU utilisation; tests pass a fake.
	Now func() time.Time
}

// DefaultHostOptions are the host sampler's defaults.
var DefaultHostOptions = HostOptions{ProcRoot: "/proc", ClockTicks: 100, PageSize: os.Getpagesize(), Now: time.Now}

func (o HostOptions) withDefaults() HostOptions {
	d := DefaultHostOptions
	if o.ProcRoot == "" {
		o.ProcRoot = d.ProcRoot
	}
	if o.ClockTicks <= 0 {
		o.ClockTicks = d.ClockTicks
	}
	if o.PageSize <= 0 {
		o.PageSize = d.PageSize
	}
	if o.Now == nil {
		o.Now = d.Now
	}
	return o
}

// HostSampler reads CPU time and resident memory of each workload's
// processes from /proc. It is always available on Linux.
type HostSampler struct {
	opts     HostOptions
	prev     map[procKey]uint64 // CPU ticks per process at the previous tick
	prevAt   time.Time
	warnings []string
}

// procKey names a process across ticks: a PID plus its start time, so a
// reused PID is not mistaken for the process that had it before.
type procKey struct {
	pid   int
	start uint64
}

var hostCounters = []datasets.Counter{CounterCPUUtil, CounterCPUTime, CounterRSS}

// NewHostSampler returns a host sampler reading opts.ProcRoot, or an error
// when that is not a directory.
func NewHostSampler(opts HostOptions) (*HostSampler, error) {
	opts = opts.withDefaults()
	st, err := os.Stat(opts.ProcRoot)
	if err != nil {
		return nil, fmt.Errorf("host sampler: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("host sampler: %s is not a directory", opts.ProcRoot)
	}
	return &HostSampler{opts: opts, prev: map[procKey]uint64{}}, nil
}

// Name implements Sampler.
func (h *HostSampler) Name() string { return "host" }

// Counters implements Sampler: cpu_util (%), cpu_time (s), rss (bytes).
func (h *HostSampler) Counters() []datasets.Counter { return hostCounters }

// Sample implements Sampler. It returns one reading per workload, on the
// target's first device (device 0 on a CPU-only run), summing over the
// workload's live processes:
//   - cpu_time: utime+stime of those processes since each started;
//   - cpu_util: CPU time they used since the previous tick over the wall
//     time between the ticks, in per cent of one core; NaN on the first
//     tick after Reset. A process first seen this tick adds nothing to it
//     (its CPU time before the tick is not known to fall in the interval);
//   - rss: resident set size.
//
// A workload none of whose processes is alive reads NaN, without a
// warning: that is how a workload ends (in a pair, the side that ends
// first), and a run whose workload never lived says so in its own record.
// An unreadable proc root fails the tick.
func (h *HostSampler) Sample(t Target) ([]Reading, error) {
	now := h.opts.Now()
	dev := 0
	if len(t.Devices) > 0 {
		dev = t.Devices[0]
	}
	next := make(map[procKey]uint64, len(h.prev))
	var readings []Reading
	for _, w := range t.Workloads() {
		var total, delta, rss uint64
		live, counted := 0, 0
		for _, pid := range t.Procs[w] {
			st, err := readProcStat(h.opts.ProcRoot, pid)
			if errors.Is(err, fs.ErrNotExist) {
				continue // exited
			}
			if err != nil {
				return nil, err
			}
			pages, err := readStatmRSS(h.opts.ProcRoot, pid)
			if errors.Is(err, fs.ErrNotExist) {
				continue // exited between the two reads
			}
			if err != nil {
				return nil, err
			}
			live++
			key := procKey{pid, st.start}
			cpu := st.utime + st.stime
			next[key] = cpu
			total += cpu
			rss += pages
			if before, ok := h.prev[key]; ok && cpu >= before {
				delta += cpu - before
				counted++
			}
		}
		v := NaNs(len(hostCounters))
		if live > 0 {
			hz := float64(h.opts.ClockTicks)
			v[1] = float64(total) / hz
			v[2] = float64(rss) * float64(h.opts.PageSize)
			if dt := now.Sub(h.prevAt).Seconds(); !h.prevAt.IsZero() && dt > 0 && counted > 0 {
				v[0] = float64(delta) / hz / dt * 100
			}
		}
		readings = append(readings, Reading{Device: dev, Workload: w, Values: v})
	}
	h.prev, h.prevAt = next, now
	return readings, nil
}

// Reset implements Resetter: the next tick starts a new CPU interval.
func (h *HostSampler) Reset() {
	clear(h.prev)
	h.prevAt = time.Time{}
}

// Warnings implements Warner.
func (h *HostSampler) Warnings() []string {
	w := h.warnings
	h.warnings = nil
	return w
}

// Close implements Sampler.
func (h *HostSampler) Close() error { return nil }

// procStat holds the fields of /proc/PID/stat the sampler uses.
type procStat struct {
	utime, stime, start uint64 // clock ticks
}

// readProcStat parses /proc/PID/stat. The command name (field 2) is in
// parentheses and may itself hold spaces and parentheses, so fields are
// counted from the last ')'.
func readProcStat(root string, pid int) (procStat, error) {
	path := filepath.Join(root, strconv.Itoa(pid), "stat")
	b, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("%s: no ')' after the command name", path)
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state): field n is f[n-3].
	if len(f) < 20 {
		return procStat{}, fmt.Errorf("%s: %d fields after the command name, want at least 20", path, len(f))
	}
	var st procStat
	var errs [3]error
	st.utime, errs[0] = strconv.ParseUint(string(f[14-3]), 10, 64)
	st.stime, errs[1] = strconv.ParseUint(string(f[15-3]), 10, 64)
	st.start, errs[2] = strconv.ParseUint(string(f[22-3]), 10, 64)
	if err := errors.Join(errs[:]...); err != nil {
		return procStat{}, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// readStatmRSS returns the resident pages of /proc/PID/statm (field 2).
func readStatmRSS(root string, pid int) (uint64, error) {
	path := filepath.Join(root, strconv.Itoa(pid), "statm")
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, fmt.Errorf("%s: %d fields, want at least 2", path, len(f))
	}
	n, err := strconv.ParseUint(string(f[1]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: resident pages: %w", path, err)
	}
	return n, nil
}
