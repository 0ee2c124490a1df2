package reports_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/coloc-dev/coloc/reports"
)

// Draw the JCT distribution of two policies and a page that shows it.
func Example() {
	dir, err := os.MkdirTemp("", "report")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	cdf := &reports.CDF{
		Title:  "Job completion time",
		XLabel: "JCT (h)",
		Series: []reports.Sample{
			{Name: "fifo", Values: []float64{2, 1}},
			{Name: "greedy-pack", Values: []float64{1.5}},
		},
	}
	fig, err := cdf.Write(dir, "jct-cdf", reports.DefaultOptions)
	if err != nil {
		panic(err)
	}
	fig.Caption = "Empirical CDF of JCT per policy."
	page := reports.Page{
		Title:    "Policies",
		Sections: []reports.Section{{Title: "JCT", Figures: []reports.Figure{fig}}},
	}
	if err := reports.WriteIndex(dir, page); err != nil {
		panic(err)
	}
	for _, f := range []string{fig.SVG(), fig.PNG(), fig.CSV(), "index.html"} {
		_, err := os.Stat(filepath.Join(dir, f))
		fmt.Println(f, err == nil)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, fig.CSV()))
	fmt.Print(string(csv))
	// Output:
	// jct-cdf.svg true
	// jct-cdf.png true
	// jct-cdf.csv true
	// index.html true
	// series,JCT (h),fraction
	// fifo,1,0.5
	// fifo,2,1
	// greedy-pack,1.5,1
}
