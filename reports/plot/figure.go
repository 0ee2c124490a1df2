package plot

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/coloc-dev/coloc/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Options set the size of figures.
type Options struct {
	Width  float64 // cm
	Height float64 // cm
	DPI    int     // PNG resolution
}

// DefaultOptions draw 16 x 10 cm figures, PNG at 150 dpi.
var DefaultOptions = Options{Width: 16, Height: 10, DPI: 150}

func (o Options) validate() error {
	if !(o.Width > 0) || !(o.Height > 0) || o.Width > 200 || o.Height > 200 {
		return fmt.Errorf("figure size %v x %v cm: want each in (0, 200]", o.Width, o.Height)
	}
	if o.DPI < 10 || o.DPI > 1200 {
		return fmt.Errorf("figure resolution %d dpi: want 10..1200", o.DPI)
	}
	return nil
}

// Figure is a written figure: NAME.svg, NAME.png and NAME.csv in one
// directory. Caption is for the report; Write leaves it empty.
type Figure struct {
	Name    string
	Title   string
	Caption string
}

// SVG, PNG and CSV return the file names of the figure.
func (f Figure) SVG() string { return f.Name + ".svg" }
func (f Figure) PNG() string { return f.Name + ".png" }
func (f Figure) CSV() string { return f.Name + ".csv" }

// chart is what every figure type is to write: it draws itself and gives
// the data it draws as a table.
type chart interface {
	validate() error
	draw(dc draw.Canvas) error
	table() (header []string, rows [][]string)
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// write renders c as SVG and PNG and writes them and its CSV into dir.
func write(dir, name, title string, c chart, opt Options) (Figure, error) {
	fig := Figure{Name: name, Title: title}
	if !nameRE.MatchString(name) {
		return fig, fmt.Errorf("figure name %q: use letters, digits, '.', '_' and '-' only", name)
	}
	if err := opt.validate(); err != nil {
		return fig, fmt.Errorf("figure %s: %w", name, err)
	}
	if err := c.validate(); err != nil {
		return fig, fmt.Errorf("figure %s: %w", name, err)
	}
	w, h := vg.Length(opt.Width)*vg.Centimeter, vg.Length(opt.Height)*vg.Centimeter

	var svg bytes.Buffer
	sc := vgsvg.New(w, h)
	if err := c.draw(draw.New(sc)); err != nil {
		return fig, fmt.Errorf("figure %s: %w", name, err)
	}
	if _, err := sc.WriteTo(&svg); err != nil {
		return fig, fmt.Errorf("figure %s: %w", name, err)
	}

	var png bytes.Buffer
	ic := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(opt.DPI), vgimg.UseBackgroundColor(color.White))
	if err := c.draw(draw.New(ic)); err != nil {
		return fig, fmt.Errorf("figure %s: %w", name, err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: ic}).WriteTo(&png); err != nil {
		return fig, fmt.Errorf("figure %s: %w", name, err)
	}

	var tab bytes.Buffer
	cw := csv.NewWriter(&tab)
	header, rows := c.table()
	cw.Write(header)
	cw.WriteAll(rows)
	if err := cw.Error(); err != nil {
		return fig, fmt.Errorf("figure %s: %w", name, err)
	}

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fig, err
	}
	for _, f := range []struct {
		file string
		data []byte
	}{{fig.CSV(), tab.Bytes()}, {fig.SVG(), svg.Bytes()}, {fig.PNG(), png.Bytes()}} {
		if err := writeAtomic(filepath.Join(dir, f.file), f.data); err != nil {
			return fig, err
		}
	}
	return fig, nil
}

// writeAtomic writes data to a temporary file beside path and renames it
// into place (internal/atomicfile).
func writeAtomic(path string, data []byte) error { return atomicfile.WriteBytes(path, data) }

// Text sizes in points. A figure 20 cm wide is shown at its own size,
// 756 CSS px, in a page at a 1,200 px window: 1 pt is 1.33 px there, so
// tick and legend text of 9 pt render at 12 px, axis labels at 13 px and
// titles at 16 px.
const (
	textSize  = 9 // tick labels, legend, marks
	labelSize = 10
	titleSize = 12
)

// sans is the font of every text: Liberation Sans, which browsers render
// with Arial or Helvetica at the same widths.
func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// newPlot returns a plot with our fonts, title and axis labels.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(titleSize)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = sans(labelSize)
		ax.Tick.Label.Font = sans(textSize)
		ax.Tick.Marker = trimTicks{plot.DefaultTicks{}}
	}
	p.Legend.TextStyle.Font = sans(textSize)
	p.Legend.Top = true
	return p
}

