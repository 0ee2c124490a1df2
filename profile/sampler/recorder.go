package sampler

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// Clock is where the Recorder gets time. The default is the wall clock;
// tests pass a fake whose ticks they send by hand, so no test depends on
// timing.
type Clock interface {
	Now() time.Time
	NewTicker(d time.Duration) Ticker
}

// Ticker delivers ticks on C until stopped.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

type wallClock struct{}

func (wallClock) Now() time.Time                   { return time.Now() }
func (wallClock) NewTicker(d time.Duration) Ticker { return wallTicker{time.NewTicker(d)} }

type wallTicker struct{ t *time.Ticker }

func (w wallTicker) C() <-chan time.Time { return w.t.C }
func (w wallTicker) Stop()               { w.t.Stop() }

// RecorderOptions configures a Recorder. Zero fields take the values of
// DefaultRecorderOptions.
type RecorderOptions struct {
	// Interval is the time between ticks (coloc profile run --interval).
	Interval time.Duration
	// Clock times the ticks; nil is the wall clock.
	Clock Clock
	// ProcRoot is where workload process trees are read (see Descendants).
	ProcRoot string
	// NoChildren samples only the PIDs given in the Target, without
	// following the processes they start.
	NoChildren bool
	// TreeEvery is how often each workload's process tree is read again
	// (a read costs a few system calls per thread of every process, so it
	// is not done every tick). A process started in between is sampled
	// from the next read on.
	TreeEvery time.Duration
}

// DefaultRecorderOptions: a tick every 100 ms, on the wall clock, following
// each workload's child processes through /proc.
var DefaultRecorderOptions = RecorderOptions{Interval: 100 * time.Millisecond, Clock: wallClock{}, ProcRoot: "/proc", TreeEvery: time.Second}

func (o RecorderOptions) withDefaults() RecorderOptions {
	d := DefaultRecorderOptions
	if o.Interval <= 0 {
		o.Interval = d.Interval
	}
	if o.Clock == nil {
		o.Clock = d.Clock
	}
	if o.ProcRoot == "" {
		o.ProcRoot = d.ProcRoot
	}
	if o.TreeEvery <= 0 {
		o.TreeEvery = d.TreeEvery
	}
	return o
}

// Recorder runs samplers every interval on its own goroutine while a run
// is going, and merges the readings of each tick into rows of a samples
// table: one row per (device, workload) that any sampler read, with the
// union of the samplers' counters as columns. It records one run at a
// time: Start, then Stop.
type Recorder struct {
	samplers []Sampler
	offsets  []int // first column of each sampler
	counters []datasets.Counter
	opts     RecorderOptions

	mu      sync.Mutex
	running bool
	stop    chan struct{}
	done    chan struct{}
	run     string
	target  Target
	samples *datasets.Samples
	log     *warnLog
	shared  *warnLog
	ticks   int
	tree    map[string][]int // the target's PIDs and their descendants
	treeAt  time.Time        // when tree was read
}

// reservedColumns are the samples table's own columns; no counter may
// take their names.
var reservedColumns = map[string]bool{"run_id": true, "device": true, "workload": true, "timestamp": true}

// NewRecorder returns a recorder over samplers. Their counters must have
// distinct names, none of the samples table's own, and a unit each.
func NewRecorder(samplers []Sampler, opts RecorderOptions) (*Recorder, error) {
	r := &Recorder{samplers: samplers, opts: opts.withDefaults()}
	seen := map[string]string{}
	for _, s := range samplers {
		r.offsets = append(r.offsets, len(r.counters))
		for _, c := range s.Counters() {
			switch {
			case reservedColumns[c.Name]:
				return nil, fmt.Errorf("sampler %s: counter %q has the name of a samples column", s.Name(), c.Name)
			case c.Unit == "":
				return nil, fmt.Errorf("sampler %s: counter %q has no unit", s.Name(), c.Name)
			case seen[c.Name] != "":
				return nil, fmt.Errorf("counter %q is filled by both sampler %s and sampler %s", c.Name, seen[c.Name], s.Name())
			}
			seen[c.Name] = s.Name()
			r.counters = append(r.counters, c)
		}
	}
	return r, nil
}

// Counters returns the columns every table of this recorder has after
// run_id, device, workload and timestamp.
func (r *Recorder) Counters() []datasets.Counter { return r.counters }

// Tenants asks every sampler that can (TenantLister) what else runs on
// devices. It is refused while a run is being recorded, when the run's
// own processes would be listed too.
func (r *Recorder) Tenants(devices []int) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running {
		return nil, fmt.Errorf("recorder: tenants: run %s is being recorded", r.run)
	}
	var out []string
	for _, s := range r.samplers {
		if tl, ok := s.(TenantLister); ok {
			out = append(out, tl.Tenants(devices)...)
		}
	}
	return out, nil
}

// Start begins sampling run runID on target t: it resets the samplers'
// between-tick state, takes the first tick at once and one every interval
// after it, until Stop.
func (r *Recorder) Start(runID string, t Target) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running {
		return fmt.Errorf("recorder: start run %s: run %s is still being recorded", runID, r.run)
	}
	for _, s := range r.samplers {
		if rs, ok := s.(Resetter); ok {
			rs.Reset()
		}
	}
	r.running, r.run, r.target, r.ticks, r.tree = true, runID, t, 0, nil
	r.samples = datasets.NewSamples(r.counters)
	r.log = &warnLog{index: map[string]int{}}
	r.shared = &warnLog{index: map[string]int{}}
	r.stop, r.done = make(chan struct{}), make(chan struct{})
	ticker := r.opts.Clock.NewTicker(r.opts.Interval)
	go r.loop(ticker)
	return nil
}

