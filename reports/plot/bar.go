package plot

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bars draws grouped bars: one group per category (e.g. a trace or a
// metric), one bar per series in each group (e.g. a policy). Series[i]
// has one value per category; NaN values are not drawn.
type Bars struct {
	Title      string
	YLabel     string
	Categories []string
	Series     []Sample // Values[j] belongs to Categories[j]
	// SlantLabels turns the category labels by 30 degrees, for long
	// labels that would overlap.
	SlantLabels bool
	// Ref draws a dashed horizontal line at this value when it is not 0,
	// e.g. 1 for values relative to a baseline.
	Ref float64
}

// Write draws the chart into dir as NAME.svg, NAME.png and NAME.csv
// (category, series, value).
func (b *Bars) Write(dir, name string, opt Options) (Figure, error) {
	return write(dir, name, b.Title, b, opt)
}

func (b *Bars) validate() error {
	if len(b.Categories) == 0 || len(b.Series) == 0 {
		return fmt.Errorf("bar chart needs categories and series, got %d and %d", len(b.Categories), len(b.Series))
	}
	seen := map[string]bool{}
	for i, s := range b.Series {
		if s.Name == "" || seen[s.Name] {
			return fmt.Errorf("series %d: name %q is empty or repeated", i+1, s.Name)
		}
		seen[s.Name] = true
		if len(s.Values) != len(b.Categories) {
			return fmt.Errorf("series %q: %d values for %d categories", s.Name, len(s.Values), len(b.Categories))
		}
	}
	return nil
}

func (b *Bars) draw(dc draw.Canvas) error {
	p := newPlot(b.Title, "", b.YLabel)
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	p.Add(grid) // first, so the bars cover it
	n := len(b.Series)
	// The data area is about 60% of the canvas once axes and legend are
	// drawn; each group takes 70% of its category's share of it.
	width := dc.Size().X * 0.6 * 0.7 / vg.Length(len(b.Categories)*n)
	for i, s := range b.Series {
		vals := make(plotter.Values, len(s.Values))
		for j, v := range s.Values {
			if finite(v) {
				vals[j] = v
			}
		}
		bc, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return fmt.Errorf("series %q: %w", s.Name, err)
		}
		bc.Color = colour(i)
		bc.LineStyle.Width = 0
		bc.Offset = (vg.Length(i) - vg.Length(n-1)/2) * width
		p.Add(bc)
		p.Legend.Add(s.Name, bc)
	}
	p.NominalX(b.Categories...)
	if b.SlantLabels {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YTop
	}
	p.X.Min, p.X.Max = -0.5, float64(len(b.Categories))-0.5
	p.Y.Min = 0
	if b.Ref != 0 && finite(b.Ref) {
		ref, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: b.Ref}, {X: float64(len(b.Categories)) - 0.5, Y: b.Ref}})
		if err != nil {
			return err
		}
		ref.LineStyle = draw.LineStyle{Color: grey, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		p.Add(ref)
	}
	render(dc, p)
	return nil
}

func (b *Bars) table() ([]string, [][]string) {
	var rows [][]string
	for j, c := range b.Categories {
		for _, s := range b.Series {
			rows = append(rows, []string{c, s.Name, num(s.Values[j])})
		}
	}
	return []string{"category", "series", colName(b.YLabel, "value")}, rows
}
