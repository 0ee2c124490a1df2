package profile

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile/sampler"
)

// The fakes of the harness tests: workloads are testdata/fake.sh (a shell
// script that speaks the protocol with synthetic step times, or crashes,
// runs out of memory, hangs, ignores the protocol) started through
// testdata/fakepython.sh, which stands in for Python and torchrun.

func testdata(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// fake is a workload running fake.sh in the given mode.
func fake(name, mode string, args ...string) workload {
	return workload{
		Name: name, Class: "other", BatchSize: 4, Precision: "fp32", Protocol: protocolColoc,
		Command: append([]string{placeholderPython, "{suite_dir}/fake.sh", mode}, args...),
	}
}

func fakeSuite(t *testing.T, ws ...workload) *Suite {
	dir := testdata(t)
	return &Suite{Name: "fake", Path: filepath.Join(dir, "fake.yaml"), Dir: dir, Workloads: ws}
}

// fakeOptions run on "cpu" with window options that suit fake.sh's 40
// synthetic steps of 0.05 s, and short kill timings.
func fakeOptions(t *testing.T) RunOptions {
	o := DefaultRunOptions
	o.Python = filepath.Join(testdata(t), "fakepython.sh")
	o.DeviceKind = "cpu"
	o.Devices = []Device{{Index: 0, Type: "cpu"}}
	o.Duration = time.Second
	o.Window = WindowOptions{MinWarmup: 0, Span: 5, Tolerance: 0.1, MinSteps: 5}
	o.Timeout = 30 * time.Second
	o.KillGrace = 200 * time.Millisecond
	return o
}

// fakeMonitor records what it was asked to sample and returns one sample
// row per process and one device-wide row.
type fakeMonitor struct {
	mu      sync.Mutex
	started []string
	targets []sampler.Target
	runID   string
	target  sampler.Target
	// shared names, by run ID, another tenant the monitor reports.
	shared map[string]string
}

func (m *fakeMonitor) Start(runID string, t sampler.Target) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.started = append(m.started, runID)
	m.targets = append(m.targets, t)
	m.runID, m.target = runID, t
}

func (m *fakeMonitor) Stop() (*datasets.Table, sampler.Notes) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := datasets.NewSamples([]datasets.Counter{{Name: "util", Unit: "%"}})
	at := time.Unix(1700000000, 0)
	s.Append(m.runID, 0, "", at, []float64{50})
	for name := range m.target.Procs {
		s.Append(m.runID, 0, name, at, []float64{25})
	}
	n := sampler.Notes{Warnings: []string{"fake monitor: 1 tick"}}
	if msg := m.shared[m.runID]; msg != "" {
		n.Shared = []string{msg}
	}
	return s.Table(), n
}

func (m *fakeMonitor) pids() [][]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out [][]int
	for _, t := range m.targets {
		for _, p := range t.Procs {
			out = append(out, p)
		}
	}
	return out
}

// fakeSuiteFile writes a suite file of fake workloads (mode and flags of
// fake.sh per workload name, in order) into a temporary directory and
// loads it.
func fakeSuiteFile(t *testing.T, name string, workloads ...[2]string) *Suite {
	t.Helper()
	script := filepath.Join(testdata(t), "fake.sh")
	var b strings.Builder
	fmt.Fprintf(&b, "version: 1\nname: %s\ndefaults:\n  class: other\n  batch_size: 4\nworkloads:\n", name)
	for _, w := range workloads {
		args, _ := json.Marshal(append([]string{placeholderPython, script}, strings.Fields(w[1])...))
		fmt.Fprintf(&b, "  - name: %s\n    command: %s\n", w[0], args)
	}
	path := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSuite(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runShard executes shard i of n of suite s and plan options po into
// dir, as `coloc profile run --shard i/n` on a node whose device type is
// dev does.
func runShard(t *testing.T, dir string, s *Suite, po PlanOptions, i, n int, dev string) *Summary {
	t.Helper()
	plan, err := NewPlan(s, po)
	if err != nil {
		t.Fatal(err)
	}
	o := fakeOptions(t)
	o.Devices = []Device{{Index: 0, Type: dev}}
	c := &Campaign{
		Dir: dir, Suite: s, Plan: plan, Shard: fmt.Sprintf("%d/%d", i, n),
		Runner:   &Runner{Suite: s, Options: o, Monitor: &fakeMonitor{}},
		Hardware: Hardware{Host: fmt.Sprintf("node%d", i), Devices: o.Devices},
	}
	sum, err := c.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sum
}
