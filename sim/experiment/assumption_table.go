package experiment

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/sim"
)

// WriteAssumption writes, for the data in dir, the comparison of the
// multi-GPU pair assumption (a job's normalized throughput next to its
// partner on one GPU) with the pairs measured on more than one GPU: a
// Markdown table per device type and degree, or, when the data measured
// no such pair, a sentence that says so and what it holds instead.
func WriteAssumption(w io.Writer, dir string) error {
	truth, err := LoadTruth(dir)
	if err != nil {
		return err
	}
	if es := truth.AssumptionErrors(); len(es) > 0 {
		return writeAssumption(w, es)
	}
	return writeUnmeasured(w, dir)
}

// writeUnmeasured says why nothing could be compared: the pair rows of
// the data in dir on more than one GPU, by status.
func writeUnmeasured(w io.Writer, dir string) error {
	ds, err := datasets.Open(dir)
	if err != nil {
		return err
	}
	by := map[string]int{}
	n := 0
	if ds.Pairs != nil {
		for _, p := range ds.Pairs.Rows {
			if p.Degree > 1 {
				by[p.Status]++
				n++
			}
		}
	}
	var parts []string
	for _, st := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, fmt.Sprintf("%d %s", by[st], st))
	}
	detail := ""
	if n > 0 {
		detail = fmt.Sprintf(" (of its %d pair rows on more than one GPU: %s)", n, strings.Join(parts, ", "))
	}
	_, err = fmt.Fprintf(w, "%s holds no status-ok pair measured on more than one GPU%s: nothing to compare the assumption with.\n", dir, detail)
	return err
}

func writeAssumption(w io.Writer, es []sim.AssumptionError) error {
	fmt.Fprintln(w, "| device | degree | pairs | MAE | bias | mean measured |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	var n int
	var mae, bias, y float64
	for _, x := range es {
		fmt.Fprintf(w, "| %s | %d | %d | %.3f | %+.3f | %.3f |\n", x.Device, x.Degree, x.Pairs, x.MAE, x.Bias, x.MeanMeasured)
		n += x.Pairs
		mae += x.MAE * float64(x.Pairs)
		bias += x.Bias * float64(x.Pairs)
		y += x.MeanMeasured * float64(x.Pairs)
	}
	_, err := fmt.Fprintf(w, "| all | | %d | %.3f | %+.3f | %.3f |\n", n, mae/float64(n), bias/float64(n), y/float64(n))
	return err
}
