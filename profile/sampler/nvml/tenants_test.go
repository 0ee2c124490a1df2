package nvml

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/coloc-dev/coloc/profile/sampler"
	"github.com/coloc-dev/coloc/profile/sampler/nvml/nvmlfake"
)

// fakeProc writes ROOT/PID/comm, and ROOT/PID/task/PID/children when
// children are given: a process this sampler can see.
func fakeProc(t *testing.T, root string, pid int, comm string, children ...int) {
	t.Helper()
	dir := filepath.Join(root, strconv.Itoa(pid))
	task := filepath.Join(dir, "task", strconv.Itoa(pid))
	if err := os.MkdirAll(task, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "comm"), []byte(comm+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var kids []string
	for _, c := range children {
		kids = append(kids, strconv.Itoa(c))
	}
	if err := os.WriteFile(filepath.Join(task, "children"), []byte(strings.Join(kids, " ")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNVMLTellsTheRunFromOtherTenants lists on the device, besides or
// instead of the run's processes (a: PIDA, b: PIDB and PIDB2), processes
// of another tenant, of another PID namespace, the MPS server and a worker
// the run forked after the process tree was read, and checks what the
// per-process counters read and what the sampler warns.
func TestNVMLTellsTheRunFromOtherTenants(t *testing.T) {
	const gib = nvmlfake.GiB
	nan := math.NaN()
	cases := []struct {
		name   string
		listed []uint32
		// wantA, wantB: proc_mem_used of a and b
		wantA, wantB float64
		warn         []string // substrings of the one message; none when empty
		shared       bool     // the message is in Shared (another tenant), not Warnings
	}{
		{"only the run's", []uint32{nvmlfake.PIDA, nvmlfake.PIDB}, 1 * gib, 1 * gib, nil, false},
		{"another tenant beside the run", []uint32{nvmlfake.PIDA, nvmlfake.PIDB, 4242}, 1 * gib, 1 * gib,
			[]string{"device 0: GetComputeRunningProcesses lists processes that are not the run's: 4242 (python3)", "shared with another tenant"}, true},
		{"another tenant before the run's start", []uint32{4242}, 0, 0,
			[]string{"4242 (python3)", "shared with another tenant"}, true},
		{"the MPS server", []uint32{nvmlfake.PIDA, 555}, 1 * gib, 0, nil, false},
		{"a worker forked since the tree was read", []uint32{nvmlfake.PIDA, 700}, 1 * gib, 0, nil, false},
		{"inside a container: host PIDs only", []uint32{900001, 900002}, nan, nan,
			[]string{"lists PIDs 900001, 900002, none of them the run's and none in this PID namespace", "read as NaN", "--pid=host", "hostPID: true"}, false},
		{"another container's process beside the run", []uint32{nvmlfake.PIDA, nvmlfake.PIDB, 900003}, 1 * gib, 1 * gib,
			[]string{"besides the run's, PIDs 900003 of another PID namespace"}, false},
		{"many tenants", []uint32{11, 12, 13, 14, 15, 16, 17}, 0, 0,
			[]string{"11 (python3), 12 (python3), 13 (python3), 14 (python3), 15 (python3) and 2 more"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for _, p := range []int{4242, 11, 12, 13, 14, 15, 16, 17} {
				fakeProc(t, root, p, "python3")
			}
			fakeProc(t, root, 555, "nvidia-cuda-mps")
			fakeProc(t, root, nvmlfake.PIDA, "python3", 700)
			fakeProc(t, root, 700, "pt_main_thread")
			f := nvmlfake.NewH200(1)
			dev := f.Server.Devices[0].(*server.Device)
			dev.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
				var out []nvml.ProcessInfo
				for _, p := range tc.listed {
					out = append(out, nvml.ProcessInfo{Pid: p, UsedGpuMemory: 1 * gib})
				}
				return out, nvml.SUCCESS
			}
			s := mustOpen(t, f, Options{ProcRoot: root})
			rs, err := s.Sample(pairTarget)
			if err != nil {
				t.Fatal(err)
			}
			cs := s.Counters()
			for i, want := range []float64{tc.wantA, tc.wantB} {
				got := value(t, cs, rs[1+i], "proc_mem_used")
				if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
					t.Errorf("%s: proc_mem_used %v, want %v", rs[1+i].Workload, got, want)
				}
			}
			about := func(msgs []string) []string {
				var out []string
				for _, w := range msgs {
					if strings.Contains(w, "GetComputeRunningProcesses") {
						out = append(out, w)
					}
				}
				return out
			}
			warns, shared := about(s.Warnings()), about(s.Shared())
			if tc.shared {
				warns, shared = shared, warns
			}
			if len(shared) != 0 {
				t.Errorf("messages %q in the wrong list (shared: %v)", shared, tc.shared)
			}
			if len(tc.warn) == 0 {
				if len(warns) != 0 {
					t.Errorf("messages %q, want none", warns)
				}
				return
			}
			if len(warns) != 1 {
				t.Fatalf("messages %q, want one", warns)
			}
			for _, sub := range tc.warn {
				if !strings.Contains(warns[0], sub) {
					t.Errorf("warning %q does not say %q", warns[0], sub)
				}
			}
		})
	}
}

// TestNVMLProcessUtilizationInAContainer: per-process utilisation samples
// that name only PIDs of another namespace leave proc_sm_util and
// proc_mem_util NaN, not 0, and say why.
func TestNVMLProcessUtilizationInAContainer(t *testing.T) {
	f := nvmlfake.NewH200(1)
	dev := f.Server.Devices[0].(*server.Device)
	dev.GetProcessUtilizationFunc = func(last uint64) ([]nvml.ProcessUtilizationSample, nvml.Return) {
		return []nvml.ProcessUtilizationSample{{Pid: 800001, TimeStamp: last + 1, SmUtil: 70, MemUtil: 20}}, nvml.SUCCESS
	}
	s := mustOpen(t, f, DefaultOptions)
	rs, err := s.Sample(pairTarget)
	if err != nil {
		t.Fatal(err)
	}
	for _, rd := range rs[1:] {
		for _, c := range []string{"proc_sm_util", "proc_mem_util"} {
			if v := value(t, s.Counters(), rd, c); !math.IsNaN(v) {
				t.Errorf("%s: %s %v, want NaN", rd.Workload, c, v)
			}
		}
	}
	w := strings.Join(s.Warnings(), "\n")
	if !strings.Contains(w, "GetProcessUtilization lists PIDs 800001, none of them the run's") {
		t.Errorf("warnings %q do not name the unattributable PIDs", w)
	}
}

// TestNVMLLastRunIsNoTenant: NVML still listing the last run's process at
// the next run's first tick (after Reset) is neither another tenant nor a
// sign of another PID namespace; two runs later the same PID is.
func TestNVMLLastRunIsNoTenant(t *testing.T) {
	f := nvmlfake.NewH200(1)
	dev := f.Server.Devices[0].(*server.Device)
	listed := []uint32{nvmlfake.PIDA}
	dev.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
		var out []nvml.ProcessInfo
		for _, p := range listed {
			out = append(out, nvml.ProcessInfo{Pid: p, UsedGpuMemory: nvmlfake.GiB})
		}
		return out, nvml.SUCCESS
	}
	s := mustOpen(t, f, DefaultOptions)
	next := sampler.Target{Devices: []int{0}, Procs: map[string][]int{"c": {201}}}
	for run, tg := range []sampler.Target{pairTarget, next, next} {
		s.Reset()
		rs, err := s.Sample(tg)
		if err != nil {
			t.Fatal(err)
		}
		w := strings.Join(s.Warnings(), "\n")
		if stale := strings.Contains(w, "PIDs 101, none of them the run's"); stale != (run == 2) {
			t.Errorf("run %d: warnings %q; want the lingering PID 101 named only two runs after its own", run, w)
		}
		if v := value(t, s.Counters(), rs[1], "proc_mem_used"); run == 1 && v != 0 {
			t.Errorf("run 1: c's proc_mem_used %v, want 0 (the last run's process is not c's)", v)
		}
	}
}

// TestNVMLTenants: before a campaign's first run every compute process on
// its GPUs is someone else's; each is named, with its memory, the MPS
// server aside, and a GPU with none gives no message.
func TestNVMLTenants(t *testing.T) {
	root := t.TempDir()
	fakeProc(t, root, 4242, "python3")
	fakeProc(t, root, 555, "nvidia-cuda-mps")
	f := nvmlfake.NewH200(3)
	lists := [][]nvml.ProcessInfo{
		{{Pid: 4242, UsedGpuMemory: 3 << 30}, {Pid: 555, UsedGpuMemory: 1 << 29}, {Pid: 900001, UsedGpuMemory: math.MaxUint64}},
		{{Pid: 555, UsedGpuMemory: 1 << 29}},
		{{Pid: 4242, UsedGpuMemory: 1 << 30}},
	}
	for i, l := range lists {
		dev := f.Server.Devices[i].(*server.Device)
		dev.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) { return l, nvml.SUCCESS }
	}
	s := mustOpen(t, f, Options{ProcRoot: root})
	got := s.Tenants([]int{0, 1, 7})
	want := "GPU 0 already runs 2 compute process(es) before the campaign's first run: 4242 (python3, 3.0 GiB), 900001 (not in this PID namespace)"
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Fatalf("tenants %q, want one message starting %q (GPU 1 holds only the MPS server, GPU 7 does not exist, GPU 2 was not asked)", got, want)
	}
	if got := s.Tenants([]int{2}); len(got) != 1 || !strings.Contains(got[0], "GPU 2 already runs 1 compute process(es)") {
		t.Errorf("GPU 2: %q", got)
	}
}

