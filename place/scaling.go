package place

import (
	"math"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/datasets/rates"
	"github.com/coloc-dev/coloc/policy"
)

// scaleRate is the rate of one degree from a scaling table: on one node,
// and spread over nodes (0 when not measured).
type scaleRate struct {
	one, spread float64
	source      string
}

// Solo returns the measured throughput of workload w on degree GPUs of
// gpuType: the solo table's row (device type gpuType, or
// datasets.SpreadType(gpuType) when spread), else the scaling table's rows at
// the batch size the job gives (or, when it gives none or the data lack
// it, the batch size measured at the most degrees, the smallest on ties):
// on one node, or on the fewest nodes above one when spread.
func (d *Data) Solo(w, gpuType string, degree int, spread bool, batch int) (float64, bool) {
	dev := rates.Device(gpuType, degree, spread)
	if v, ok := d.rates.Solo(rates.Key{Workload: w, Device: dev, Degree: degree}); ok {
		return v.Rate, true
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

// curve returns the scaling rows of (w, dev) at the chosen batch size
// (CurveBatch), by degree; nil when the data have no scaling row there.
func (d *Data) curve(w, dev string, batch int) map[int]scaleRate {
	rows := d.scaling[wdKey{w, dev}]
	if len(rows) == 0 {
		return nil
	}
	batch = CurveBatch(rows, batch)
	k := curveKey{w, dev, batch}
	if c, ok := d.curves[k]; ok {
		return c
	}
	c := curveRates(rows, batch)
	d.curves[k] = c
	return c
}

// CurveBatch returns the per-GPU batch size a scaling curve of rows (one
// workload on one device type) is drawn at: batch when the rows measure
// it, else the batch size measured at the most degrees, the smallest on
// ties.
func CurveBatch(rows []datasets.Scale, batch int) int {
	degs := map[int]map[int]bool{}
	for _, r := range rows {
		if degs[r.BatchSize] == nil {
			degs[r.BatchSize] = map[int]bool{}
		}
		degs[r.BatchSize][r.Degree] = true
	}
	if _, ok := degs[batch]; ok && batch > 0 {
		return batch
	}
	best := -1
	for b, ds := range degs {
		if best < 0 || len(ds) > len(degs[best]) || (len(ds) == len(degs[best]) && b < best) {
			best = b
		}
	}
	return best
}

// curveRates reduces the rows of one batch size to a rate per degree: the
// highest throughput on one node, and the highest on the fewest nodes
// above one.
func curveRates(rows []datasets.Scale, batch int) map[int]scaleRate {
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
	return c
}

// points turns rates into a scaling curve: at each degree the one-node
// rate, or, for a degree no single node ran, the rate on the fewest nodes.
func points(c map[int]scaleRate) (pts []policy.ScalingPoint, src map[int]string) {
	src = map[int]string{}
	for deg, r := range c {
		v := r.one
		if !(v > 0) {
			v = r.spread
		}
		if v > 0 {
			pts = append(pts, policy.ScalingPoint{Degree: deg, Throughput: v})
			src[deg] = r.source
		}
	}
	return policy.ScalingPoints(pts), src
}

// ScalingCurve is the scaling curve coloc decides a degree on, from the
// scaling rows of one workload on one device type: at the batch size
// CurveBatch picks (returned), the throughput at each degree on one node,
// or on the fewest nodes for a degree no single node ran, sorted by
// degree with efficiencies (policy.ScalingPoints). The policy file's
// scaling tables and the report's scaling figures are both drawn with it.
func ScalingCurve(rows []datasets.Scale, batch int) ([]policy.ScalingPoint, int) {
	batch = CurveBatch(rows, batch)
	pts, _ := points(curveRates(rows, batch))
	return pts, batch
}

// Curve returns the measured throughput of w against degree on gpuType,
// sorted by degree, and the source of the first point: the solo table's
// rows (one node), else the scaling table's curve (ScalingCurve).
func (d *Data) Curve(w, gpuType string, batch int) ([]policy.ScalingPoint, string) {
	var pts []policy.ScalingPoint
	src := map[int]string{}
	for k, v := range d.rates.Solos() {
		if k.Workload == w && k.Device == gpuType {
			pts = append(pts, policy.ScalingPoint{Degree: k.Degree, Throughput: v.Rate})
			src[k.Degree] = v.Source
		}
	}
	if len(pts) == 0 {
		pts, src = points(d.curve(w, gpuType, batch))
	}
	pts = policy.ScalingPoints(pts)
	if len(pts) == 0 {
		return nil, ""
	}
	return pts, src[pts[0].Degree]
}
