package reports

import (
	"fmt"
	"math"
	"slices"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/model/eval/evalfile"
	"github.com/coloc-dev/coloc/reports/plot"
)

// The learning curves of active selection (eval.RunActive, what `coloc
// eval --protocol active` prints): per device, the MAE on the measured
// pairs not yet profiled against the share of pairs profiled, one line per
// strategy, with the all-pairs reference.

// activeSection draws the learning curves of a file of `coloc eval
// --protocol active -o`: one figure per device, a line per strategy.
func (b *builder) activeSection() ([]section, error) {
	const title = "Choosing the pairs to profile: learning curves"
	f, err := evalfile.ReadActive(b.cfg.ActiveFile)
	if err != nil {
		return nil, err
	}
	if err := b.input(b.cfg.ActiveFile); err != nil {
		return nil, err
	}
	res, o := f.Result, f.Options
	b.warnStage("learning curves "+b.show(b.cfg.ActiveFile), res.Warnings...)
	from := fmt.Sprintf("coloc eval --protocol active (model %s, seeds 1 to %d), the file %s", res.Model, o.Seeds, b.show(b.cfg.ActiveFile))
	sec := section{
		Title: title,
		Text: fmt.Sprintf("How well %s predicts the pairs not yet profiled when the pairs to profile are chosen by each strategy "+
			"(coloc profile next --strategy): from a random %g of a device's measured unordered pairs (the same for every "+
			"strategy of a seed), each strategy adds %g of the pairs a round up to %g; the model is refit each round and "+
			"scored on the measured pairs not yet chosen. width is coloc profile next's default, uncertainty picks the "+
			"widest intervals, random picks at random. The flat line is the all-pairs reference: the model fit on a random "+
			"%g of the ordered pairs and scored on the rest. Medians over seeds. From %s.",
			res.Model, o.Start, o.Step, o.Stop, o.Reference, from),
	}
	devices := curveDevices(res)
	if len(devices) == 0 {
		sec.Text += "\n\nNo device had enough measured pairs to simulate (see the warnings)."
		return []section{sec}, nil
	}
	fracs := curveFractions(res)
	tab := table{
		Caption: "Median MAE of normalized throughput on the pairs not yet profiled, by share of the pairs profiled; " +
			"the last column is the all-pairs reference",
		Header: []string{"device", "strategy"},
	}
	for _, f := range fracs {
		tab.Header = append(tab.Header, fmt.Sprintf("%.2f", f))
	}
	tab.Header = append(tab.Header, "all pairs")
	for _, dev := range devices {
		l := &plot.Line{
			Title:  fmt.Sprintf("Learning curves of active selection, %s (%s)", dev, res.Model),
			XLabel: "share of pairs profiled", YLabel: "median MAE on pairs not yet profiled",
			YFromZero: true,
		}
		for _, st := range o.Strategies {
			s := plot.Series{Name: st}
			row := []string{dev, st}
			for _, f := range fracs {
				v := res.At(st, dev, f)
				row = append(row, cell4(v))
				if !math.IsNaN(v) {
					s.X, s.Y = append(s.X, f), append(s.Y, v)
				}
			}
			if len(s.X) > 0 {
				l.Series = append(l.Series, s)
			}
			if st == o.Strategies[0] {
				row = append(row, cell4(res.Reference[dev]))
			} else {
				row = append(row, "")
			}
			tab.Rows = append(tab.Rows, row)
		}
		if ref := res.Reference[dev]; !math.IsNaN(ref) && len(fracs) > 0 {
			l.Series = append(l.Series, plot.Series{Name: "all pairs", X: []float64{fracs[0], fracs[len(fracs)-1]}, Y: []float64{ref, ref}})
		}
		if len(l.Series) == 0 {
			continue
		}
		cap := fmt.Sprintf("Median MAE over seeds of %s on %s's measured pairs not yet profiled, against the share of the pairs "+
			"profiled, per strategy; all pairs: the reference fit on %g of the pairs. From %s.", res.Model, dev, o.Reference, from)
		f, err := b.figure(l, figName("active", dev), cap, wideFigure)
		if err != nil {
			return nil, err
		}
		sec.Figures = append(sec.Figures, f)
	}
	sec.Tables = []table{tab, activeChecks(res, devices, o.Strategies)}
	return []section{sec}, nil
}

// activeChecks tabulates, per device, the two questions the curves answer
// for the first strategy (coloc profile next's choice): from which share
// of the pairs its MAE is within 1.1x the all-pairs reference, and its MAE
// at 0.2 of the pairs over random's.
func activeChecks(res *eval.ActiveResult, devices, strategies []string) table {
	chosen := strategies[0]
	t := table{
		Caption: fmt.Sprintf("Strategy %s: the smallest share of pairs profiled at which its median MAE is within 1.1x the all-pairs "+
			"reference (empty: not within the shares simulated), and its median MAE at 0.2 of the pairs over random's", chosen),
		Header: []string{"device", "within 1.1x of all pairs from", "MAE at 0.20 / random's"},
	}
	fracs := curveFractions(res)
	for _, dev := range devices {
		within := ""
		for _, f := range fracs {
			if v := res.At(chosen, dev, f); v <= 1.1*res.Reference[dev] {
				within = fmt.Sprintf("%.2f", f)
				break
			}
		}
		ratio := res.At(chosen, dev, 0.2) / res.At(model.StrategyRandom, dev, 0.2)
		cell := ""
		if !math.IsNaN(ratio) && !math.IsInf(ratio, 0) {
			cell = fmt.Sprintf("%.2f", ratio)
		}
		t.Rows = append(t.Rows, []string{dev, within, cell})
	}
	return t
}

func cell4(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return fmt.Sprintf("%.4f", v)
}

// curveDevices are the devices of the summaries, in their order.
func curveDevices(res *eval.ActiveResult) []string {
	var out []string
	for _, s := range res.Summaries {
		if !slices.Contains(out, s.Device) {
			out = append(out, s.Device)
		}
	}
	return out
}

// curveFractions are the shares of the summaries, sorted.
func curveFractions(res *eval.ActiveResult) []float64 {
	var out []float64
	for _, s := range res.Summaries {
		if !slices.Contains(out, s.Fraction) {
			out = append(out, s.Fraction)
		}
	}
	slices.Sort(out)
	return out
}
