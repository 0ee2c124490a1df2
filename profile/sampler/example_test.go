package sampler_test

import (
	"fmt"
	"os"
	"time"

	"github.com/coloc-dev/coloc/profile/sampler"
)

// manualClock is a Clock whose ticks the caller sends.
type manualClock struct {
	now time.Time
	c   chan time.Time
}

func (m *manualClock) Now() time.Time                         { return m.now }
func (m *manualClock) NewTicker(time.Duration) sampler.Ticker { return m }
func (m *manualClock) C() <-chan time.Time                    { return m.c }
func (m *manualClock) Stop()                                  {}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// A run recorded the way the harness records one: Detect the samplers
// (here without NVML: no GPU), start the recorder on the run's target,
// stop it and take the samples. The proc root and the clock are fakes so
// the output is fixed; in coloc they are /proc and the wall clock.
func ExampleRecorder() {
	clk := &manualClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), c: make(chan time.Time)}
	found := sampler.Detect(nil, sampler.DetectOptions{
		Host: sampler.HostOptions{ProcRoot: "testdata/proc", PageSize: 4096, Now: clk.Now},
	})
	defer found.Close()
	fmt.Println("GPU:", found.GPUReason)

	rec, err := sampler.NewRecorder(found.Samplers(), sampler.RecorderOptions{
		Interval: 100 * time.Millisecond, Clock: clk, ProcRoot: "testdata/proc",
	})
	must(err)
	must(rec.Start("solo-a", sampler.Target{Procs: map[string][]int{"a": {101}}}))
	clk.c <- clk.now.Add(100 * time.Millisecond) // the next tick
	samples, notes, err := rec.Stop()
	must(err)

	t := samples.Table()
	for i := 0; i < t.Len(); i++ {
		fmt.Printf("%s device %s workload %s: cpu_time %.1f s, rss %.0f MiB\n",
			t.Column("timestamp").Format(i), t.Column("device").Format(i), t.Column("workload").Format(i),
			t.Column("cpu_time").FloatAt(i), t.Column("rss").FloatAt(i)/(1<<20))
	}
	fmt.Println(len(notes.Warnings), "warnings")
	// Output:
	// GPU: no GPU sampler given
	// 2026-03-01T12:00:00Z device 0 workload a: cpu_time 9.1 s, rss 301 MiB
	// 2026-03-01T12:00:00.1Z device 0 workload a: cpu_time 9.1 s, rss 301 MiB
	// 0 warnings
}

// Nsight Compute's CSV becomes one row per kernel launch, every metric in
// one unit.
func ExampleParseNCU() {
	f, err := os.Open("testdata/ncu/resnet18_h200_details.csv")
	must(err)
	defer f.Close()
	tab, warnings, err := sampler.ParseNCU(f, "resnet18_h200_details.csv")
	must(err)
	fmt.Println(tab.Format, len(tab.Kernels), "kernels,", len(tab.Metrics), "metrics,", len(warnings), "warning")
	dur := -1
	for j, m := range tab.Metrics {
		if m.Name == "Duration" {
			dur = j
			fmt.Printf("%s [%s]\n", m.Name, m.Unit)
		}
	}
	for _, k := range tab.Kernels {
		fmt.Printf("%d %.3g s %.40s\n", k.ID, k.Values[dur], k.Name)
	}
	// Output:
	// details 3 kernels, 20 metrics, 1 warning
	// Duration [s]
	// 0 3.01e-06 s void at::native::vectorized_elementwise_
	// 1 0.00123 s sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_ti
	// 2 2.43e-05 s void cudnn::bn_fw_tr_1C11_kernel_NCHW<fl
}

func ExampleDeviceType() {
	for _, name := range []string{"NVIDIA H200", "Tesla V100-SXM2-16GB", "NVIDIA GeForce RTX 3090"} {
		fmt.Println(sampler.DeviceType(name))
	}
	// Output:
	// h200
	// v100
	// rtx3090
}
