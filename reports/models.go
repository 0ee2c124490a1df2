package reports

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/model/eval/evalfile"
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/reports/plot"
)

// modelData is the dataset models are evaluated and policies simulated on:
// the first of the report's datasets with a pairs table. data is nil when
// it has no solo table (models need solo features): why says so.
type modelData struct {
	dir  string
	ds   *datasets.Dataset
	data *model.Data
	why  string
}

// pairsData loads the first dataset with pairs, once; nil when none has.
func (b *builder) pairsData() (*modelData, error) {
	if b.models != nil {
		return b.models, nil
	}
	for _, dir := range b.cfg.Data {
		ds, err := b.openData(dir)
		if err != nil {
			return nil, err
		}
		if ds.Pairs == nil {
			continue
		}
		md := &modelData{dir: dir, ds: ds}
		if ds.Solo == nil {
			md.why = fmt.Sprintf("%s has no solo table, and the models' features come from solo measurements", b.show(dir))
		} else if md.data, err = model.LoadData(dir); err != nil {
			return nil, err
		} else {
			b.warn("data "+label(dir), md.data.Warnings...)
		}
		b.models = md
		return md, nil
	}
	return nil, nil
}

// accuracy is the model section: the evaluation table and MAE against the
// fraction of observed pairs (EvalFile), the held-out predictions of one
// split (PredictionsFile), and the predictions of a model directory
// (Models) on the first dataset with pairs.
func (b *builder) accuracy() ([]section, error) {
	var secs []section
	if b.cfg.EvalFile != "" {
		res, err := eval.Read(b.cfg.EvalFile)
		if err != nil {
			return nil, err
		}
		if err := b.input(b.cfg.EvalFile); err != nil {
			return nil, err
		}
		b.warnStage("evaluation file "+b.show(b.cfg.EvalFile), res.Warnings...)
		b.summarizeModels(res)
		sec, err := b.evalSection(res, "the evaluation file "+b.show(b.cfg.EvalFile)+evalSettings(res))
		if err != nil {
			return nil, err
		}
		secs = append(secs, sec)
	}
	if b.cfg.PredictionsFile != "" {
		sec, err := b.heldOutSection()
		if err != nil {
			return nil, err
		}
		secs = append(secs, sec)
	}
	if b.cfg.Models == "" {
		return secs, nil
	}
	md, err := b.pairsData()
	if err != nil {
		return nil, err
	}
	switch {
	case md == nil:
		secs = append(secs, section{Title: "Fitted models on the measured pairs", Text: "Not drawn: no dataset of --data has a pairs table."})
	case md.data == nil:
		secs = append(secs, section{Title: "Fitted models on the measured pairs", Text: "Not drawn: " + md.why + "."})
	default:
		sec, err := b.fittedSection(md)
		if err != nil {
			return nil, err
		}
		secs = append(secs, sec)
	}
	return secs, nil
}

func (b *builder) evalSection(res *eval.Result, from string) (section, error) {
	sec := section{
		Title: "Model accuracy against observed pairs",
		Text: "Median absolute error (MAE) of the predicted normalized throughput over seeds, on the pairs held out, " +
			"against the fraction of a device's measured pairs the models observe (protocol pairs: matrix completion; " +
			"new-job: each workload hidden in turn with its pairs; cross-device: the other devices' pairs observed too). " +
			"Every model gets the same splits. From " + from + ".",
	}
	type key struct{ proto, dev string }
	var keys []key
	series := map[key][]plot.Series{}
	for _, s := range res.Summaries {
		k := key{s.Protocol, s.Device}
		if _, ok := series[k]; !ok {
			keys = append(keys, k)
		}
		ss := series[k]
		i := len(ss) - 1
		if i < 0 || ss[i].Name != s.Model {
			ss = append(ss, plot.Series{Name: s.Model})
			i = len(ss) - 1
		}
		ss[i].X = append(ss[i].X, s.Fraction)
		ss[i].Y = append(ss[i].Y, s.MAEMedian)
		series[k] = ss
	}
	for _, k := range keys {
		l := &plot.Line{
			Title:  fmt.Sprintf("MAE against observed fraction, %s, protocol %s", k.dev, k.proto),
			XLabel: "fraction of pairs observed", YLabel: "median MAE of normalized throughput",
			Series: series[k], YFromZero: true,
		}
		cap := fmt.Sprintf("Median MAE over seeds of each model's predictions of the held-out pairs on %s (protocol %s) "+
			"against the fraction of the device's measured pairs observed. From %s.", k.dev, k.proto, from)
		f, err := b.figure(l, figName("mae", k.proto, k.dev), cap, wideFigure)
		if err != nil {
			return sec, err
		}
		sec.Figures = append(sec.Figures, f)
	}
	sec.Tables = evalTables(res)
	return sec, nil
}

