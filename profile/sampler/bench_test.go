package sampler

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// BenchmarkTick measures one sampling tick: the host sampler on this
// machine's real /proc (a pair: two workloads), and a whole Recorder tick
// (process-tree walk, a GPU-shaped sampler that answers at once, the host
// sampler, merge, append). It reports the share of one core a 10 Hz
// sampler would use. The NVML sampler's own tick is measured by the
// benchmark of the same name in profile/sampler/nvml.
//
//	go test ./profile/sampler -run '^$' -bench Tick -benchmem
func BenchmarkTick(b *testing.B) {
	// The samples table is emptied every resetEvery ticks so memory does
	// not grow with b.N.
	const resetEvery = 20000
	self := os.Getpid()
	hostTarget := Target{Devices: []int{0}, Procs: map[string][]int{"a": {self}, "b": {os.Getppid()}}}

	// report adds the CPU time per tick (user+system of the whole process,
	// from getrusage, so kernel time in /proc reads counts) and the share
	// of one core that makes at 10 Hz.
	report := func(b *testing.B, cpuBefore time.Duration) {
		cpu := float64(cpuTime(b)-cpuBefore) / float64(b.N)
		b.ReportMetric(cpu, "cpu-ns/tick")
		b.ReportMetric(cpu*10/1e9*100, "%core@10Hz")
	}

	b.Run("host-pair", func(b *testing.B) {
		h, err := NewHostSampler(DefaultHostOptions)
		if err != nil {
			b.Fatal(err)
		}
		cpu0 := cpuTime(b)
		for b.Loop() {
			if _, err := h.Sample(hostTarget); err != nil {
				b.Fatal(err)
			}
		}
		report(b, cpu0)
	})

	b.Run("recorder-gpu+host", func(b *testing.B) {
		h, err := NewHostSampler(DefaultHostOptions)
		if err != nil {
			b.Fatal(err)
		}
		r, err := NewRecorder([]Sampler{steadyGPU(), h}, DefaultRecorderOptions)
		if err != nil {
			b.Fatal(err)
		}
		r.target = hostTarget
		r.samples = datasets.NewSamples(r.counters)
		r.log = &warnLog{index: map[string]int{}}
		at := time.Now()
		cpu0 := cpuTime(b)
		for i := 0; b.Loop(); i++ {
			if i%resetEvery == resetEvery-1 {
				b.StopTimer()
				r.samples.Reset()
				b.StartTimer()
			}
			r.tick(at)
			at = at.Add(DefaultRecorderOptions.Interval) // the tree is read every 10th tick, as at 10 Hz
		}
		report(b, cpu0)
		if len(r.log.entries) != 0 {
			b.Errorf("warnings: %v", r.log.list(r.ticks))
		}
	})
}

// cpuTime is the user+system CPU time of this process so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// steady is a sampler with the NVML sampler's device and per-process
// counters that answers every tick at once with the same readings, so the
// recorder benchmark measures the recorder, not a device.
type steady struct {
	counters []datasets.Counter
	tick     []Reading
}

func steadyGPU() *steady {
	cs := []datasets.Counter{CounterGPUUtil, CounterMemUtil, CounterMemUsed, CounterMemTotal, CounterSMClock,
		CounterMemClock, CounterPower, CounterTemperature, CounterProcSMUtil, CounterProcMemUtil, CounterProcMemUsed}
	vals := make([]float64, len(cs))
	for i := range vals {
		vals[i] = float64(i)
	}
	return &steady{cs, []Reading{{Device: 0, Values: vals}, {Device: 0, Workload: "a", Values: vals}, {Device: 0, Workload: "b", Values: vals}}}
}

func (s *steady) Name() string                     { return "gpu" }
func (s *steady) Counters() []datasets.Counter     { return s.counters }
func (s *steady) Sample(Target) ([]Reading, error) { return s.tick, nil }
func (s *steady) Close() error                     { return nil }
