package sampler

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile/sampler/nvmlfake"
)

// BenchmarkTick measures one sampling tick: the NVML sampler on a mock
// H200 (a pair: one device, two workloads), the host sampler on this
// machine's real /proc, and a whole Recorder tick (process-tree walk,
// both samplers, merge, append). It reports the share of one core a
// 10 Hz sampler would use. The mocks answer in nanoseconds where the
// driver answers in microseconds, so the NVML numbers are coloc's own
// overhead, not the driver's.
//
//	go test ./profile -run '^$' -bench Tick -benchmem
func BenchmarkTick(b *testing.B) {
	// The go-nvml mocks log every call; a fresh mock every resetEvery ticks
	// keeps that log (and memory) from growing with b.N.
	const resetEvery = 20000
	self := os.Getpid()
	hostTarget := Target{Devices: []int{0}, Procs: map[string][]int{"a": {self}, "b": {os.Getppid()}}}
	nvTarget := Target{Devices: []int{0}, Procs: map[string][]int{"a": {nvmlfake.PIDA, self}, "b": {nvmlfake.PIDB, nvmlfake.PIDB2}}}

	openFake := func(b *testing.B) *NVMLSampler {
		s, err := OpenNVML(nvmlfake.NewH200(1).Server, DefaultNVMLOptions)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	// report adds the CPU time per tick (user+system of the whole process,
	// from getrusage, so kernel time in /proc reads counts) and the share
	// of one core that makes at 10 Hz.
	report := func(b *testing.B, cpuBefore time.Duration) {
		cpu := float64(cpuTime(b)-cpuBefore) / float64(b.N)
		b.ReportMetric(cpu, "cpu-ns/tick")
		b.ReportMetric(cpu*10/1e9*100, "%core@10Hz")
	}

	b.Run("nvml-h200-pair", func(b *testing.B) {
		s := openFake(b)
		cpu0 := cpuTime(b)
		for i := 0; b.Loop(); i++ {
			if i%resetEvery == resetEvery-1 {
				b.StopTimer()
				s.Close()
				s = openFake(b)
				b.StartTimer()
			}
			if _, err := s.Sample(nvTarget); err != nil {
				b.Fatal(err)
			}
			s.Warnings()
		}
		s.Close()
		report(b, cpu0)
	})

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

	b.Run("recorder-nvml+host", func(b *testing.B) {
		h, err := NewHostSampler(DefaultHostOptions)
		if err != nil {
			b.Fatal(err)
		}
		nv := openFake(b)
		sw := &swappable{nv}
		r, err := NewRecorder([]Sampler{sw, h}, DefaultRecorderOptions)
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
				sw.s.Close()
				sw.s = openFake(b)
				r.samples.Reset()
				b.StartTimer()
			}
			r.tick(at)
			at = at.Add(DefaultRecorderOptions.Interval) // the tree is read every 10th tick, as at 10 Hz
		}
		sw.s.Close()
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

// swappable lets the benchmark replace the mock behind a Recorder.
type swappable struct{ s *NVMLSampler }

func (w *swappable) Name() string                       { return w.s.Name() }
func (w *swappable) Counters() []datasets.Counter       { return w.s.Counters() }
func (w *swappable) Sample(t Target) ([]Reading, error) { return w.s.Sample(t) }
func (w *swappable) Close() error                       { return w.s.Close() }
