package plot

import (
	"fmt"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Sample is a named set of values, e.g. the JCTs of one policy.
type Sample struct {
	Name   string
	Values []float64
}

// CDF draws the empirical cumulative distribution of several samples:
// for each, the fraction of values at most x.
type CDF struct {
	Title  string
	XLabel string // what a value is, e.g. "JCT (h)"
	Series []Sample
	LogX   bool // logarithmic x axis (values must be positive)
}

// Write draws the CDFs into dir as NAME.svg, NAME.png and NAME.csv
// (series, value, fraction: one row per finite value, sorted).
func (c *CDF) Write(dir, name string, opt Options) (Figure, error) {
	return write(dir, name, c.Title, c, opt)
}

func (c *CDF) validate() error {
	if len(c.Series) == 0 {
		return fmt.Errorf("no series")
	}
	seen := map[string]bool{}
	for i, s := range c.Series {
		if s.Name == "" || seen[s.Name] {
			return fmt.Errorf("series %d: name %q is empty or repeated", i+1, s.Name)
		}
		seen[s.Name] = true
		if c.LogX {
			for _, v := range s.Values {
				if finite(v) && v <= 0 {
					return fmt.Errorf("series %q: value %v on a logarithmic axis", s.Name, v)
				}
			}
		}
	}
	return nil
}

// ecdf returns the sorted finite values and their cumulative fractions.
func ecdf(vs []float64) (x, f []float64) {
	for _, v := range vs {
		if finite(v) {
			x = append(x, v)
		}
	}
	sort.Float64s(x)
	f = make([]float64, len(x))
	for i := range x {
		f[i] = float64(i+1) / float64(len(x))
	}
	return x, f
}

func (c *CDF) draw(dc draw.Canvas) error {
	p := newPlot(c.Title, c.XLabel, "fraction")
	if c.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	for i, s := range c.Series {
		x, f := ecdf(s.Values)
		if len(x) == 0 {
			continue
		}
		xys := plotter.XYs{{X: x[0], Y: 0}}
		for j := range x {
			xys = append(xys, plotter.XY{X: x[j], Y: f[j]})
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		l.StepStyle = plotter.PostStep
		l.LineStyle = draw.LineStyle{Color: colour(i), Width: vg.Points(1.5), Dashes: dashes(i)}
		p.Add(l)
		p.Legend.Add(s.Name, l)
	}
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	render(dc, p)
	return nil
}

func (c *CDF) table() ([]string, [][]string) {
	var rows [][]string
	for _, s := range c.Series {
		x, f := ecdf(s.Values)
		for j := range x {
			rows = append(rows, []string{s.Name, num(x[j]), num(f[j])})
		}
	}
	return []string{"series", colName(c.XLabel, "value"), "fraction"}, rows
}

// dashes gives series after the first few a dash pattern, so lines stay
// apart in grey print.
func dashes(i int) []vg.Length {
	switch variant(i) % 4 {
	case 1:
		return []vg.Length{vg.Points(5), vg.Points(2)}
	case 2:
		return []vg.Length{vg.Points(1.5), vg.Points(1.5)}
	case 3:
		return []vg.Length{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)}
	}
	return nil
}
