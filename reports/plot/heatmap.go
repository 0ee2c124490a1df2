package plot

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Heatmap is a labelled matrix drawn as coloured cells, with a colour bar:
// e.g. the normalized throughput of each workload (row) next to each
// partner (column) on one GPU type. Colours diverge around Center; NaN
// cells (no value) are grey.
type Heatmap struct {
	Title          string
	XLabel, YLabel string      // axis titles (e.g. "partner", "workload")
	Label          string      // what a value is, e.g. "normalized throughput"
	Rows, Cols     []string    // labels; rows top to bottom
	Values         [][]float64 // [row][col]
	Center         float64     // value at the neutral colour
	// Span, when positive, is the half-width of the colour range, so that
	// several heat maps share one scale (a value farther from Center
	// widens it); 0: the largest distance of a value from Center.
	Span float64
}

// Write draws the heat map into dir as NAME.svg, NAME.png and NAME.csv (a
// matrix: first column the row label, then one column per Cols label).
func (h *Heatmap) Write(dir, name string, opt Options) (Figure, error) {
	return write(dir, name, h.Title, h, opt)
}

func (h *Heatmap) validate() error {
	if len(h.Rows) == 0 || len(h.Cols) == 0 {
		return fmt.Errorf("heat map needs rows and columns, got %d x %d", len(h.Rows), len(h.Cols))
	}
	if len(h.Values) != len(h.Rows) {
		return fmt.Errorf("heat map: %d rows of values for %d row labels", len(h.Values), len(h.Rows))
	}
	for i, r := range h.Values {
		if len(r) != len(h.Cols) {
			return fmt.Errorf("heat map: row %d (%s) has %d values for %d columns", i+1, h.Rows[i], len(r), len(h.Cols))
		}
	}
	if !finite(h.Center) {
		return fmt.Errorf("heat map: centre %v is not finite", h.Center)
	}
	return nil
}

// span returns the half-width of the colour range: Span, or the largest
// distance of a value from the centre when farther (1 when there is
// neither).
func (h *Heatmap) span() float64 {
	d := 0.0
	if finite(h.Span) && h.Span > 0 {
		d = h.Span
	}
	for _, r := range h.Values {
		for _, v := range r {
			if finite(v) {
				d = math.Max(d, math.Abs(v-h.Center))
			}
		}
	}
	if d == 0 {
		return 1
	}
	return d
}

// grid adapts the matrix to plotter.GridXYZ: column c at x=c, row r at
// y = (rows-1-r) so the first row is on top.
type grid struct{ h *Heatmap }

func (g grid) Dims() (int, int)   { return len(g.h.Cols), len(g.h.Rows) }
func (g grid) Z(c, r int) float64 { return g.h.Values[len(g.h.Rows)-1-r][c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

// labelTicks puts label at(i) at i for i < n.
func labelTicks(n int, at func(int) string) plot.Ticker {
	ts := make(plot.ConstantTicks, n)
	for i := range ts {
		ts[i] = plot.Tick{Value: float64(i), Label: at(i)}
	}
	return ts
}

// divergingPalette returns n colours from red (low) through white to blue
// (high).
func divergingPalette(n int) palette.Palette {
	return palette.Reverse(moreland.SmoothBlueRed()).Palette(n)
}

const paletteSize = 255

func (h *Heatmap) draw(dc draw.Canvas) error {
	d := h.span()
	lo, hi := h.Center-d, h.Center+d
	g := grid{h}

	p := newPlot(h.Title, h.XLabel, h.YLabel)
	pal := divergingPalette(paletteSize)
	hm := plotter.NewHeatMap(g, pal)
	hm.Min, hm.Max = lo, hi
	hm.NaN = grey
	// The extreme values are lo and hi up to rounding (centre -+ span):
	// one a hair outside gets the end colour, not none.
	cs := pal.Colors()
	hm.Underflow, hm.Overflow = cs[0], cs[len(cs)-1]
	p.Add(hm)
	p.X.Tick.Marker = labelTicks(len(h.Cols), func(i int) string { return h.Cols[i] })
	p.Y.Tick.Marker = labelTicks(len(h.Rows), func(i int) string { return h.Rows[len(h.Rows)-1-i] })
	p.X.Tick.Label.Rotation = math.Pi / 2
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	p.X.Padding, p.Y.Padding = 0, 0
	if len(h.Rows) > 12 || len(h.Cols) > 12 {
		p.X.Tick.Label.Font = sans(heatTickSize(len(h.Rows), len(h.Cols)))
		p.Y.Tick.Label.Font = sans(heatTickSize(len(h.Rows), len(h.Cols)))
	}

	bar := newPlot("", "", h.Label)
	bar.Y.Label.TextStyle.Font = sans(textSize)
	bar.HideX()
	const steps = 64
	cb := plotter.NewHeatMap(barGrid{lo: lo, hi: hi, n: steps}, divergingPalette(paletteSize))
	cb.Min, cb.Max = lo, hi
	bar.Add(cb)
	bar.Y.Min, bar.Y.Max = lo, hi
	bar.X.Padding, bar.Y.Padding = 0, 0

	barWidth := vg.Length(0.14) * dc.Size().X
	p.Draw(draw.Crop(dc, 0, -barWidth, 0, 0))
	// The bar sits right of the map, clear of its rotated column labels.
	bar.Draw(draw.Crop(dc, dc.Size().X-barWidth+vg.Length(4), 0, vg.Length(0.25)*dc.Size().Y, -vg.Length(0.08)*dc.Size().Y))
	return nil
}

// barGrid is the colour bar: one column of n cells from lo to hi.
type barGrid struct {
	lo, hi float64
	n      int
}

func (b barGrid) Dims() (int, int) { return 1, b.n }
func (b barGrid) Z(_, r int) float64 {
	return b.lo + (float64(r)+0.5)*(b.hi-b.lo)/float64(b.n)
}
func (b barGrid) X(int) float64   { return 0 }
func (b barGrid) Y(r int) float64 { return b.Z(0, r) }

func (h *Heatmap) table() ([]string, [][]string) {
	header := append([]string{colName(h.YLabel, "row")}, h.Cols...)
	rows := make([][]string, len(h.Rows))
	for i, r := range h.Values {
		row := []string{h.Rows[i]}
		for _, v := range r {
			row = append(row, num(v))
		}
		rows[i] = row
	}
	return header, rows
}

// heatTickSize is the size of a heat map's row and column labels: the
// text size, or 8 pt (about 11 px in the page) for more than 20 rows or
// columns, so that 26 rows of labels still fit one a row.
func heatTickSize(rows, cols int) vg.Length {
	if rows > 20 || cols > 20 {
		return 8
	}
	return textSize
}