// evalTables are the median MAE tables of coloc eval --markdown: per
// protocol, one row per model and one column per (device, fraction) in the
// order of the summaries, and a last row naming the best model (lowest
// MAE) of each column.
func evalTables(res *eval.Result) []table {
	type col struct {
		dev  string
		frac float64
	}
	type cell struct {
		proto, model string
		c            col
	}
	var protos []string
	cols := map[string][]col{}
	models := map[string][]string{}
	val := map[cell]float64{}
	for _, s := range res.Summaries {
		if _, ok := cols[s.Protocol]; !ok {
			protos = append(protos, s.Protocol)
		}
		c := col{s.Device, s.Fraction}
		if !slices.Contains(cols[s.Protocol], c) {
			cols[s.Protocol] = append(cols[s.Protocol], c)
		}
		if !slices.Contains(models[s.Protocol], s.Model) {
			models[s.Protocol] = append(models[s.Protocol], s.Model)
		}
		val[cell{s.Protocol, s.Model, c}] = s.MAEMedian
	}
	var out []table
	for _, p := range protos {
		t := table{
			Caption: fmt.Sprintf("Protocol %s: median MAE of normalized throughput over seeds, per device and fraction observed (the lowest of each column in the last row)", p),
			Header:  []string{"model"},
		}
		best := []string{"best"}
		for _, c := range cols[p] {
			t.Header = append(t.Header, fmt.Sprintf("%s %g", c.dev, c.frac))
			lo, who := math.Inf(1), ""
			for _, m := range models[p] {
				if v, ok := val[cell{p, m, c}]; ok && v < lo {
					lo, who = v, m
				} else if ok && v == lo {
					who += ", " + m
				}
			}
			best = append(best, who)
		}
		for _, m := range models[p] {
			row := []string{m}
			for _, c := range cols[p] {
				v, ok := val[cell{p, m, c}]
				if !ok || math.IsNaN(v) {
					row = append(row, "")
					continue
				}
				row = append(row, fmt.Sprintf("%.4f", v))
			}
			t.Rows = append(t.Rows, row)
		}
		t.Rows = append(t.Rows, best)
		out = append(out, t)
	}
	return out
}

// evalSettings says which protocols, fractions and seeds an evaluation's
// summaries hold: " (coloc eval -o: protocol pairs, fractions 0.2, 0.5,
// seeds 1 to 5)".
func evalSettings(res *eval.Result) string {
	var protos []string
	var fracs []float64
	seeds := 0
	for _, s := range res.Summaries {
		if !slices.Contains(protos, s.Protocol) {
			protos = append(protos, s.Protocol)
		}
		if !slices.Contains(fracs, s.Fraction) {
			fracs = append(fracs, s.Fraction)
		}
		seeds = max(seeds, s.Seeds)
	}
	if len(protos) == 0 {
		return ""
	}
	slices.Sort(fracs)
	var fr []string
	for _, f := range fracs {
		fr = append(fr, fmt.Sprint(f))
	}
	return fmt.Sprintf(" (coloc eval -o: protocol %s, fractions %s, seeds 1 to %d)", strings.Join(protos, ", "), strings.Join(fr, ", "), seeds)
}

