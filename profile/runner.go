package profile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile/sampler"
)

// Device is one GPU the harness runs on, or the host when it runs on CPU.
type Device struct {
	Index       int    `json:"index"`
	Type        string `json:"type"` // lower-case GPU type such as "h200", or "cpu"
	Name        string `json:"name,omitempty"`
	UUID        string `json:"uuid,omitempty"`
	MemoryBytes uint64 `json:"memory_bytes,omitempty"` // 0 = unknown: no memory pre-check
	// ComputeMode and PowerLimitW are NVML's (sampler.Device): a pair
	// cannot share a GPU in compute mode exclusive_process without MPS,
	// and runs under different power caps are not comparable.
	ComputeMode string  `json:"compute_mode,omitempty"`
	PowerLimitW float64 `json:"power_limit_w,omitempty"`
}

// Monitor samples counters while a run goes on. Start is called once the
// run's processes have started (Target.Procs holds each workload's process
// group leader, whose PID is also the group's ID: a sampler that wants the
// torchrun workers expands the group); Stop ends sampling and returns the
// run's samples table (nil when there is none) and what the samplers said
// (warnings, other tenants seen).
type Monitor interface {
	Start(runID string, t sampler.Target)
	Stop() (*datasets.Table, sampler.Notes)
}

// nopMonitor samples nothing: the monitor of a machine without a GPU.
type nopMonitor struct{}

// Start does nothing.
func (nopMonitor) Start(string, sampler.Target) {}

// Stop returns no samples.
func (nopMonitor) Stop() (*datasets.Table, sampler.Notes) { return nil, sampler.Notes{} }

// RunOptions control how runs execute.
type RunOptions struct {
	// Python replaces {python} in commands.
	Python string
	// DeviceKind is passed as --device: "cuda" or "cpu".
	DeviceKind string
	// Devices are the GPUs, in the order runs take them: solo and pair
	// runs use the first, a run of degree k the first k. On CPU it holds
	// one Device of type "cpu".
	Devices []Device
	// Duration is passed as --duration.
	Duration time.Duration
	Window   WindowOptions
	// Timeout kills a run still going this long after it started; 0 means
	// Duration plus DefaultGrace.
	Timeout time.Duration
	// KillGrace is the time between SIGTERM and SIGKILL.
	KillGrace time.Duration
	// Share is how a pair shares its GPU: datasets.ShareTimeSlice or
	// datasets.ShareMPS.
	Share string
	// Launcher is the torchrun launcher script of degree > 1 runs, run as
	// `{python} LAUNCHER --standalone --nproc_per_node k ...`; "" runs
	// `{python} -m torch.distributed.run` instead. A Campaign sets it to
	// the embedded torchrun_compat.py (see launcher.go).
	Launcher string
	// ProcessOverhead is added per process to the measured peak memories
	// in the pair pre-check (CUDA context and allocator slack, which
	// max_memory_allocated does not count), in bytes.
	ProcessOverhead float64
}

// defaultGrace is how long past --duration a run may take before it is
// killed when no timeout is given.
const defaultGrace = 2 * time.Minute

// DefaultRunOptions are the defaults of `coloc profile run`.
var DefaultRunOptions = RunOptions{
	Python:          "python3",
	DeviceKind:      "cuda",
	Duration:        60 * time.Second,
	Window:          DefaultWindowOptions,
	KillGrace:       10 * time.Second,
	Share:           datasets.ShareTimeSlice,
	ProcessOverhead: 512 << 20,
}

// Runner executes the runs of a plan, one at a time.
type Runner struct {
	Suite   *Suite
	Options RunOptions
	Monitor Monitor
	// Env is added to every workload's environment (MPS settings).
	Env []string
	// LogDir, when set, receives each process's stderr as
	// <run>.<label>.stderr.
	LogDir string
	// liveFile, when set, names the processes of the run in progress
	// while it runs (leftover.go), so that a campaign resumed after this
	// one was killed can stop them.
	LiveFile string
}

