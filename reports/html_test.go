package reports

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/reports/plot"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

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

func testPage(figs []plot.Figure) indexPage {
	figs[0].Caption = `JCT of each policy; "greedy" packs <b>two</b> jobs & more.`
	return indexPage{
		Title: "coloc report <test>",
		Intro: "First paragraph.\n\nSecond & last paragraph.",
		Sections: []section{
			{Title: "Policies", Text: "Replayed on the example cluster.", Figures: figs,
				Tables: []table{{Caption: "Summary", Header: []string{"policy", "avg JCT (h)"}, Rows: [][]string{{"fifo", "1.50"}, {"<script>alert(1)</script>", "2"}}}}},
			{Title: "Empty section"},
			{Title: "Warnings", Text: "2 problems that did not stop the report.",
				Items: []string{"data gavel: 3 suspect <pairs>", "simulator: fifo, msr/a on c: 1 job(s) not simulated"}},
		},
		Footer:      "coloc devel.\n\nInputs:",
		FooterTable: &table{Header: []string{"file", "SHA-256"}, Rows: [][]string{{"pairs.arrow", "0123"}}},
		Generator:   "coloc <report>",
	}
}

func TestIndexGolden(t *testing.T) {
	dir := t.TempDir()
	var figs []plot.Figure
	nan := math.NaN()
	for _, c := range []struct {
		name string
		w    interface {
			Write(dir, name string, opt plot.Options) (plot.Figure, error)
		}
	}{
		{"cdf", &plot.CDF{Title: "JCT", XLabel: "JCT (h)",
			Series: []plot.Sample{{Name: "fifo", Values: []float64{3, 1, 2, nan}}, {Name: "greedy-pack", Values: []float64{0.5, 4}}}}},
		{"bars", &plot.Bars{Title: "Average JCT", YLabel: "avg JCT (h)", Categories: []string{"trace a", "trace b"},
			Series: []plot.Sample{{Name: "fifo", Values: []float64{10, 20}}, {Name: "greedy-pack", Values: []float64{8, nan}}}}},
	} {
		f, err := c.w.Write(dir, c.name, plot.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		figs = append(figs, f)
	}
	if err := writeIndex(dir, testPage(figs)); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "index.html", got)
	if bytes.Contains(got, []byte("<script>")) || bytes.Contains(got, []byte("<b>")) {
		t.Error("index.html holds unescaped markup")
	}
}

func TestIndexErrors(t *testing.T) {
	dir := t.TempDir()
	err := writeIndex(dir, indexPage{Sections: []section{{Title: "s", Figures: []plot.Figure{{Name: "missing"}}}}})
	if err == nil || !strings.Contains(err.Error(), "figure missing") {
		t.Errorf("missing figure files: %v", err)
	}
	err = writeIndex(dir, indexPage{Sections: []section{{Title: "s", Tables: []table{{Header: []string{"a"}, Rows: [][]string{{"1", "2"}}}}}}})
	if err == nil || !strings.Contains(err.Error(), "row 1 has 2 cells for 1 columns") {
		t.Errorf("ragged table: %v", err)
	}
	err = writeIndex(dir, indexPage{FooterTable: &table{Header: []string{"a", "b"}, Rows: [][]string{{"1"}}}})
	if err == nil || !strings.Contains(err.Error(), "footer table: row 1 has 1 cells for 2 columns") {
		t.Errorf("ragged footer table: %v", err)
	}
}
