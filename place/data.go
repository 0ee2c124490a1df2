package place

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/datasets/rates"
	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/policy"
)

// Data are the measurements the export reads: the union of one or more
// dataset directories, in one throughput unit. The solo and pairs rows
// are the rate table of package datasets/rates, in the data's unit; what
// Data adds over it is placement's own: the scaling rows and the curves
// drawn from them at a job's batch size, the workloads' descriptors, and
// the files read.
type Data struct {
	Dirs []string
	// Unit is the throughput unit of every rate (that of the first solo
	// table, else the first scaling table); a table in another unit is
	// left out with a warning, never converted.
	Unit     string
	Files    []policy.FileSum
	Warnings []string

	rates     *rates.Table
	scaling   map[wdKey][]datasets.Scale
	workloads map[string]bool
	meta      map[string]features.Descriptor
	curves    map[curveKey]map[int]scaleRate
	// By workload, from the solo rows kept: the largest peak memory (GB)
	// and the smallest batch size (MemoryGB, Batch; an export asks once
	// a job).
	memGB map[string]float64
	batch map[string]int
}

type wdKey struct{ w, dev string }

type curveKey struct {
	w, dev string
	batch  int
}

// LoadData opens the dataset directories (datasets.Open validates every
// table). A key held by two directories keeps the first directory's value
// (a warning says how many were dropped).
func LoadData(dirs []string) (*Data, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("no dataset directory")
	}
	d := &Data{
		Dirs:    dirs,
		scaling: map[wdKey][]datasets.Scale{}, workloads: map[string]bool{}, meta: map[string]features.Descriptor{},
		curves: map[curveKey]map[int]scaleRate{}, memGB: map[string]float64{}, batch: map[string]int{},
	}
	var sets []*datasets.Dataset
	for _, dir := range dirs {
		ds, err := datasets.Open(dir)
		if err != nil {
			return nil, err
		}
		sets = append(sets, ds)
		sums, err := ds.Files()
		if err != nil {
			return nil, err
		}
		for _, s := range sums {
			d.Files = append(d.Files, policy.FileSum{Name: filepath.ToSlash(filepath.Join(dir, s.Name)), SHA256: s.SHA256})
		}
		for w, m := range features.Descriptors(ds.Workloads) {
			if _, seen := d.meta[w]; !seen {
				d.meta[w] = m
			}
		}
	}
	for _, ds := range sets {
		if ds.Solo != nil && d.Unit == "" {
			d.Unit = ds.Solo.ThroughputUnit
		}
	}
	for _, ds := range sets {
		if ds.Scaling != nil && d.Unit == "" {
			d.Unit = ds.Scaling.ThroughputUnit
		}
	}
	if d.Unit == "" {
		return nil, fmt.Errorf("%v: no solo or scaling table: the policy needs measured throughputs", dirs)
	}
	d.rates = rates.New(d.Unit)
	for i, ds := range sets {
		d.add(dirs[i], ds)
	}
	for _, w := range d.rates.Workloads() {
		d.workloads[w] = true
	}
	// By workload, from the solo rows kept: the largest peak memory and
	// the smallest batch size, found once (an export asks once a job).
	for k, v := range d.rates.Solos() {
		d.memGB[k.Workload] = math.Max(d.memGB[k.Workload], memoryGB(v))
		if b := d.batch[k.Workload]; v.Batch > 0 && (b == 0 || v.Batch < b) {
			d.batch[k.Workload] = v.Batch
		}
	}
	// A measured workload without a descriptor of the data has the known
	// one of its family, looked up once here (Descriptor).
	for w := range d.workloads {
		if _, ok := d.meta[w]; !ok {
			if kd, ok := features.KnownDescriptor(w); ok {
				d.meta[w] = kd
			}
		}
	}
	return d, nil
}

func (d *Data) add(dir string, ds *datasets.Dataset) {
	other := func(kind, unit string) {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %s throughputs are in %s, the policy's in %s: left out (units differ; they are never converted)",
			filepath.Join(dir, kind+".arrow"), kind, unit, d.Unit))
	}
	dup := 0
	if s := ds.Solo; s != nil {
		ok, n := d.rates.AddSolo(s)
		if !ok {
			other("solo", s.ThroughputUnit)
		}
		dup += n
	}
	if p := ds.Pairs; p != nil {
		ok, n := d.rates.AddPairs(p)
		if !ok {
			other("pairs", p.ThroughputUnit)
		}
		dup += n
	}
	if s := ds.Scaling; s != nil {
		if s.ThroughputUnit != d.Unit {
			other("scaling", s.ThroughputUnit)
		} else {
			for _, r := range s.Rows {
				k := wdKey{r.Workload, r.DeviceType}
				d.scaling[k] = append(d.scaling[k], r)
				d.workloads[r.Workload] = true
			}
		}
	}
	if dup > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %d solo or pair rows already given by an earlier directory: the earlier value is kept", dir, dup))
	}
}

// Knows reports whether the data measure workload w at all.
func (d *Data) Knows(w string) bool { return d.workloads[w] }

// Workloads returns the measured workloads, sorted.
func (d *Data) Workloads() []string {
	out := make([]string, 0, len(d.workloads))
	for w := range d.workloads {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// HasType reports whether the data measure anything on GPU type t: a
// solo row on device type t (a spread device type is not t), or a
// scaling row.
func (d *Data) HasType(t string) bool {
	if d.rates.HasDevice(t) {
		return true
	}
	for k := range d.scaling {
		if k.dev == t {
			return true
		}
	}
	return false
}

// MemoryGB returns the largest peak memory per GPU the solo table gives
// w, in 10^9 bytes; 0 when unknown.
func (d *Data) MemoryGB(w string) float64 { return d.memGB[w] }

// memoryGB is a solo row's peak memory per GPU in 10^9 bytes; 0 when
// unknown.
func memoryGB(s rates.Solo) float64 {
	if s.PeakMemory > 0 {
		return s.PeakMemory / 1e9
	}
	return 0
}

// Batch returns the per-GPU batch size of w in the solo table (the
// smallest when rows differ); 0 when unknown.
func (d *Data) Batch(w string) int { return d.batch[w] }

// Descriptor returns the model descriptor of workload w: the data's
// workloads.json, else the known model of its family (features.KnownModels)
// with the batch size its name states.
func (d *Data) Descriptor(w string) (features.Descriptor, bool) {
	if m, ok := d.meta[w]; ok {
		return m, true
	}
	return features.KnownDescriptor(w)
}

// Pair returns the pairs table's row of (w | partner) on degree GPUs of
// gpuType: its normalized throughput and status, whatever the status.
func (d *Data) Pair(w, partner, gpuType string, degree int) (y float64, status string, ok bool) {
	p, ok := d.rates.Pair(rates.PairKey{Workload: w, Partner: partner, Device: gpuType, Degree: degree})
	return p.Normalized, p.Status, ok
}

// HasPairs reports whether the data hold any status-ok pair on degree GPUs
// of gpuType: where the models were trained, and so may predict.
func (d *Data) HasPairs(gpuType string, degree int) bool {
	return d.rates.HasOKPairs(gpuType, degree)
}

// pairSlots are the shapes (device types and degrees) where the data
// hold a status-ok pair (HasPairs), sorted.
func (d *Data) pairSlots() []datasets.Shape { return d.rates.OKSlots() }

// hasSolo reports whether the solo table has a row of w on degree GPUs of
// device type dev.
func (d *Data) hasSolo(w, dev string, degree int) bool {
	_, ok := d.rates.Solo(rates.Key{Workload: w, Device: dev, Degree: degree})
	return ok
}
