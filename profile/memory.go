package profile

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// bytesPerGiB is the unit of a suite's memory_gb.
const bytesPerGiB = 1 << 30

// memoryCheck records a pair run infeasible, without running it, when the
// solo peak memories of its workloads plus a per-process overhead exceed
// the device's memory. A peak is the largest measured in an ok solo run of
// the journal, else the suite's memory_gb; with either unknown, or the
// device's memory unknown, the pair runs (and an out-of-memory failure
// marks it infeasible afterwards). It returns nil when the pair may run.
func (c *Campaign) memoryCheck(pr PlannedRun, recs map[string]*RunRecord) *RunRecord {
	o := c.Runner.Options
	dev := o.Devices[0]
	if dev.MemoryBytes == 0 {
		return nil
	}
	need := 0.0
	var parts []string
	for _, name := range pr.Workloads {
		peak, from, ok := soloPeak(c.Suite, name, recs)
		if !ok {
			return nil
		}
		need += peak + o.ProcessOverhead
		parts = append(parts, fmt.Sprintf("%s %.1f GiB %s", name, peak/bytesPerGiB, from))
	}
	if need <= float64(dev.MemoryBytes) {
		return nil
	}
	msg := fmt.Sprintf("does not fit: %s, plus %.1f GiB per process, need %.1f GiB; device %d has %.1f GiB",
		strings.Join(parts, " + "), o.ProcessOverhead/bytesPerGiB, need/bytesPerGiB, dev.Index, float64(dev.MemoryBytes)/bytesPerGiB)
	now := time.Now().UTC()
	rec := &RunRecord{
		RunID: pr.ID, Mode: pr.Mode, Degree: pr.Degree, Repeat: pr.Repeat,
		DeviceType: dev.Type, DeviceIDs: strconv.Itoa(dev.Index), Share: shareMode(pr, o.Share),
		Start: now, End: now,
	}
	for i, name := range pr.Workloads {
		rec.Sides = append(rec.Sides, sideRecord{
			Workload: name, Label: label(pr.Workloads, i), Status: datasets.StatusInfeasible, Error: msg,
		})
	}
	rec.settle()
	rec.Error = msg
	return rec
}

// soloPeak returns a workload's peak device memory in bytes and where it
// comes from.
func soloPeak(s *Suite, name string, recs map[string]*RunRecord) (float64, string, bool) {
	peak, found := 0.0, false
	for _, r := range recs {
		if r.Mode != datasets.ModeSolo || r.Status != datasets.StatusOK || r.Sides[0].Workload != name {
			continue
		}
		if p := r.Sides[0].PeakMemory; p != nil {
			peak, found = max(peak, *p), true
		}
	}
	if found {
		return peak, "measured", true
	}
	if w, ok := s.workloadNamed(name); ok && w.MemoryGB > 0 {
		return w.MemoryGB * bytesPerGiB, "from the suite's memory_gb", true
	}
	return 0, "", false
}