// run executes one planned run and returns its record and samples. A
// workload that fails is a record with status failed, not an error; the
// error is ctx's when the run was interrupted (nothing of it is kept) or a
// fault of the harness.
func (r *Runner) run(ctx context.Context, pr PlannedRun) (*RunRecord, *datasets.Table, error) {
	o := r.Options
	if pr.Degree > len(o.Devices) {
		return nil, nil, fmt.Errorf("run %s: degree %d but %d devices", pr.ID, pr.Degree, len(o.Devices))
	}
	devs := o.Devices[:pr.Degree]
	var gpus []int
	for _, d := range devs {
		if o.DeviceKind == "cuda" {
			gpus = append(gpus, d.Index)
		}
	}
	rec := &RunRecord{
		RunID: pr.ID, Mode: pr.Mode, Degree: pr.Degree, Repeat: pr.Repeat,
		DeviceType: devs[0].Type, DeviceIDs: DeviceIndices(devs), Share: shareMode(pr, o.Share),
	}
	var wls []workload
	var cmds []command
	var logs []*os.File
	var logPaths []string
	defer func() {
		for _, f := range logs {
			f.Close()
		}
	}()
	env := []string{"PYTHONUNBUFFERED=1", "CUDA_DEVICE_ORDER=PCI_BUS_ID", "CUDA_VISIBLE_DEVICES=" + visible(o.DeviceKind, rec.DeviceIDs)}
	env = append(env, r.Env...)
	for i, name := range pr.Workloads {
		w, ok := r.Suite.workloadNamed(name)
		if !ok {
			return nil, nil, fmt.Errorf("run %s: no workload %q in suite %s", pr.ID, name, r.Suite.Name)
		}
		argv, err := r.argv(w, pr.Degree, pr.Repeat)
		if err != nil {
			return nil, nil, fmt.Errorf("run %s: %w", pr.ID, err)
		}
		c := command{Label: label(pr.Workloads, i), Argv: argv, Env: env}
		logPaths = append(logPaths, "")
		if r.LogDir != "" {
			path := filepath.Join(r.LogDir, pr.ID+"."+c.Label+".stderr")
			f, err := os.Create(path)
			if err != nil {
				return nil, nil, err
			}
			logs = append(logs, f)
			c.Log = f
			logPaths[i] = path
		}
		wls = append(wls, w)
		cmds = append(cmds, c)
	}
	mon := r.Monitor
	if mon == nil {
		mon = nopMonitor{}
	}
	started := false
	g := group{
		Timeout:   r.timeout(wls),
		KillGrace: o.KillGrace,
		FailFast:  len(cmds) > 1,
		Started: func(pids []int) {
			if r.LiveFile != "" {
				labels := make([]string, len(cmds))
				for i, c := range cmds {
					labels[i] = c.Label
				}
				if err := writeLive(r.LiveFile, pr.ID, labels, pids); err != nil {
					rec.Warnings = append(rec.Warnings, fmt.Sprintf("naming the run's processes in %s: %v (were coloc killed now, a resume could not stop them)", r.LiveFile, err))
				}
			}
			t := sampler.Target{Devices: gpus, Procs: map[string][]int{}}
			for i, pid := range pids {
				t.Procs[cmds[i].Label] = []int{pid}
			}
			mon.Start(pr.ID, t)
			started = true
		},
	}
	rec.Start = time.Now().UTC()
	exits, err := g.run(ctx, cmds)
	rec.End = time.Now().UTC()
	if r.LiveFile != "" {
		// g.run has stopped every process of the run: none is left.
		if rerr := os.Remove(r.LiveFile); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			rec.Warnings = append(rec.Warnings, fmt.Sprintf("removing %s: %v", r.LiveFile, rerr))
		}
	}
	var samples *datasets.Table
	if started {
		var notes sampler.Notes
		samples, notes = mon.Stop()
		rec.Warnings = append(rec.Warnings, notes.Warnings...)
		rec.Shared = notes.Shared
	}
	if err != nil && ctx.Err() != nil {
		return nil, nil, err
	}
	if err != nil { // a command that could not start: this run fails, the campaign goes on
		for i, w := range wls {
			rec.Sides = append(rec.Sides, sideRecord{Workload: w.Name, Label: cmds[i].Label, Log: logPaths[i]})
			rec.Sides[i].fail(err.Error())
		}
		rec.settle()
		return rec, samples, nil
	}
	rec.Sides, rec.Warnings = evaluate(wls, exits, pr.Mode == datasets.ModePair, o.Window, rec.Warnings)
	for i := range rec.Sides {
		rec.Sides[i].Log = logPaths[i]
	}
	rec.settle()
	return rec, samples, nil
}

// timeout is the run's time limit.
func (r *Runner) timeout(wls []workload) time.Duration {
	if r.Options.Timeout > 0 {
		return r.Options.Timeout
	}
	d := r.Options.Duration
	for _, w := range wls {
		if w.Protocol == protocolNone && w.EstStepS > 0 {
			d = max(d, 2*time.Duration(float64(w.Steps)*w.EstStepS*float64(time.Second)))
		}
	}
	return d + defaultGrace
}

// argv builds the command line of w: placeholders substituted, the standard
// arguments appended (protocol workloads only), under torchrun at degree > 1.
func (r *Runner) argv(w workload, degree, repeat int) ([]string, error) {
	dir, err := filepath.Abs(r.Suite.Dir)
	if err != nil {
		return nil, err
	}
	rep := strings.NewReplacer(placeholderPython, r.Options.Python, placeholderSuiteDir, dir)
	argv := make([]string, len(w.Command))
	for i, a := range w.Command {
		argv[i] = rep.Replace(a)
	}
	if w.Protocol == protocolColoc {
		argv = append(argv,
			"--device", r.Options.DeviceKind,
			"--batch-size", strconv.Itoa(w.BatchSize),
			"--precision", w.Precision,
			"--duration", strconv.FormatFloat(r.Options.Duration.Seconds(), 'f', -1, 64),
			"--seed", strconv.Itoa(repeat))
	}
	if degree > 1 {
		if len(w.Command) < 2 || w.Command[0] != placeholderPython {
			return nil, fmt.Errorf("workload %s: degree %d runs under torchrun, which needs a command starting with %s and the script", w.Name, degree, placeholderPython)
		}
		launch := []string{r.Options.Python, "-m", "torch.distributed.run"}
		if r.Options.Launcher != "" {
			launch = []string{r.Options.Python, r.Options.Launcher}
		}
		argv = append(append(launch, "--standalone", "--nproc_per_node", strconv.Itoa(degree)), argv[1:]...)
	}
	return argv, nil
}

// visible is CUDA_VISIBLE_DEVICES: the run's GPUs, none on CPU.
func visible(kind, ids string) string {
	if kind != "cuda" {
		return ""
	}
	return ids
}

// label names workload i of a run; the second copy of a workload paired
// with itself is "<name>#2".
func label(workloads []string, i int) string {
	if i == 1 && workloads[0] == workloads[1] {
		return workloads[1] + "#2"
	}
	return workloads[i]
}

func shareMode(pr PlannedRun, share string) string {
	if pr.Mode != datasets.ModePair {
		return datasets.ShareExclusive
	}
	if share == "" {
		return datasets.ShareTimeSlice
	}
	return share
}
