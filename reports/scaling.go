package reports

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/reports/plot"
)

// curve is the scaling curve of one workload on one device type at one
// per-GPU batch size (place.ScalingCurve).
type curve struct {
	workload, device string
	batch            int // per-GPU batch size; 0 when unknown
	batches          int // batch sizes measured for the workload there
	points           []policy.ScalingPoint
	chosen           policy.ScalingPoint
}

func (c curve) name() string {
	if c.batches > 1 && c.batch > 0 {
		return fmt.Sprintf("%s (batch %d/GPU)", c.workload, c.batch)
	}
	return c.workload
}

// curves reduces a scaling table to one curve per (workload, device type)
// with place.ScalingCurve, the reduction the policy export decides on, so
// the degree marked here is the one a policy file records. Curves with one
// degree are dropped. The chosen degree is policy.ChooseDegree's at
// policy.DefaultThresholds.ScalingEfficiency.
func curves(t *datasets.ScalingTable) []curve {
	type key struct{ w, d string }
	rows := map[key][]datasets.Scale{}
	var keys []key
	for _, r := range t.Rows {
		k := key{r.Workload, r.DeviceType}
		if _, ok := rows[k]; !ok {
			keys = append(keys, k)
		}
		rows[k] = append(rows[k], r)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].d != keys[j].d {
			return keys[i].d < keys[j].d
		}
		return natLess(keys[i].w, keys[j].w)
	})
	var out []curve
	for _, k := range keys {
		pts, batch := place.ScalingCurve(rows[k], 0)
		if len(pts) < 2 {
			continue
		}
		batches := map[int]bool{}
		for _, r := range rows[k] {
			batches[r.BatchSize] = true
		}
		c := curve{workload: k.w, device: k.d, batch: batch, batches: len(batches), points: pts}
		c.chosen, _ = policy.ChooseDegree(c.points, policy.DefaultThresholds.ScalingEfficiency, 0)
		out = append(out, c)
	}
	return out
}

// family is the part of a workload name before a parenthesis ("ResNet-18"
// of "ResNet-18 (batch size 32)"): curves of one family share a figure.
func family(w string) string {
	if i := strings.Index(w, " ("); i > 0 {
		return w[:i]
	}
	return w
}

// maxSeries is the most curves one scaling figure holds.
const maxSeries = 6

