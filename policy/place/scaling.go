package place

import (
	"math"

	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/policy/sim"
)

// scaleRate is the rate of one degree from a scaling table: on one node,
// and spread over nodes (0 when not measured).
type scaleRate struct {
	one, spread float64
	source      string
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
