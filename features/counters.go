package features

import (
	"fmt"
	"math"
	"sort"

	"github.com/coloc-dev/coloc/datasets"
)

// Summaries are the statistics of each counter over a run's steady window,
// in this order; a feature is named <counter>_<summary>.
var Summaries = []string{"mean", "median", "p95", "std"}

type rowKey struct {
	w, d string
	g    int
}

// counterSummaries summarises every counter of the samples table over the
// steady window of each ok solo run, then averages the summaries over the
// repeats of a (workload, device type, degree). The steady window is the
// one the runs table records (window_start to window_end, where the
// harness measured throughput); a run of a version-1 runs table without
// them uses the last window_s seconds before its end, and one without
// window_s all its samples. Rows of other workloads
// sharing the device are ignored; device-wide rows (workload null) count.
func counterSummaries(runs *datasets.RunsTable, samples *datasets.Table) (cols []Column, vals map[rowKey][]float64, warns []string) {
	var counters []*datasets.Column
	spec, _ := datasets.SpecFor(datasets.KindSamples)
	for _, c := range samples.Columns {
		if _, fixed := spec.Column(c.Name); !fixed && c.Type == datasets.Float {
			counters = append(counters, c)
		}
	}
	if len(counters) == 0 {
		return nil, nil, nil
	}
	for _, c := range counters {
		for _, s := range Summaries {
			cols = append(cols, Column{Name: c.Name + "_" + s, Unit: c.Unit, Group: GroupMeasured})
		}
	}
	byRun := map[string][]int{}
	runCol, wlCol, tsCol := samples.Column("run_id"), samples.Column("workload"), samples.Column("timestamp")
	for i := 0; i < samples.Len(); i++ {
		byRun[runCol.Str[i]] = append(byRun[runCol.Str[i]], i)
	}
	sums := map[rowKey][]float64{}
	counts := map[rowKey][]int{}
	var order []rowKey
	for _, r := range runs.Rows {
		if r.Mode != datasets.ModeSolo || r.Status != datasets.StatusOK {
			continue
		}
		lo, hi := r.Start.UnixNano(), r.End.UnixNano()
		switch {
		case !r.WindowStart.IsZero() && !r.WindowEnd.IsZero():
			lo, hi = r.WindowStart.UnixNano(), r.WindowEnd.UnixNano()
		case !math.IsNaN(r.WindowS) && r.WindowS > 0:
			lo = hi - int64(r.WindowS*1e9)
		}
		var rows []int
		for _, i := range byRun[r.RunID] {
			if wlCol.IsNull(i) || wlCol.Str[i] == r.Workload {
				if t := tsCol.Int[i]; t >= lo && t <= hi {
					rows = append(rows, i)
				}
			}
		}
		if len(rows) == 0 {
			warns = append(warns, fmt.Sprintf("run %s (%s on %s): no samples in its steady window", r.RunID, r.Workload, r.DeviceType))
			continue
		}
		k := rowKey{r.Workload, r.DeviceType, r.Degree}
		if sums[k] == nil {
			sums[k] = make([]float64, len(cols))
			counts[k] = make([]int, len(cols))
			order = append(order, k)
		}
		xs := make([]float64, 0, len(rows))
		for ci, c := range counters {
			xs = xs[:0]
			for _, i := range rows {
				if v := c.FloatAt(i); !math.IsNaN(v) {
					xs = append(xs, v)
				}
			}
			if len(xs) == 0 {
				continue
			}
			for si, v := range summarise(xs) {
				sums[k][ci*len(Summaries)+si] += v
				counts[k][ci*len(Summaries)+si]++
			}
		}
	}
	vals = make(map[rowKey][]float64, len(order))
	for _, k := range order {
		v := make([]float64, len(cols))
		for j := range v {
			v[j] = math.NaN()
			if counts[k][j] > 0 {
				v[j] = sums[k][j] / float64(counts[k][j])
			}
		}
		vals[k] = v
	}
	return cols, vals, warns
}

// summarise returns mean, median, p95 and (population) standard deviation
// of xs, which it sorts. p95 is the nearest-rank percentile.
func summarise(xs []float64) [4]float64 {
	sort.Float64s(xs)
	n := float64(len(xs))
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= n
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	median := xs[len(xs)/2]
	if len(xs)%2 == 0 {
		median = (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	rank := int(math.Ceil(0.95*n)) - 1
	return [4]float64{mean, median, xs[max(rank, 0)], math.Sqrt(ss / n)}
}