// groups packs the curves of one device type into figures: whole families
// in name order while they fit in maxSeries, a larger family split.
func groups(cs []curve) [][]curve {
	var out [][]curve
	var cur []curve
	for i := 0; i < len(cs); {
		j := i
		for j < len(cs) && family(cs[j].workload) == family(cs[i].workload) {
			j++
		}
		fam := cs[i:j]
		if len(cur)+len(fam) > maxSeries && len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
		for len(fam) > maxSeries {
			out = append(out, fam[:maxSeries])
			fam = fam[maxSeries:]
		}
		cur = append(cur, fam...)
		i = j
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func (b *builder) scaling() ([]section, error) {
	var secs []section
	want := map[string]bool{}
	for _, d := range b.cfg.ScalingDevices {
		want[d] = true
	}
	eff := policy.DefaultThresholds.ScalingEfficiency
	for _, dir := range b.cfg.Data {
		ds, err := b.openData(dir)
		if err != nil {
			return nil, err
		}
		if ds.Scaling == nil {
			continue
		}
		unit := ds.Scaling.ThroughputUnit
		src := b.show(dir) + "/scaling.arrow"
		sec := section{
			Title: "Scaling: " + label(dir),
			Text: fmt.Sprintf("Throughput (%s) against the number of GPUs of data-parallel training, from %s. "+
				"One curve per workload and device type: at each degree the highest throughput measured at one per-GPU "+
				"batch size (the batch size measured at the most degrees, the smallest on ties), over every placement "+
				"on nodes. A ring marks the degree coloc chooses (policy.ChooseDegree): the highest throughput among "+
				"the degrees that keep a scaling efficiency of at least %.2f, efficiency being throughput per GPU over "+
				"throughput per GPU at the smallest degree measured.", unit, src, eff),
		}
		tab := table{
			Caption: "Chosen degree per workload (" + label(dir) + ")",
			Header:  []string{"workload", "device", "batch/GPU", "degrees", "chosen", "throughput (" + unit + ")", "efficiency", "efficiency at max"},
		}
		all := curves(ds.Scaling)
		var devices []string
		byDev := map[string][]curve{}
		for _, c := range all {
			if len(want) > 0 && !want[c.device] {
				continue
			}
			if byDev[c.device] == nil {
				devices = append(devices, c.device)
			}
			byDev[c.device] = append(byDev[c.device], c)
		}
		for _, dev := range devices {
			gs := groups(byDev[dev])
			for gi, g := range gs {
				f, err := b.scalingFigure(g, dir, dev, unit, src, gi, len(gs))
				if err != nil {
					return nil, err
				}
				sec.Figures = append(sec.Figures, f)
			}
			for _, c := range byDev[dev] {
				var degs []string
				for _, p := range c.points {
					degs = append(degs, fmt.Sprint(p.Degree))
				}
				bs := ""
				if c.batch > 0 {
					bs = fmt.Sprint(c.batch)
				}
				last := c.points[len(c.points)-1]
				tab.Rows = append(tab.Rows, []string{c.workload, c.device, bs, strings.Join(degs, " "), fmt.Sprint(c.chosen.Degree),
					sig(c.chosen.Throughput), f2(c.chosen.Efficiency), f2(last.Efficiency)})
			}
		}
		if len(sec.Figures) == 0 {
			continue
		}
		if n := skippedDevices(all, want); n != "" {
			sec.Text += "\n\nNot drawn (not among the device types asked for): " + n + "."
		}
		sec.Tables = append(sec.Tables, tab)
		secs = append(secs, sec)
	}
	return secs, nil
}

func (b *builder) scalingFigure(g []curve, dir, dev, unit, src string, gi, n int) (plot.Figure, error) {
	l := &plot.Line{XLabel: "GPUs", YLabel: "throughput (" + unit + ")", YFromZero: true}
	lo, hi := math.Inf(1), math.Inf(-1)
	var fams []string
	for _, c := range g {
		s := plot.Series{Name: c.name()}
		for _, p := range c.points {
			s.X = append(s.X, float64(p.Degree))
			s.Y = append(s.Y, p.Throughput)
			lo, hi = math.Min(lo, p.Throughput), math.Max(hi, p.Throughput)
		}
		l.Series = append(l.Series, s)
		l.Marks = append(l.Marks, plot.Mark{Series: s.Name, X: float64(c.chosen.Degree), Y: c.chosen.Throughput})
		if f := family(c.workload); len(fams) == 0 || fams[len(fams)-1] != f {
			fams = append(fams, f)
		}
	}
	// Curves an order of magnitude or more apart: a logarithmic axis.
	l.LogY = hi/lo > 30
	what := strings.Join(fams, ", ")
	l.Title = fmt.Sprintf("Scaling on %s: %s", dev, what)
	part := ""
	if n > 1 {
		part = fmt.Sprint(gi + 1)
	}
	axis := ""
	if l.LogY {
		axis = " The throughput axis is logarithmic."
	}
	cap := fmt.Sprintf("Throughput of %s on %s against the number of GPUs; rings mark the chosen degree.%s From %s.", what, dev, axis, src)
	return b.figure(l, figName("scaling", label(dir), dev, part), cap, wideFigure)
}

// skippedDevices lists the device types with curves not drawn.
func skippedDevices(all []curve, want map[string]bool) string {
	if len(want) == 0 {
		return ""
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range all {
		if !want[c.device] && !seen[c.device] {
			seen[c.device] = true
			out = append(out, c.device)
		}
	}
	return strings.Join(out, ", ")
}

// sig formats a throughput with four significant digits.
func sig(v float64) string { return fmt.Sprintf("%.4g", v) }