// heldOutSection draws the predicted against measured values of the pairs
// held out by one split (the predictions file of `coloc eval
// --predictions`), per model, and the CDF of absolute errors per device.
func (b *builder) heldOutSection() (section, error) {
	p, err := evalfile.ReadPredictions(b.cfg.PredictionsFile)
	if err != nil {
		return section{}, err
	}
	if err := b.input(b.cfg.PredictionsFile); err != nil {
		return section{}, err
	}
	b.warnStage("predictions file "+b.show(b.cfg.PredictionsFile), p.Warnings...)
	var devices []string
	for _, r := range p.Rows {
		if !slices.Contains(devices, r.Device) {
			devices = append(devices, r.Device)
		}
	}
	from := b.show(b.cfg.PredictionsFile)
	split := fmt.Sprintf("protocol %s, %g of each device's measured pairs observed, seed %d", p.Split.Protocol, p.Split.Fraction, p.Split.Seed)
	sec := section{
		Title: "Predicted against measured, held-out pairs",
		Text: fmt.Sprintf("Each model is fit on the observed pairs of one split (%s) and predicts the others; "+
			"the figures show those held-out pairs only, so they measure prediction, not fit. One scatter per model "+
			"(one series per device type, the dashed line is y = x) and one CDF of absolute errors per device type. "+
			"From the predictions file %s (coloc eval --predictions).",
			split, from),
	}
	figs, tab, err := b.predictionFigures(p.Rows, devices, "heldout", split+", held-out pairs of "+from)
	if err != nil {
		return sec, err
	}
	sec.Figures = figs
	sec.Tables = []table{tab}
	return sec, nil
}