// render draws p with its legend, if any, right of the plot, where it
// cannot hide data.
func render(dc draw.Canvas, p *plot.Plot) {
	leg := p.Legend
	r := leg.Rectangle(dc)
	w := r.Max.X - r.Min.X
	if w <= 0 {
		p.Draw(dc)
		return
	}
	gap := vg.Points(8)
	p.Legend = plot.NewLegend()
	p.Draw(draw.Crop(dc, 0, -(w + 2*gap), 0, 0))
	top := vg.Length(0)
	if p.Title.Text != "" {
		top = p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	}
	leg.Left, leg.Top = true, true
	leg.Draw(draw.Crop(dc, dc.Size().X-w-gap, 0, 0, -top))
}

// trimTicks drops the trailing zeros gonum's default ticks carry ("25.00"
// becomes "25", "2500000.00" becomes "2500000").
type trimTicks struct{ plot.Ticker }

func (t trimTicks) Ticks(min, max float64) []plot.Tick {
	ts := t.Ticker.Ticks(min, max)
	relabel(ts)
	for i := range ts {
		if l := ts[i].Label; strings.Contains(l, ".") && !strings.ContainsAny(l, "eE") {
			ts[i].Label = strings.TrimSuffix(strings.TrimRight(l, "0"), ".")
		}
	}
	return ts
}

// relabel writes the labelled ticks with as many decimals as their
// spacing needs when two of them read the same (gonum labels the ticks
// 0.99, 1.00, 1.01 of a narrow range all "1").
func relabel(ts []plot.Tick) {
	var major []int
	seen, dup := map[string]bool{}, false
	for i, tk := range ts {
		if tk.Label == "" {
			continue
		}
		major = append(major, i)
		dup = dup || seen[tk.Label]
		seen[tk.Label] = true
	}
	if !dup || len(major) < 2 {
		return
	}
	step := math.Inf(1)
	for k := 1; k < len(major); k++ {
		step = math.Min(step, math.Abs(ts[major[k]].Value-ts[major[k-1]].Value))
	}
	if !(step > 0) {
		return
	}
	digits := max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
	for _, i := range major {
		ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', digits, 64)
	}
}

// colours are the Okabe-Ito colours, safe for colour-blind readers, then
// two of Paul Tol's (olive, indigo), in the order series get them: ten,
// so the nine models of one figure each have their own colour.
var colours = []color.Color{
	color.RGBA{0x00, 0x72, 0xB2, 0xFF}, // blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	color.RGBA{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	color.RGBA{0xE6, 0x9F, 0x00, 0xFF}, // orange
	color.RGBA{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	color.RGBA{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	color.RGBA{0x00, 0x00, 0x00, 0xFF}, // black
	color.RGBA{0x88, 0x22, 0x55, 0xFF}, // wine (Tol), instead of Okabe-Ito's yellow, too light on white
	color.RGBA{0x99, 0x99, 0x33, 0xFF}, // olive (Tol)
	color.RGBA{0x33, 0x22, 0x88, 0xFF}, // indigo (Tol)
}

func colour(i int) color.Color { return colours[i%len(colours)] }

// variant shifts the dash pattern and glyph of series 10 and later, whose
// colours repeat those of the first ten, so no two of the first 40
// series look alike.
func variant(i int) int { return i + i/len(colours) }

var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{},
}

func glyph(i int) draw.GlyphDrawer { return glyphs[variant(i)%len(glyphs)] }

// grey is the colour of a missing value.
var grey = color.RGBA{0x99, 0x99, 0x99, 0xFF}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// num formats a value for CSV: shortest exact form, "" when not finite.
func num(v float64) string {
	if !finite(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Series is a named sequence of points.
type Series struct {
	Name string
	X, Y []float64
}

func checkSeries(series []Series) error {
	if len(series) == 0 {
		return fmt.Errorf("no series")
	}
	seen := map[string]bool{}
	for i, s := range series {
		if s.Name == "" {
			return fmt.Errorf("series %d has no name", i+1)
		}
		if seen[s.Name] {
			return fmt.Errorf("two series named %q", s.Name)
		}
		seen[s.Name] = true
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("series %q: %d x values, %d y values", s.Name, len(s.X), len(s.Y))
		}
	}
	return nil
}

// points returns the finite points of s for drawing.
func points(x, y []float64) [][2]float64 {
	var out [][2]float64
	for i := range x {
		if finite(x[i]) && finite(y[i]) {
			out = append(out, [2]float64{x[i], y[i]})
		}
	}
	return out
}

// seriesTable is the long CSV form of series: series, x, y.
func seriesTable(series []Series, xname, yname string) ([]string, [][]string) {
	var rows [][]string
	for _, s := range series {
		for i := range s.X {
			rows = append(rows, []string{s.Name, num(s.X[i]), num(s.Y[i])})
		}
	}
	return []string{"series", xname, yname}, rows
}

// colName turns an axis label into a CSV column name ("x" when empty).
func colName(label, fallback string) string {
	if label == "" {
		return fallback
	}
	return label
}
