package nvml

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/profile/sampler"
	"github.com/coloc-dev/coloc/profile/sampler/nvml/nvmlfake"
)

// BenchmarkTick measures one tick of the NVML sampler on a mock H200 (a
// pair: one device, two workloads) and reports the share of one core a
// 10 Hz sampler would use. The mocks answer in nanoseconds where the
// driver answers in microseconds, so the numbers are coloc's own
// overhead, not the driver's. The host sampler and the Recorder are
// measured by the benchmark of the same name in profile/sampler.
//
//	go test ./profile/sampler/nvml -run '^$' -bench Tick -benchmem
func BenchmarkTick(b *testing.B) {
	// The go-nvml mocks log every call; a fresh mock every resetEvery ticks
	// keeps that log (and memory) from growing with b.N.
	const resetEvery = 20000
	self := os.Getpid()
	nvTarget := sampler.Target{Devices: []int{0}, Procs: map[string][]int{"a": {nvmlfake.PIDA, self}, "b": {nvmlfake.PIDB, nvmlfake.PIDB2}}}

	openFake := func(b *testing.B) *Sampler {
		s, err := Open(nvmlfake.NewH200(1).Server, DefaultOptions)
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
}

// cpuTime is the user+system CPU time of this process so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
