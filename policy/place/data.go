package place

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/policy/sim"
)

// Data are the measurements the export reads: the union of one or more
// dataset directories, in one throughput unit.
type Data struct {
	Dirs []string
	// Unit is the throughput unit of every rate (that of the first solo
	// table, else the first scaling table); a table in another unit is
	// left out with a warning, never converted.
	Unit     string
	Files    []policy.FileSum
	Warnings []string

	solo      map[soloKey]soloVal
	pairs     map[pairKey]pairVal
	pairSlots map[slotKey]bool
	scaling   map[wdKey][]datasets.Scale
	workloads map[string]bool
	meta      map[string]features.Descriptor
	curves    map[curveKey]map[int]scaleRate
}

type soloKey struct {
	w, dev string
	degree int
}

type soloVal struct {
	rate, memGB float64
	batch       int
	source      string
}

type pairKey struct {
	w, p, dev string
	degree    int
}

type pairVal struct {
	y      float64
	status string
}

type wdKey struct{ w, dev string }

type curveKey struct {
	w, dev string
	batch  int
}

// scaleRate is the rate of one degree from a scaling table: on one node,
// and spread over nodes (0 when not measured).
type scaleRate struct {
	one, spread float64
	source      string
}

// LoadData opens the dataset directories (datasets.Open validates every
// table). A key held by two directories keeps the first directory's value
// (a warning says how many were dropped).
func LoadData(dirs []string) (*Data, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("no dataset directory")
	}
	d := &Data{
		Dirs: dirs, solo: map[soloKey]soloVal{}, pairs: map[pairKey]pairVal{}, pairSlots: map[slotKey]bool{},
		scaling: map[wdKey][]datasets.Scale{}, workloads: map[string]bool{}, meta: map[string]features.Descriptor{},
		curves: map[curveKey]map[int]scaleRate{},
	}
	var sets []*datasets.Dataset
	for _, dir := range dirs {
		ds, err := datasets.Open(dir)
		if err != nil {
			return nil, err
		}
		sets = append(sets, ds)
		sums, err := features.DataFiles(dir)
		if err != nil {
			return nil, err
		}
		for _, s := range sums {
			d.Files = append(d.Files, policy.FileSum{Name: filepath.ToSlash(filepath.Join(dir, s.Name)), SHA256: s.SHA256})
		}
		meta, err := features.ReadMeta(dir)
		if err != nil {
			return nil, err
		}
		for w, m := range meta {
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
	for i, ds := range sets {
		d.add(dirs[i], ds)
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
		if s.ThroughputUnit != d.Unit {
			other("solo", s.ThroughputUnit)
		} else {
			for _, r := range s.Rows {
				k := soloKey{r.Workload, r.DeviceType, r.Degree}
				if _, seen := d.solo[k]; seen {
					dup++
					continue
				}
				v := soloVal{rate: r.Throughput, batch: r.BatchSize, source: r.Source}
				if r.PeakMemory > 0 {
					v.memGB = r.PeakMemory / 1e9
				}
				d.solo[k] = v
				d.workloads[r.Workload] = true
			}
		}
	}
	if p := ds.Pairs; p != nil {
		if p.ThroughputUnit != d.Unit {
			other("pairs", p.ThroughputUnit)
		} else {
			for _, r := range p.Rows {
				k := pairKey{r.Workload, r.Partner, r.DeviceType, r.Degree}
				if _, seen := d.pairs[k]; seen {
					dup++
					continue
				}
				d.pairs[k] = pairVal{y: r.Normalized, status: r.Status}
				if r.Measured() {
					d.pairSlots[slotKey{r.DeviceType, r.Degree}] = true
				}
			}
		}
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

// HasType reports whether the data measure anything on GPU type t.
func (d *Data) HasType(t string) bool {
	for k := range d.solo {
		if k.dev == t {
			return true
		}
	}
	for k := range d.scaling {
		if k.dev == t {
			return true
		}
	}
	return false
}

// Solo returns the measured throughput of workload w on degree GPUs of
// gpuType: the solo table's row (device type gpuType, or
// gpuType_unconsolidated when spread), else the scaling table's rows at
// the batch size the job gives (or, when it gives none or the data lack
// it, the batch size measured at the most degrees, the smallest on ties):
// on one node, or on the fewest nodes above one when spread.
func (d *Data) Solo(w, gpuType string, degree int, spread bool, batch int) (float64, bool) {
	dev := gpuType
	if spread && degree > 1 {
		dev += sim.UnconsolidatedSuffix
	}
	if v, ok := d.solo[soloKey{w, dev, degree}]; ok {
		return v.rate, true
	}
	for _, dv := range []string{gpuType, dev} {
		if c := d.curve(w, dv, batch); c != nil {
			r := c[degree]
			if spread && degree > 1 {
				if r.spread > 0 {
					return r.spread, true
				}
				continue
			}
			if r.one > 0 {
				return r.one, true
			}
		}
	}
	return 0, false
}

// curve returns the scaling rows of (w, dev) at the chosen batch size, by
// degree.
func (d *Data) curve(w, dev string, batch int) map[int]scaleRate {
	rows := d.scaling[wdKey{w, dev}]
	if len(rows) == 0 {
		return nil
	}
	degs := map[int]map[int]bool{}
	for _, r := range rows {
		if degs[r.BatchSize] == nil {
			degs[r.BatchSize] = map[int]bool{}
		}
		degs[r.BatchSize][r.Degree] = true
	}
	if _, ok := degs[batch]; !ok || batch <= 0 {
		batch = -1
		for b, ds := range degs {
			if batch < 0 || len(ds) > len(degs[batch]) || (len(ds) == len(degs[batch]) && b < batch) {
				batch = b
			}
		}
	}
	k := curveKey{w, dev, batch}
	if c, ok := d.curves[k]; ok {
		return c
	}
	c := map[int]scaleRate{}
	fewest := map[int]int{}
	for _, r := range rows {
		if r.BatchSize != batch || !(r.Throughput > 0) {
			continue
		}
		cur := c[r.Degree]
		cur.source = r.Source
		if r.Nodes <= 1 {
			cur.one = math.Max(cur.one, r.Throughput)
		} else if n, seen := fewest[r.Degree]; !seen || r.Nodes < n {
			fewest[r.Degree] = r.Nodes
			cur.spread = r.Throughput
		} else if r.Nodes == n {
			cur.spread = math.Max(cur.spread, r.Throughput)
		}
		c[r.Degree] = cur
	}
	d.curves[k] = c
	return c
}

// Curve returns the measured throughput of w against degree on one node
// of gpuType (solo table, else scaling table), sorted by degree, and the
// source of the first point.
func (d *Data) Curve(w, gpuType string, batch int) ([]policy.ScalingPoint, string) {
	var pts []policy.ScalingPoint
	src := map[int]string{}
	for k, v := range d.solo {
		if k.w == w && k.dev == gpuType {
			pts = append(pts, policy.ScalingPoint{Degree: k.degree, Throughput: v.rate})
			src[k.degree] = v.source
		}
	}
	if len(pts) == 0 {
		for deg, r := range d.curve(w, gpuType, batch) {
			if r.one > 0 {
				pts = append(pts, policy.ScalingPoint{Degree: deg, Throughput: r.one})
				src[deg] = r.source
			}
		}
	}
	pts = policy.ScalingPoints(pts)
	if len(pts) == 0 {
		return nil, ""
	}
	return pts, src[pts[0].Degree]
}

// MemoryGB returns the largest peak memory per GPU the solo table gives
// w, in 10^9 bytes; 0 when unknown.
func (d *Data) MemoryGB(w string) float64 {
	m := 0.0
	for k, v := range d.solo {
		if k.w == w {
			m = math.Max(m, v.memGB)
		}
	}
	return m
}

// Batch returns the per-GPU batch size of w in the solo table; 0 when
// unknown.
func (d *Data) Batch(w string) int {
	for k, v := range d.solo {
		if k.w == w && v.batch > 0 {
			return v.batch
		}
	}
	return 0
}

// Descriptor returns the model descriptor of workload w: the data's
// workloads.json, else the known model of its family (features.KnownModels)
// with the batch size its name states.
func (d *Data) Descriptor(w string) (features.Descriptor, bool) {
	if m, ok := d.meta[w]; ok {
		return m, true
	}
	m, ok := features.KnownModels[features.FamilyOf(w)]
	if ok {
		if b := datasets.BatchSizeOf(w); b > 0 {
			m.BatchSize = b
		}
	}
	return m, ok
}

// Pair returns the pairs table's row of (w | partner) on degree GPUs of
// gpuType.
func (d *Data) Pair(w, partner, gpuType string, degree int) (y float64, status string, ok bool) {
	v, ok := d.pairs[pairKey{w, partner, gpuType, degree}]
	return v.y, v.status, ok
}

// HasPairs reports whether the data hold any status-ok pair on degree GPUs
// of gpuType: where the models were trained, and so may predict.
func (d *Data) HasPairs(gpuType string, degree int) bool {
	return d.pairSlots[slotKey{gpuType, degree}]
}

// measuredFirst is the export's estimator: measurements where the data
// have them, the models' predictions elsewhere.
type measuredFirst struct {
	d *Data
	m *Models
}

// NewEstimator returns the estimator of the export: solo throughput from
// the data; a pair's normalized throughput measured when the data hold a
// status-ok row, none when the pair is infeasible, else the stage model's
// prediction ("predicted:<model>") on the GPU types and degrees where the
// data hold measured pairs (where the models were trained). m may be nil:
// then only measured pairs share.
func NewEstimator(d *Data, m *Models) Estimator { return measuredFirst{d, m} }

func (x measuredFirst) Solo(t *Task, gpuType string, degree int, spread bool) (float64, bool) {
	return x.d.Solo(t.Workload, gpuType, degree, spread, t.BatchSize)
}

func (x measuredFirst) Normalized(l Level, t, p *Task, gpuType string, degree int) (float64, string, bool) {
	if y, status, ok := x.d.Pair(t.Workload, p.Workload, gpuType, degree); ok {
		switch status {
		case datasets.StatusOK:
			return y, "measured", true
		case datasets.StatusInfeasible:
			return 0, "", false
		}
	}
	if x.m == nil || !x.d.HasPairs(gpuType, degree) {
		return 0, "", false
	}
	y, ok := x.m.Predict(l, t.Workload, p.Workload, gpuType, degree)
	return y, "predicted:" + x.m.Name(l), ok
}
