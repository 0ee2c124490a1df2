package plot

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Mark is a point to point out on a line chart, e.g. the chosen degree on
// a scaling curve.
type Mark struct {
	Series string // the series it marks, "" for none
	X, Y   float64
	Label  string
}

// Line draws one line with markers per series, e.g. MAE against the
// fraction of pairs observed per model, or throughput against GPUs per
// workload; Marks are drawn as large rings with their labels.
type Line struct {
	Title          string
	XLabel, YLabel string
	Series         []Series
	Marks          []Mark
	YFromZero      bool // start the y axis at 0
	// LogY draws the y axis on a logarithmic scale (every finite value
	// must be positive); for series that differ by orders of magnitude.
	// YFromZero does not apply to it.
	LogY bool
}

// Write draws the chart into dir as NAME.svg, NAME.png and NAME.csv
// (series, x, y, mark: the data rows, then one row per mark with its
// label in the mark column).
func (l *Line) Write(dir, name string, opt Options) (Figure, error) {
	return write(dir, name, l.Title, l, opt)
}

func (l *Line) validate() error {
	if err := checkSeries(l.Series); err != nil {
		return err
	}
	for i, m := range l.Marks {
		if !finite(m.X) || !finite(m.Y) {
			return fmt.Errorf("mark %d (%s) at (%v, %v) is not finite", i+1, m.Label, m.X, m.Y)
		}
		if l.LogY && m.Y <= 0 {
			return fmt.Errorf("mark %d (%s): value %v on a logarithmic axis", i+1, m.Label, m.Y)
		}
	}
	if l.LogY {
		for _, s := range l.Series {
			for _, y := range s.Y {
				if finite(y) && y <= 0 {
					return fmt.Errorf("series %q: value %v on a logarithmic axis", s.Name, y)
				}
			}
		}
	}
	return nil
}

func (l *Line) draw(dc draw.Canvas) error {
	return drawLines(dc, l.Title, l.XLabel, l.YLabel, l.Series, l.Marks, lineStyle{markers: true, zero: l.YFromZero && !l.LogY, logY: l.LogY})
}

func (l *Line) table() ([]string, [][]string) {
	h, rows := seriesTable(l.Series, colName(l.XLabel, "x"), colName(l.YLabel, "y"))
	for i := range rows {
		rows[i] = append(rows[i], "")
	}
	for _, m := range l.Marks {
		rows = append(rows, []string{m.Series, num(m.X), num(m.Y), m.Label})
	}
	return append(h, "mark"), rows
}

// TimeSeries draws one line per series against time, without markers,
// e.g. counters of a run sampled over seconds.
type TimeSeries struct {
	Title  string
	YLabel string
	XLabel string // default "time (s)"
	Series []Series
	// Steps holds each value until the next sample, for states sampled
	// when they change (busy GPUs at scheduling events); otherwise
	// samples are joined by straight lines.
	Steps bool
}

// Write draws the chart into dir as NAME.svg, NAME.png and NAME.csv
// (series, time, value).
func (t *TimeSeries) Write(dir, name string, opt Options) (Figure, error) {
	return write(dir, name, t.Title, t, opt)
}

func (t *TimeSeries) xlabel() string { return colName(t.XLabel, "time (s)") }

func (t *TimeSeries) validate() error { return checkSeries(t.Series) }

func (t *TimeSeries) draw(dc draw.Canvas) error {
	return drawLines(dc, t.Title, t.xlabel(), t.YLabel, t.Series, nil, lineStyle{steps: t.Steps})
}

func (t *TimeSeries) table() ([]string, [][]string) {
	return seriesTable(t.Series, t.xlabel(), colName(t.YLabel, "value"))
}

// lineStyle chooses markers on points, a y axis from 0, step lines, a
// logarithmic y axis.
type lineStyle struct{ markers, zero, steps, logY bool }

func drawLines(dc draw.Canvas, title, xl, yl string, series []Series, marks []Mark, st lineStyle) error {
	p := newPlot(title, xl, yl)
	if st.logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	for i, s := range series {
		pts := points(s.X, s.Y)
		xys := make(plotter.XYs, len(pts))
		for j, pt := range pts {
			xys[j].X, xys[j].Y = pt[0], pt[1]
		}
		ln, sc, err := plotter.NewLinePoints(xys)
		if err != nil {
			return fmt.Errorf("series %q: %w", s.Name, err)
		}
		ln.LineStyle = draw.LineStyle{Color: colour(i), Width: vg.Points(1.5), Dashes: dashes(i)}
		if st.steps {
			ln.StepStyle = plotter.PostStep
		}
		if !st.markers {
			ln.LineStyle.Width = vg.Points(1)
			p.Add(ln)
			p.Legend.Add(s.Name, ln)
			continue
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: colour(i), Radius: vg.Points(2.5), Shape: glyph(i)}
		p.Add(ln, sc)
		p.Legend.Add(s.Name, ln, sc)
	}
	if len(marks) > 0 {
		xys := make(plotter.XYs, len(marks))
		labels := make([]string, len(marks))
		for i, m := range marks {
			xys[i] = plotter.XY{X: m.X, Y: m.Y}
			labels[i] = m.Label
		}
		rings, err := plotter.NewScatter(xys)
		if err != nil {
			return err
		}
		rings.GlyphStyle = draw.GlyphStyle{Color: colours[6], Radius: vg.Points(6), Shape: draw.RingGlyph{}}
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return err
		}
		for i := range lab.TextStyle {
			lab.TextStyle[i] = text.Style{Color: colours[6], Font: sans(textSize), Handler: p.TextHandler}
		}
		lab.Offset = vg.Point{X: vg.Points(8), Y: vg.Points(4)}
		p.Add(rings, lab)
	}
	if st.zero {
		p.Y.Min = 0
	}
	p.Add(plotter.NewGrid())
	render(dc, p)
	return nil
}
