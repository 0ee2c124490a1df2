package plot

import (
	"gonum.org/v1/plot"

	"bytes"
	"flag"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// writer is what every figure type offers.
type writer interface {
	Write(dir, name string, opt Options) (Figure, error)
}

// fixtures are one small figure of each type; their CSVs are golden.
func fixtures() map[string]writer {
	nan := math.NaN()
	return map[string]writer{
		"heatmap": &Heatmap{
			Title: "Normalized throughput (k80)", XLabel: "partner", YLabel: "workload", Label: "normalized throughput",
			Rows: []string{"A", "B", "C"}, Cols: []string{"A", "B", "C"}, Center: 1,
			Values: [][]float64{{0.5, 0.75, nan}, {1, 1.25, 0.9}, {nan, 0.6, 0.8}},
		},
		"scatter": &Scatter{
			Title: "Predicted vs measured", XLabel: "measured", YLabel: "predicted", Diagonal: true,
			Series: []Series{
				{Name: "IAPP", X: []float64{0.5, 0.7, 0.9}, Y: []float64{0.55, 0.66, 0.93}},
				{Name: "mean", X: []float64{0.5, 0.7, 0.9, 1}, Y: []float64{0.7, 0.7, 0.7, nan}},
			},
		},
		"cdf": &CDF{
			Title: "JCT", XLabel: "JCT (h)",
			Series: []Sample{{Name: "fifo", Values: []float64{3, 1, 2, nan}}, {Name: "greedy-pack", Values: []float64{0.5, 4}}},
		},
		"line": &Line{
			Title: "Throughput vs GPUs", XLabel: "GPUs", YLabel: "iterations/s", YFromZero: true,
			Series: []Series{{Name: "ResNet-50", X: []float64{1, 2, 4, 8}, Y: []float64{11.4, 13.9, 23.2, 27.8}}},
			Marks:  []Mark{{Series: "ResNet-50", X: 4, Y: 23.2, Label: "chosen: 4 GPUs"}},
		},
		"timeseries": &TimeSeries{
			Title: "SM utilisation", YLabel: "SM util (%)", Steps: true,
			Series: []Series{{Name: "solo", X: []float64{0, 1, 2}, Y: []float64{80, 82, 79}}, {Name: "pair", X: []float64{0, 1, 2}, Y: []float64{95, 97, 96}}},
		},
		"bars": &Bars{
			Title: "Average JCT", YLabel: "avg JCT (h)", Categories: []string{"trace a", "trace b"},
			Series: []Sample{{Name: "fifo", Values: []float64{10, 20}}, {Name: "greedy-pack", Values: []float64{8, nan}}},
		},
		"bars-relative": &Bars{
			Title: "Average JCT relative to fifo", YLabel: "avg JCT / fifo's", Categories: []string{"minimize_makespan", "max_min_fairness"},
			Series:      []Sample{{Name: "fifo", Values: []float64{1, 1}}, {Name: "greedy-pack", Values: []float64{0.9, 0.97}}},
			SlantLabels: true, Ref: 1,
		},
		"line-log": &Line{
			Title: "Throughput vs GPUs", XLabel: "GPUs", YLabel: "samples/s", LogY: true,
			Series: []Series{{Name: "ncf", X: []float64{1, 2, 4}, Y: []float64{20000, 39000, 70000}}, {Name: "bert", X: []float64{1, 2, 4}, Y: []float64{9, 17, 30}}},
			Marks:  []Mark{{Series: "bert", X: 2, Y: 17}},
		},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestFigureCSVsGolden(t *testing.T) {
	dir := t.TempDir()
	for name, w := range fixtures() {
		f, err := w.Write(dir, name, DefaultOptions)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := os.ReadFile(filepath.Join(dir, f.CSV()))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, name+".csv", got)
		for _, file := range []string{f.SVG(), f.PNG()} {
			if st, err := os.Stat(filepath.Join(dir, file)); err != nil || st.Size() < 1000 {
				t.Errorf("%s: %s missing or tiny (%v)", name, file, err)
			}
		}
	}
}

// Rendering twice gives the same bytes, for every file of every figure.
func TestFiguresAreByteDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for name, w := range fixtures() {
		fa, err := w.Write(a, name, DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b, name, DefaultOptions); err != nil {
			t.Fatal(err)
		}
		for _, file := range []string{fa.SVG(), fa.PNG(), fa.CSV()} {
			x, _ := os.ReadFile(filepath.Join(a, file))
			y, _ := os.ReadFile(filepath.Join(b, file))
			if len(x) == 0 || !bytes.Equal(x, y) {
				t.Errorf("%s: two renders differ (%d and %d bytes)", file, len(x), len(y))
			}
		}
	}
	svg, _ := os.ReadFile(filepath.Join(a, "heatmap.svg"))
	if bytes.Contains(svg, []byte("@font-face")) || !bytes.Contains(svg, []byte("Liberation Sans")) {
		t.Error("SVG embeds a font or does not name Liberation Sans")
	}
}

func TestFigureInputErrors(t *testing.T) {
	cases := []struct {
		name string
		w    writer
		file string
		want string
	}{
		{"ragged heatmap", &Heatmap{Rows: []string{"a", "b"}, Cols: []string{"x"}, Values: [][]float64{{1}, {1, 2}}, Center: 1}, "h", "row 2 (b) has 2 values for 1 columns"},
		{"no series", &Scatter{}, "s", "no series"},
		{"lengths", &Line{Series: []Series{{Name: "a", X: []float64{1}, Y: nil}}}, "l", `series "a": 1 x values, 0 y values`},
		{"duplicate", &TimeSeries{Series: []Series{{Name: "a"}, {Name: "a"}}}, "t", `two series named "a"`},
		{"bars", &Bars{Categories: []string{"x"}, Series: []Sample{{Name: "a", Values: []float64{1, 2}}}}, "b", `series "a": 2 values for 1 categories`},
		{"log", &CDF{LogX: true, Series: []Sample{{Name: "a", Values: []float64{0}}}}, "c", "logarithmic"},
		{"bad name", &CDF{Series: []Sample{{Name: "a"}}}, "../x", "figure name"},
		{"mark", &Line{Series: []Series{{Name: "a"}}, Marks: []Mark{{X: math.NaN(), Label: "m"}}}, "m", "mark 1 (m)"},
		{"log y", &Line{LogY: true, Series: []Series{{Name: "a", X: []float64{1}, Y: []float64{-2}}}}, "l", `series "a": value -2 on a logarithmic axis`},
		{"log mark", &Line{LogY: true, Series: []Series{{Name: "a"}}, Marks: []Mark{{X: 1, Y: 0, Label: "m"}}}, "l", "mark 1 (m): value 0"},
	}
	for _, c := range cases {
		_, err := c.w.Write(t.TempDir(), c.file, DefaultOptions)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := fixtures()["cdf"].Write(t.TempDir(), "c", Options{Width: 0, Height: 5, DPI: 96}); err == nil {
		t.Error("zero width accepted")
	}
}

// BenchmarkHeatmap26 writes a 26 x 26 heat map (the size of Gavel's
// single-GPU pair matrix): SVG, PNG and CSV.
func BenchmarkHeatmap26(b *testing.B) {
	const n = 26
	h := &Heatmap{Title: "26 x 26", Label: "normalized throughput", Center: 1}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("workload %02d", i)
		h.Rows = append(h.Rows, name)
		h.Cols = append(h.Cols, name)
		row := make([]float64, n)
		for j := range row {
			row[j] = 0.4 + float64((i*7+j*3)%23)/20
		}
		h.Values = append(h.Values, row)
	}
	dir := b.TempDir()
	opt := DefaultOptions
	opt.Width, opt.Height = 20, 18
	for b.Loop() {
		if _, err := h.Write(dir, "heat", opt); err != nil {
			b.Fatal(err)
		}
	}
}

// The cell farthest from the centre is drawn in the end colour of the
// scale, never left blank: 0.235 = 1 - (1 - 0.235) is not exact in
// floating point, and gonum leaves values below the minimum unfilled
// unless told otherwise.
func TestHeatmapExtremeCellsFilled(t *testing.T) {
	h := &Heatmap{Rows: []string{"a"}, Cols: []string{"x", "y", "z"}, Values: [][]float64{{0.2350908814755994, 1, 0.9}}, Center: 1}
	dir := t.TempDir()
	if _, err := h.Write(dir, "h", Options{Width: 6, Height: 4, DPI: 50}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "h.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// Count strongly red pixels: the low cell (a third of the map) is
	// the palette's deepest red.
	red := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r > 0x9000 && g < 0x3000 && bl < 0x4000 {
				red++
			}
		}
	}
	if red < 100 {
		t.Errorf("%d deep red pixels: the lowest cell was not filled", red)
	}
}

