// Package evalfile holds the evaluation stage's files beside eval's own
// result table (Result.Write and eval.Read): the held-out predictions of
// one split (WritePredictions, ReadPredictions: what `coloc eval
// --predictions` writes) and the learning curves of active selection
// (WriteActive, ReadActive: what `coloc eval --protocol active -o`
// writes). `coloc report` draws its figures from these files rather than
// fitting models itself.
//
// It is a package of its own, above model/eval, so that file code changes
// nothing in the code of model/eval, which the result tables' staleness
// check hashes.
package evalfile

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/internal/version"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
)

// The predictions file is an Arrow table of this name and version: one
// row per held-out pair and model; the split's protocol, fraction and seed
// in the table's metadata, its device in each row.
const (
	predictionsTable   = "predictions"
	predictionsVersion = 1
)

// Metadata keys of the predictions table.
const (
	metaProtocol = "coloc.predictions.protocol"
	metaFraction = "coloc.predictions.fraction"
	metaSeed     = "coloc.predictions.seed"
	metaWarnings = "coloc.predictions.warnings"
)

// Predictions are the held-out pairs of one split with each model's
// prediction of them (eval.Predict).
type Predictions struct {
	// Split is the split whose held-out pairs these are: its protocol,
	// fraction and seed, and its device, "" when the rows span several
	// devices (the same split on each, as PredictSplit makes) or none.
	Split eval.Split
	Rows  []eval.Prediction
	// Warnings are those of the data or the fits, kept for the reader;
	// optional.
	Warnings []string
}

