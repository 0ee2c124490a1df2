package plot_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/coloc-dev/coloc/reports/plot"
)

// Draw the JCT distribution of two policies: SVG, PNG and the data as CSV.
func Example() {
	dir, err := os.MkdirTemp("", "report")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	cdf := &plot.CDF{
		Title:  "Job completion time",
		XLabel: "JCT (h)",
		Series: []plot.Sample{
			{Name: "fifo", Values: []float64{2, 1}},
			{Name: "greedy-pack", Values: []float64{1.5}},
		},
	}
	fig, err := cdf.Write(dir, "jct-cdf", plot.DefaultOptions)
	if err != nil {
		panic(err)
	}
	for _, f := range []string{fig.SVG(), fig.PNG(), fig.CSV()} {
		_, err := os.Stat(filepath.Join(dir, f))
		fmt.Println(f, err == nil)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, fig.CSV()))
	fmt.Print(string(csv))
	// Output:
	// jct-cdf.svg true
	// jct-cdf.png true
	// jct-cdf.csv true
	// series,JCT (h),fraction
	// fifo,1,0.5
	// fifo,2,1
	// greedy-pack,1.5,1
}