// Ticks of a narrow range read apart: gonum labels 0.99, 1 and 1.01 all
// "1"; relabel writes the decimals their spacing needs, and leaves
// distinct labels alone.
func TestTicksOfANarrowRangeReadApart(t *testing.T) {
	ts := trimTicks{plot.DefaultTicks{}}.Ticks(0.994, 1.022)
	seen := map[string]bool{}
	n := 0
	for _, tk := range ts {
		if tk.Label == "" {
			continue
		}
		n++
		if seen[tk.Label] {
			t.Errorf("two ticks labelled %q: %+v", tk.Label, ts)
		}
		seen[tk.Label] = true
	}
	if n < 2 {
		t.Fatalf("%d labelled ticks: %+v", n, ts)
	}
	wide := []plot.Tick{{Value: 0, Label: "0"}, {Value: 25, Label: "25"}}
	relabel(wide)
	if wide[0].Label != "0" || wide[1].Label != "25" {
		t.Errorf("distinct labels changed: %+v", wide)
	}
}

// A heat map's colour range is its Span when that is wider than its own
// values' distance from the centre (heat maps that share a scale), and
// its own otherwise.
func TestHeatmapSpan(t *testing.T) {
	h := &Heatmap{Rows: []string{"a"}, Cols: []string{"b"}, Values: [][]float64{{0.9}}, Center: 1}
	if got := h.span(); math.Abs(got-0.1) > 1e-12 {
		t.Errorf("own span %v, want 0.1", got)
	}
	h.Span = 0.5
	if got := h.span(); got != 0.5 {
		t.Errorf("shared span %v, want 0.5", got)
	}
	h.Values[0][0] = 0.2
	if got := h.span(); math.Abs(got-0.8) > 1e-12 {
		t.Errorf("a value beyond the shared span: %v, want 0.8", got)
	}
}
