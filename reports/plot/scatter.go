package plot

import (
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Scatter draws points of one or more series, e.g. predicted (Y) against
// measured (X) values per model, with the line y = x when Diagonal is set.
type Scatter struct {
	Title          string
	XLabel, YLabel string
	Series         []Series
	Diagonal       bool // draw y = x over the range of the data
}

// Write draws the scatter plot into dir as NAME.svg, NAME.png and
// NAME.csv (series, x, y).
func (s *Scatter) Write(dir, name string, opt Options) (Figure, error) {
	return write(dir, name, s.Title, s, opt)
}

func (s *Scatter) validate() error { return checkSeries(s.Series) }

func (s *Scatter) draw(dc draw.Canvas) error {
	p := newPlot(s.Title, s.XLabel, s.YLabel)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, se := range s.Series {
		pts := points(se.X, se.Y)
		xys := make(plotter.XYs, len(pts))
		for j, pt := range pts {
			xys[j].X, xys[j].Y = pt[0], pt[1]
			lo = math.Min(lo, math.Min(pt[0], pt[1]))
			hi = math.Max(hi, math.Max(pt[0], pt[1]))
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: colour(i), Radius: vg.Points(2), Shape: glyph(i)}
		p.Add(sc)
		p.Legend.Add(se.Name, sc)
	}
	if s.Diagonal && lo < hi {
		d, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
		if err != nil {
			return err
		}
		d.LineStyle = draw.LineStyle{Color: grey, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		p.Add(d)
		p.Legend.Add("y = x", d)
		// Same range on both axes, so y = x is the diagonal.
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	}
	p.Add(plotter.NewGrid())
	render(dc, p)
	return nil
}

func (s *Scatter) table() ([]string, [][]string) {
	return seriesTable(s.Series, colName(s.XLabel, "x"), colName(s.YLabel, "y"))
}