// PredictSplit returns the predictions of each model on the pairs held
// out by one split of protocol pairs (fraction of each device's measured
// pairs observed, seed) on each device: eval.Predict once per (device,
// model), on up to workers goroutines (0: GOMAXPROCS). The rows are in
// device order, then model order, then the split's order of held-out
// pairs, what one eval.Predict per device returns, whatever the number of
// workers. No devices means eval.DefaultDevices(d).
func PredictSplit(d *model.Data, models, devices []string, fraction float64, seed int, workers int) ([]eval.Prediction, error) {
	if len(devices) == 0 {
		devices = eval.DefaultDevices(d)
	}
	parts := make([][]eval.Prediction, len(devices)*len(models))
	err := model.ForEach(len(parts), workers, func(k int) error {
		m := models[k%len(models)]
		sp := eval.Split{Protocol: "pairs", Device: devices[k/len(models)], Fraction: fraction, Seed: seed}
		var err error
		parts[k], err = eval.Predict(d, []string{m}, sp)
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []eval.Prediction
	for _, ps := range parts {
		out = append(out, ps...)
	}
	return out, nil
}

// WritePredictions writes p to path (atomically). It refuses what
// ReadPredictions would refuse: a split that eval.Predict does not make,
// a row with an empty name or a value that is not finite, a row of
// another device than Split.Device when that is set.
func WritePredictions(path string, p *Predictions) error {
	if p == nil {
		return fmt.Errorf("writing %s: no predictions", path)
	}
	if err := checkSplit(p.Split); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	for i, r := range p.Rows {
		err := checkRow(r)
		if err == nil && p.Split.Device != "" && r.Device != p.Split.Device {
			err = fmt.Errorf("device %q is not the split's device %q", r.Device, p.Split.Device)
		}
		if err != nil {
			return fmt.Errorf("writing %s: row %d: %w", path, i+1, err)
		}
	}
	n := len(p.Rows)
	str := func(name string, f func(r eval.Prediction) string) features.TableColumn {
		c := features.TableColumn{Name: name, Str: make([]string, n)}
		for i, r := range p.Rows {
			c.Str[i] = f(r)
		}
		return c
	}
	flt := func(name string, f func(r eval.Prediction) float64) features.TableColumn {
		c := features.TableColumn{Name: name, Unit: "1", Float: make([]float64, n)}
		for i, r := range p.Rows {
			c.Float[i] = f(r)
		}
		return c
	}
	t := &features.Table{Name: predictionsTable, Version: predictionsVersion, Meta: map[string]string{
		"coloc.tool_version": version.String(),
		metaProtocol:         p.Split.Protocol,
		metaFraction:         strconv.FormatFloat(p.Split.Fraction, 'g', -1, 64),
		metaSeed:             strconv.Itoa(p.Split.Seed),
		metaWarnings:         strings.Join(p.Warnings, "\n"),
	}}
	t.Columns = []features.TableColumn{
		str("model", func(r eval.Prediction) string { return r.Model }),
		str("device", func(r eval.Prediction) string { return r.Device }),
		str("workload", func(r eval.Prediction) string { return r.Workload }),
		str("partner", func(r eval.Prediction) string { return r.Partner }),
		flt("measured", func(r eval.Prediction) float64 { return r.Measured }),
		flt("predicted", func(r eval.Prediction) float64 { return r.Predicted }),
	}
	return features.WriteTable(path, t)
}

// ReadPredictions reads a file written by WritePredictions (table
// "predictions", version 1; another table or version is refused) and
// checks it: the split's metadata, the columns and every row. Every
// problem names the file, and the row and column where there is one.
//
// A measured or predicted value that is not finite is refused: eval
// scores only measured pairs, whose normalized throughput is positive and
// finite, and refuses a model whose raw prediction is NaN or infinite
// before bounding it to the plausible range, so Predict never returns one.
func ReadPredictions(path string) (*Predictions, error) {
	t, err := features.ReadTable(path, predictionsTable, predictionsVersion)
	if err != nil {
		return nil, err
	}
	p := &Predictions{}
	if p.Split, err = splitOf(t.Meta); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if w := t.Meta[metaWarnings]; w != "" {
		p.Warnings = strings.Split(w, "\n")
	}
	var str [4][]string
	for i, name := range []string{"model", "device", "workload", "partner"} {
		c := t.Column(name)
		if c == nil || c.Str == nil {
			return nil, fmt.Errorf("%s: column %s: missing or not of type string", path, name)
		}
		str[i] = c.Str
	}
	var flt [2][]float64
	for i, name := range []string{"measured", "predicted"} {
		c := t.Column(name)
		if c == nil || c.Float == nil {
			return nil, fmt.Errorf("%s: column %s: missing or not of type float", path, name)
		}
		flt[i] = c.Float
	}
	var devices []string
	for i := range str[0] {
		r := eval.Prediction{Model: str[0][i], Device: str[1][i], Workload: str[2][i], Partner: str[3][i],
			Measured: flt[0][i], Predicted: flt[1][i]}
		if err := checkRow(r); err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", path, i+1, err)
		}
		if !slices.Contains(devices, r.Device) {
			devices = append(devices, r.Device)
		}
		p.Rows = append(p.Rows, r)
	}
	if len(devices) == 1 {
		p.Split.Device = devices[0]
	}
	return p, nil
}

// splitOf reads the split's protocol, fraction and seed from the table's
// metadata.
func splitOf(meta map[string]string) (eval.Split, error) {
	var sp eval.Split
	for _, k := range []string{metaProtocol, metaFraction, metaSeed} {
		if meta[k] == "" {
			return sp, fmt.Errorf("metadata %s: missing", k)
		}
	}
	sp.Protocol = meta[metaProtocol]
	var err error
	if sp.Fraction, err = strconv.ParseFloat(meta[metaFraction], 64); err != nil {
		return sp, fmt.Errorf("metadata %s: %q is not a number", metaFraction, meta[metaFraction])
	}
	if sp.Seed, err = strconv.Atoi(meta[metaSeed]); err != nil {
		return sp, fmt.Errorf("metadata %s: %q is not an integer", metaSeed, meta[metaSeed])
	}
	return sp, checkSplit(sp)
}

// checkSplit refuses a split eval.Predict does not make.
func checkSplit(sp eval.Split) error {
	switch {
	case !slices.Contains(eval.Protocols, sp.Protocol):
		return fmt.Errorf("split protocol %q is not one of %s", sp.Protocol, strings.Join(eval.Protocols, ", "))
	case !(sp.Fraction >= 0 && sp.Fraction < 1):
		return fmt.Errorf("split fraction %v is not in [0, 1)", sp.Fraction)
	case sp.Seed < 1:
		return fmt.Errorf("split seed %d is not at least 1", sp.Seed)
	}
	return nil
}

// checkRow reports the first column of a row that eval.Predict could not
// have returned.
func checkRow(r eval.Prediction) error {
	for _, c := range []struct{ name, v string }{
		{"model", r.Model}, {"device", r.Device}, {"workload", r.Workload}, {"partner", r.Partner},
	} {
		if c.v == "" {
			return fmt.Errorf("column %s: empty", c.name)
		}
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"measured", r.Measured}, {"predicted", r.Predicted}} {
		if math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return fmt.Errorf("column %s: %v is not a finite number", c.name, c.v)
		}
	}
	return nil
}