// TestNVMLClassifiesAPIDOncePerRun: what a listed PID was found to be is
// kept for the run, so /proc is not read for it at every tick; the next
// run looks again.
func TestNVMLClassifiesAPIDOncePerRun(t *testing.T) {
	root := t.TempDir()
	fakeProc(t, root, nvmlfake.PIDA, "python3", 700)
	fakeProc(t, root, 700, "pt_main_thread")
	f := nvmlfake.NewH200(1)
	dev := f.Server.Devices[0].(*server.Device)
	dev.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
		return []nvml.ProcessInfo{{Pid: nvmlfake.PIDA, UsedGpuMemory: nvmlfake.GiB}, {Pid: 700, UsedGpuMemory: nvmlfake.GiB}}, nvml.SUCCESS
	}
	s := mustOpen(t, f, Options{ProcRoot: root})
	tg := sampler.Target{Devices: []int{0}, Procs: map[string][]int{"a": {nvmlfake.PIDA}}}
	warned := func() bool {
		if _, err := s.Sample(tg); err != nil {
			t.Fatal(err)
		}
		return strings.Contains(strings.Join(s.Warnings(), "\n"), "700")
	}
	s.Reset()
	if warned() {
		t.Fatal("tick 1: the run's own worker 700 was warned of")
	}
	// /proc no longer shows 700: read again, it would be another namespace's.
	if err := os.RemoveAll(filepath.Join(root, "700")); err != nil {
		t.Fatal(err)
	}
	if warned() {
		t.Error("tick 2: PID 700 was looked up again within the run")
	}
	s.Reset()
	if !warned() {
		t.Error("next run: PID 700 was not looked up again")
	}
}

// Messages nobody takes are kept up to maxPendingWarnings, then counted;
// taking them empties the list.
func TestPendingIsBounded(t *testing.T) {
	var p pending
	for i := range maxPendingWarnings + 2 {
		p.add(fmt.Sprintf("m%d", i))
	}
	got := p.take()
	if len(got) != maxPendingWarnings+1 || got[0] != "m0" || got[len(got)-1] != "2 more messages dropped (nobody read them)" {
		t.Errorf("%d messages, last %q", len(got), got[len(got)-1])
	}
	if again := p.take(); len(again) != 0 {
		t.Errorf("taken twice: %q", again)
	}
}
