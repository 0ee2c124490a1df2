package nvml

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/coloc-dev/coloc/internal/textlist"
	"github.com/coloc-dev/coloc/profile/sampler"
)

// mpsServer is the command name (/proc/PID/comm, 15 bytes at most) of the
// MPS server, which NVML may list in its clients' stead.
const mpsServer = "nvidia-cuda-mps"

// maxNamed bounds the PIDs a warning names.
const maxNamed = 5

// attribute checks the PIDs an NVML call listed on device d against the
// run's processes (procs, every workload's process tree as the Recorder
// last read it). It reports whether the call's per-process values can be
// given to the workloads, and names every process on the device that is
// not the run's (nor the last run's, which NVML may still list at the
// next run's first ticks), another tenant's in Shared, others in the
// warnings:
//
//   - A PID this process can see (ProcRoot/PID exists) that is neither the
//     run's nor a descendant of it (the tree is read again, so a worker
//     forked since the Recorder's last read is the run's) nor the MPS
//     server is another tenant's: the run shared the GPU and its
//     measurements include that load.
//   - A PID this process cannot see belongs to another PID namespace.
//     NVML reports host PIDs, so inside a container without the host's
//     PID namespace every PID is such a one, the run's included. When
//     none of the listed PIDs is the run's and some cannot be seen, the
//     run's processes cannot be told apart from others': the values are
//     not attributable (false), and the caller leaves them NaN rather
//     than record the run's use as 0. When some listed PIDs are the
//     run's, the unseen ones are another container's (or a process of the
//     run that has just ended, a tick or two): warned, values kept.
//
// What a PID was found to be is kept on the device for the rest of the run
// (pidVerdict), so a tenant present all along costs /proc reads once.
func (s *Sampler) attribute(d *nvmlDevice, call string, listed []uint32, procs map[string][]int) bool {
	ours := map[uint32]bool{}
	var roots []int
	for _, pids := range procs {
		for _, p := range pids {
			ours[uint32(p)] = true
			roots = append(roots, p)
		}
	}
	anyOurs := false
	var others []uint32
	for _, p := range listed {
		switch {
		case ours[p]:
			anyOurs = true
		case s.lastRun[p]:
			// the last run's, not yet forgotten by NVML
		case !slices.Contains(others, p):
			others = append(others, p)
		}
	}
	if len(others) == 0 {
		return true
	}
	slices.Sort(others)
	var tree map[uint32]bool // the run's processes read now, when needed
	var tenants []string
	var unseen []uint32
	for _, p := range others {
		v, ok := d.verdicts[p]
		if !ok {
			v = s.classify(p, roots, &tree)
			d.verdicts[p] = v
		}
		switch v.kind {
		case pidUnseen:
			unseen = append(unseen, p)
		case pidOurs:
			anyOurs = true
		case pidTenant:
			tenants = append(tenants, fmt.Sprintf("%d (%s)", p, v.comm))
		}
	}
	if len(tenants) > 0 {
		s.sharedf("device %d: %s lists processes that are not the run's: %s; the GPU was shared with another tenant and the run's measurements include its load",
			d.index, call, namedList(tenants))
	}
	if len(unseen) == 0 {
		return true
	}
	pids := make([]string, len(unseen))
	for i, p := range unseen {
		pids[i] = strconv.FormatUint(uint64(p), 10)
	}
	if !anyOurs {
		s.warnf("device %d: %s lists PIDs %s, none of them the run's and none in this PID namespace: NVML reports host PIDs, so the run's processes cannot be told from others' and their per-process counters read as NaN (run coloc in the host's PID namespace: docker run --pid=host, or hostPID: true in Kubernetes)",
			d.index, call, namedList(pids))
		return false
	}
	s.warnf("device %d: %s lists, besides the run's, PIDs %s of another PID namespace: another container's processes on the GPU (or the run's own that had just ended, when only a tick or two)",
		d.index, call, namedList(pids))
	return true
}

// pidVerdict is what attribute found a PID listed on a device to be. It
// is kept on the device until the next run starts (Reset): a process's
// namespace and parentage do not change while it lives, so /proc is read
// once for each PID a run meets, not at every tick.
type pidVerdict struct {
	kind int // pidOurs, pidMPS, pidUnseen, pidTenant
	comm string
}

const (
	pidOurs   = iota + 1 // forked by the run since the Recorder read its tree
	pidMPS               // the MPS server
	pidUnseen            // not in this PID namespace
	pidTenant            // another tenant's
)

// classify looks p up in ProcRoot: unseen, the run's (a descendant of
// roots; *tree, read at the first need, is the run's tree now), the MPS
// server, or another tenant's.
func (s *Sampler) classify(p uint32, roots []int, tree *map[uint32]bool) pidVerdict {
	dir := filepath.Join(s.procRoot(), strconv.FormatUint(uint64(p), 10))
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return pidVerdict{kind: pidUnseen}
	}
	if *tree == nil {
		*tree = map[uint32]bool{}
		for _, q := range sampler.Descendants(s.procRoot(), roots) {
			(*tree)[uint32(q)] = true
		}
	}
	if (*tree)[p] {
		return pidVerdict{kind: pidOurs}
	}
	comm := readComm(dir)
	if comm == mpsServer {
		return pidVerdict{kind: pidMPS}
	}
	return pidVerdict{kind: pidTenant, comm: comm}
}

// procRoot is where the sampler reads processes: Options.ProcRoot, or
// /proc.
func (s *Sampler) procRoot() string {
	if s.opts.ProcRoot != "" {
		return s.opts.ProcRoot
	}
	return "/proc"
}

// readComm returns a process's command name, "?" when unreadable (it
// ended, or /proc is restricted).
func readComm(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "comm"))
	if err != nil {
		return "?"
	}
	if c := strings.TrimSpace(string(b)); c != "" {
		return c
	}
	return "?"
}

// namedList joins the first maxNamed items and says how many more there
// are.
func namedList(items []string) string { return textlist.Head(items, maxNamed, ", ") }

// Tenants implements sampler.TenantLister: the compute processes NVML
// lists on each of devices, the MPS server aside, with their command name
// (or that this process cannot see them: another PID namespace) and
// device memory. Called before a campaign's first run, so that a GPU
// someone else uses is known before hours of runs share it. A device NVML
// cannot list processes of is left out of the answer.
func (s *Sampler) Tenants(devices []int) []string {
	if s.lib == nil {
		return nil
	}
	var out []string
	for _, idx := range devices {
		if idx < 0 || idx >= len(s.devs) || !s.devs[idx].procMem {
			continue
		}
		infos, r := s.devs[idx].h.GetComputeRunningProcesses()
		if r != nvml.SUCCESS {
			continue
		}
		var named []string
		var tree map[uint32]bool // no run yet: nothing is the run's
		for _, p := range infos {
			v := s.classify(p.Pid, nil, &tree)
			what := v.comm
			switch v.kind {
			case pidMPS:
				continue
			case pidUnseen:
				what = "not in this PID namespace"
			}
			if p.UsedGpuMemory != math.MaxUint64 {
				what += fmt.Sprintf(", %.1f GiB", float64(p.UsedGpuMemory)/(1<<30))
			}
			named = append(named, fmt.Sprintf("%d (%s)", p.Pid, what))
		}
		if len(named) > 0 {
			out = append(out, fmt.Sprintf("GPU %d already runs %d compute process(es) before the campaign's first run: %s; runs on it share the GPU with them and their measurements include that load (stop them, or give the campaign other GPUs with CUDA_VISIBLE_DEVICES)",
				idx, len(named), namedList(named)))
		}
	}
	return out
}
