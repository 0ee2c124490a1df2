package reports

import (
	"github.com/coloc-dev/coloc/reports/plot"
	"github.com/coloc-dev/coloc/sim/budget"
)

// BudgetFigure draws the profiling-budget page's figure into dir as
// NAME.svg, NAME.png and NAME.csv: per GPU type and order, coloc's average
// JCT over its average JCT with every pair against the percentage of the
// type's pairs profiled (100%: every pair, 1 by definition).
func BudgetFigure(dir, name string, r *budget.Result) (plot.Figure, error) {
	l := plot.Line{
		Title:  "What profiling buys: coloc's average JCT over every pair's",
		XLabel: "pairs of the GPU type profiled (%)",
		YLabel: "average JCT over every pair (geo-mean)",
	}
	idx := map[string]int{}
	for _, s := range r.Summaries() {
		key := s.Device + " " + s.Order
		i, ok := idx[key]
		if !ok {
			i = len(l.Series)
			idx[key] = i
			l.Series = append(l.Series, plot.Series{Name: key})
		}
		l.Series[i].X = append(l.Series[i].X, 100*s.Fraction)
		l.Series[i].Y = append(l.Series[i].Y, s.AvgJCT)
	}
	for i := range l.Series {
		l.Series[i].X = append(l.Series[i].X, 100)
		l.Series[i].Y = append(l.Series[i].Y, 1)
	}
	return l.Write(dir, name, plot.DefaultOptions)
}