func (r *Recorder) loop(ticker Ticker) {
	defer close(r.done)
	defer ticker.Stop()
	r.tick(r.opts.Clock.Now())
	for {
		select {
		case <-r.stop:
			return
		case at := <-ticker.C():
			r.tick(at)
		}
	}
}

// Stop ends the run and returns its samples and notes: ticks that
// failed, counters that read NaN and why, what else ran on the run's
// devices, each message once with how many ticks it concerned. The
// returned Samples belong to the caller.
func (r *Recorder) Stop() (*datasets.Samples, Notes, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.running {
		return nil, Notes{}, errors.New("recorder: stop: no run is being recorded")
	}
	close(r.stop)
	<-r.done
	r.running = false
	s := r.samples
	n := Notes{Warnings: r.log.list(r.ticks), Shared: r.shared.list(r.ticks)}
	r.samples, r.log, r.shared = nil, nil, nil
	return s, n, nil
}

// rowKey identifies a row of one tick.
type rowKey struct {
	device   int
	workload string
}

// tick runs every sampler once and appends the merged rows.
func (r *Recorder) tick(at time.Time) {
	r.ticks++
	t := r.target
	if !r.opts.NoChildren && len(t.Procs) > 0 {
		if r.tree == nil || at.Sub(r.treeAt) >= r.opts.TreeEvery {
			r.tree = make(map[string][]int, len(t.Procs))
			for w, pids := range t.Procs {
				r.tree[w] = Descendants(r.opts.ProcRoot, pids)
			}
			r.treeAt = at
		}
		t.Procs = r.tree
	}
	rows := map[rowKey][]float64{}
	for i, s := range r.samplers {
		readings, err := sampleSafely(s, t)
		if w, ok := s.(Warner); ok {
			for _, msg := range w.Warnings() {
				r.log.add(s.Name()+": "+msg, r.ticks, at)
			}
		}
		if sh, ok := s.(Sharer); ok {
			for _, msg := range sh.Shared() {
				r.shared.add(s.Name()+": "+msg, r.ticks, at)
			}
		}
		if err != nil {
			r.log.add(fmt.Sprintf("%s: tick failed, no readings from it: %v", s.Name(), err), r.ticks, at)
			continue
		}
		n := len(s.Counters())
		for _, rd := range readings {
			if len(rd.Values) != n {
				r.log.add(fmt.Sprintf("%s: reading with %d values for %d counters dropped", s.Name(), len(rd.Values), n), r.ticks, at)
				continue
			}
			k := rowKey{rd.Device, rd.Workload}
			row, ok := rows[k]
			if !ok {
				row = NaNs(len(r.counters))
				rows[k] = row
			}
			copy(row[r.offsets[i]:], rd.Values)
		}
	}
	keys := make([]rowKey, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a].device != keys[b].device {
			return keys[a].device < keys[b].device
		}
		return keys[a].workload < keys[b].workload
	})
	for _, k := range keys {
		row := rows[k]
		for j, v := range row {
			if math.IsInf(v, 0) {
				r.log.add(fmt.Sprintf("counter %s is infinite; stored as null", r.counters[j].Name), r.ticks, at)
				row[j] = math.NaN()
			}
		}
		r.samples.Append(r.run, k.device, k.workload, at, row)
	}
}

// sampleSafely turns a sampler's panic into a failed tick: a bug in one
// sampler must not end a campaign of many hours.
func sampleSafely(s Sampler, t Target) (readings []Reading, err error) {
	defer func() {
		if p := recover(); p != nil {
			readings, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	return s.Sample(t)
}

// warnLog keeps each distinct warning once, in order of first appearance,
// with how many ticks raised it.
type warnLog struct {
	index   map[string]int
	entries []warnEntry
}

type warnEntry struct {
	msg         string
	count       int
	firstTick   int
	firstAt     time.Time
	lastCounted int
}

func (l *warnLog) add(msg string, tick int, at time.Time) {
	i, ok := l.index[msg]
	if !ok {
		l.index[msg] = len(l.entries)
		l.entries = append(l.entries, warnEntry{msg: msg, count: 1, firstTick: tick, firstAt: at, lastCounted: tick})
		return
	}
	if e := &l.entries[i]; e.lastCounted != tick {
		e.count++
		e.lastCounted = tick
	}
}

func (l *warnLog) list(ticks int) []string {
	out := make([]string, len(l.entries))
	for i, e := range l.entries {
		at := e.firstAt.UTC().Format(time.RFC3339Nano)
		if e.count == 1 {
			out[i] = fmt.Sprintf("tick %d of %d (%s): %s", e.firstTick, ticks, at, e.msg)
		} else {
			out[i] = fmt.Sprintf("%s (in %d of %d ticks, first at tick %d, %s)", e.msg, e.count, ticks, e.firstTick, at)
		}
	}
	return out
}
