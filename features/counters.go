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

// counterSummaries summarises every counter of the samples file at path
// over the steady window of each ok solo run, then averages the summaries
// over the repeats of a (workload, device type, degree). The steady window
// is the one the runs table records (window_start to window_end, where the
// harness measured throughput); a run of a version-1 runs table without
// them uses the last window_s seconds before its end, and one without
// window_s all its samples. Rows of other
// workloads sharing the device are ignored; device-wide rows (workload
// null) count. The file is streamed one record batch at a time
// (datasets.Scanner): only the values inside the windows are kept.
func counterSummaries(runs *datasets.RunsTable, path string) (cols []Column, vals map[rowKey][]float64, warns []string, err error) {
	sc, err := datasets.NewScanner(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer sc.Close()
	var counters []int // indices of the counter columns
	spec, _ := datasets.SpecFor(datasets.KindSamples)
	for i, c := range sc.Columns() {
		if _, fixed := spec.Column(c.Name); !fixed && c.Type == datasets.Float {
			counters = append(counters, i)
			for _, s := range Summaries {
				cols = append(cols, Column{Name: c.Name + "_" + s, Unit: c.Unit, Group: GroupMeasured})
			}
		}
	}
	if len(counters) == 0 {
		return nil, nil, nil, nil
	}
	// The window of each ok solo run, and the values of each counter in it.
	type window struct {
		lo, hi   int64
		workload string
		n        int         // samples in the window
		xs       [][]float64 // [counter] values that are not NaN
	}
	windows := map[string]*window{}
	for _, r := range runs.Rows {
		if r.Mode != datasets.ModeSolo || r.Status != datasets.StatusOK {
			continue
		}
		w := &window{lo: r.Start.UnixNano(), hi: r.End.UnixNano(), workload: r.Workload, xs: make([][]float64, len(counters))}
		switch {
		case !r.WindowStart.IsZero() && !r.WindowEnd.IsZero():
			w.lo, w.hi = r.WindowStart.UnixNano(), r.WindowEnd.UnixNano()
		case !math.IsNaN(r.WindowS) && r.WindowS > 0:
			w.lo = w.hi - int64(r.WindowS*1e9)
		}
		windows[r.RunID] = w
	}
	for sc.Scan() {
		b := sc.Batch()
		runCol, wlCol, tsCol := b.Column("run_id"), b.Column("workload"), b.Column("timestamp")
		for i := 0; i < b.Len(); i++ {
			w := windows[runCol.Str[i]]
			if w == nil || !(wlCol.IsNull(i) || wlCol.Str[i] == w.workload) {
				continue
			}
			if t := tsCol.Int[i]; t < w.lo || t > w.hi {
				continue
			}
			w.n++
			for ci, c := range counters {
				if v := b.Columns[c].FloatAt(i); !math.IsNaN(v) {
					w.xs[ci] = append(w.xs[ci], v)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, nil, err
	}
	sums := map[rowKey][]float64{}
	counts := map[rowKey][]int{}
	var order []rowKey
	for _, r := range runs.Rows {
		w := windows[r.RunID]
		if w == nil || r.Mode != datasets.ModeSolo || r.Status != datasets.StatusOK {
			continue
		}
		if w.n == 0 {
			warns = append(warns, fmt.Sprintf("run %s (%s on %s): no samples in its steady window", r.RunID, r.Workload, r.DeviceType))
			continue
		}
		k := rowKey{r.Workload, r.DeviceType, r.Degree}
		if sums[k] == nil {
			sums[k] = make([]float64, len(cols))
			counts[k] = make([]int, len(cols))
			order = append(order, k)
		}
		for ci, xs := range w.xs {
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
	return cols, vals, warns, nil
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