// predictionFigures draws a scatter per model and an absolute-error CDF
// per device, and tabulates MAE per model and device.
func (b *builder) predictionFigures(preds []eval.Prediction, devices []string, prefix, what string) ([]plot.Figure, table, error) {
	var models []string
	byModel := map[string]map[string]*plot.Series{}
	errs := map[string]map[string][]float64{} // device -> model -> |error|
	for _, p := range preds {
		if byModel[p.Model] == nil {
			models = append(models, p.Model)
			byModel[p.Model] = map[string]*plot.Series{}
		}
		s := byModel[p.Model][p.Device]
		if s == nil {
			s = &plot.Series{Name: p.Device}
			byModel[p.Model][p.Device] = s
		}
		s.X = append(s.X, p.Measured)
		s.Y = append(s.Y, p.Predicted)
		if errs[p.Device] == nil {
			errs[p.Device] = map[string][]float64{}
		}
		errs[p.Device][p.Model] = append(errs[p.Device][p.Model], math.Abs(p.Predicted-p.Measured))
	}
	tab := table{Caption: "MAE of the pairs drawn (" + what + ")", Header: append([]string{"model"}, devices...)}
	var figs []plot.Figure
	for _, m := range models {
		sc := &plot.Scatter{
			Title:  fmt.Sprintf("Predicted against measured: %s", m),
			XLabel: "measured normalized throughput", YLabel: "predicted normalized throughput", Diagonal: true,
		}
		row := []string{m}
		n := 0
		for _, dev := range devices {
			if s := byModel[m][dev]; s != nil {
				sc.Series = append(sc.Series, *s)
				n += len(s.X)
			}
			row = append(row, fmt.Sprintf("%.4f", mean(errs[dev][m])))
		}
		tab.Rows = append(tab.Rows, row)
		cap := fmt.Sprintf("Normalized throughput predicted by %s against the measured value, %d pairs (%s).", m, n, what)
		f, err := b.figure(sc, figName(prefix, m), cap, wideFigure)
		if err != nil {
			return nil, tab, err
		}
		figs = append(figs, f)
	}
	for _, dev := range devices {
		c := &plot.CDF{Title: "Absolute error on " + dev, XLabel: "absolute error of normalized throughput"}
		for _, m := range models {
			c.Series = append(c.Series, plot.Sample{Name: m, Values: errs[dev][m]})
		}
		cap := fmt.Sprintf("Empirical CDF of each model's absolute errors on %s: the fraction of pairs predicted within x (%s).", dev, what)
		f, err := b.figure(c, figName(prefix, "error", dev), cap, wideFigure)
		if err != nil {
			return nil, tab, err
		}
		figs = append(figs, f)
	}
	return figs, tab, nil
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// fittedSection draws the predictions of the models of cfg.Models for
// every measured pair of the data they know. When the models were fit on
// these very files (their provenance says so), the figures show the fit,
// not prediction, and the text says so.
func (b *builder) fittedSection(md *modelData) (section, error) {
	if err := place.CheckModelDir(b.cfg.Models); err != nil {
		return section{}, err
	}
	ms, err := model.LoadDir(b.cfg.Models, nil)
	if err != nil {
		return section{}, err
	}
	if err := b.input(filepath.Join(b.cfg.Models, model.IndexFile)); err != nil {
		return section{}, err
	}
	same := true
	var preds []eval.Prediction
	skipped := 0
	devices := b.cfg.Devices
	if len(devices) == 0 {
		devices = eval.DefaultDevices(md.data)
	}
	shown := map[string]bool{}
	for _, d := range devices {
		shown[d] = true
	}
	sp := md.data.Space
	for _, l := range ms {
		if err := b.input(filepath.Join(b.cfg.Models, l.File.Model+".json")); err != nil {
			return section{}, err
		}
		b.warn("model "+l.File.Model+" of "+b.show(b.cfg.Models), l.File.Warnings...)
		same = same && sameFiles(l.File.Provenance.Data, md.data)
		for _, o := range md.data.Obs {
			w, p, slot := sp.Jobs[o.A], sp.Jobs[o.B], sp.Slots[o.S].String()
			if !shown[slot] {
				continue
			}
			a, err1 := l.Frame.Job(w)
			c, err2 := l.Frame.Job(p)
			s, err3 := l.Frame.Slot(slot)
			if err1 != nil || err2 != nil || err3 != nil || l.Frame.Row(a, s) == nil || l.Frame.Row(c, s) == nil {
				skipped++
				continue
			}
			preds = append(preds, eval.Prediction{Model: l.File.Model, Device: slot, Workload: w, Partner: p,
				Measured: o.Y, Predicted: l.Model.Predict(a, c, s)})
		}
	}
	kind := "predictions of measured pairs the models did not see in training"
	if same {
		kind = "in-sample: the models were fit on these very pairs, so the figures show how well they fit, not how well they predict"
	}
	sec := section{
		Title: "Fitted models on the measured pairs",
		Text: fmt.Sprintf("The models of %s (written by coloc fit) predict every measured pair of %s they know on %s: %s.",
			b.show(b.cfg.Models), b.show(md.dir), strings.Join(devices, ", "), kind),
	}
	if skipped > 0 {
		sec.Text += fmt.Sprintf(" %d (model, pair) predictions were left out: a job or device the model does not know.", skipped)
	}
	figs, tab, err := b.predictionFigures(preds, devices, "fitted", "models of "+b.show(b.cfg.Models)+"; "+strings.SplitN(kind, ":", 2)[0])
	if err != nil {
		return sec, err
	}
	sec.Figures, sec.Tables = figs, []table{tab}
	return sec, nil
}

// sameFiles reports whether a model was fit on exactly the data's files.
func sameFiles(fit []features.FileSum, d *model.Data) bool {
	if len(fit) != len(d.Files) {
		return false
	}
	for i := range fit {
		if fit[i] != d.Files[i] {
			return false
		}
	}
	return true
}
