package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/internal/version"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/reports/plot"
)

// The learning curves of active selection (eval.RunActive, what `coloc
// eval --protocol active` prints): per device, the MAE on the measured
// pairs not yet profiled against the share of pairs profiled, one line per
// strategy, with the all-pairs reference.

// activeOptions are the options of the simulation the report runs: the
// defaults of `coloc eval --protocol active` with the report's model,
// seeds, strategies and devices.
func (c Config) activeOptions(md *modelData) eval.ActiveOptions {
	o := eval.DefaultActiveOptions
	o.Seeds = c.ActiveSeeds
	if c.ActiveModel != "" {
		o.Model = c.ActiveModel
	}
	if len(c.ActiveStrategies) > 0 {
		o.Strategies = c.ActiveStrategies
	}
	o.Devices = c.ActiveDevices
	if len(o.Devices) == 0 {
		o.Devices = c.EvalDevices
	}
	if len(o.Devices) == 0 && md != nil {
		o.Devices = eval.DefaultDevices(md.data)
	}
	return o
}

// validateActive checks the settings of the learning curves.
func (c Config) validateActive() error {
	if c.ActiveSeeds < 0 {
		return fmt.Errorf("--active-seeds %d: want 0 (no learning curves) or more", c.ActiveSeeds)
	}
	if c.ActiveSeeds == 0 {
		return nil
	}
	if c.ActiveModel != "" {
		names, err := model.ParseNames(c.ActiveModel)
		if err != nil {
			return fmt.Errorf("--active-model: %w", err)
		}
		if len(names) != 1 {
			return fmt.Errorf("--active-model %s: want one model", c.ActiveModel)
		}
	}
	for _, s := range c.ActiveStrategies {
		if !slices.Contains(model.Strategies, s) {
			return fmt.Errorf("active strategy %q: want one of %s", s, strings.Join(model.Strategies, ", "))
		}
	}
	return nil
}

// activeSection simulates active selection on the first dataset with
// pairs (or reads it from the cache) and draws one learning curve per
// device.
func (b *builder) activeSection() ([]section, error) {
	md, err := b.pairsData()
	if err != nil || md == nil {
		return nil, err
	}
	const title = "Choosing the pairs to profile: learning curves"
	if md.data == nil {
		return []section{{Title: title, Text: "Not computed: " + md.why + "."}}, nil
	}
	o := b.cfg.activeOptions(md)
	if b.progress != nil {
		o.Progress = prefixWriter{b.progress}
	}
	var res *eval.ActiveResult
	if b.cfg.EvalCache != "" {
		var hit bool
		res, hit, err = runActiveCached(b.cfg.EvalCache, md.data, o)
		if err == nil && hit {
			b.logf("learning curves reused from the cache %s", b.cfg.EvalCache)
		}
	} else {
		res, err = eval.RunActive(md.data, o)
	}
	if err != nil {
		return nil, err
	}
	if len(res.Warnings) > len(md.data.Warnings) {
		b.warn("learning curves", res.Warnings[len(md.data.Warnings):]...)
	}
	from := fmt.Sprintf("coloc eval --protocol active on %s (model %s, seeds 1 to %d)", b.show(md.dir), res.Model, o.Seeds)
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

// Learning curves kept in the evaluation cache directory: a JSON file of
// this format and version, named by activeKey.
const (
	activeCacheFormat  = "coloc.active-curves"
	activeCacheVersion = 1
)

// activeCacheFile is the cached file. JSON keeps every float64 exactly,
// but not NaN: a reference MAE that could not be computed is stored as
// null and read back as NaN.
type activeCacheFile struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Key     string `json:"key"`
	Result  struct {
		Model     string              `json:"model"`
		Points    []eval.CurvePoint   `json:"points"`
		Summaries []eval.CurveSummary `json:"summaries"`
		Reference map[string]*float64 `json:"reference"`
		Warnings  []string            `json:"warnings"`
	} `json:"result"`
}

// activeKey identifies the result of eval.RunActive(d, o): the SHA-256 of
// the data's file checksums (or, for data not read from files, its space
// and pairs), of the options that change curves (model and its default
// hyper-parameters, devices, seeds, strategies, shares) and of the tool
// version. Progress is left out. As with eval.CacheKey, a development
// build keeps one version across edits: remove the cache after changing a
// model.
func activeKey(d *model.Data, o eval.ActiveOptions) (string, error) {
	hyper, err := defaultHyper(o.Model)
	if err != nil {
		return "", err
	}
	data := any(d.Files)
	if len(d.Files) == 0 {
		data = struct {
			Space *model.Space
			Obs   []model.Obs
		}{d.Space, d.Obs}
	}
	return cacheKey("learning curves", struct {
		Tool       string         `json:"tool"`
		Format     int            `json:"format"`
		Data       any            `json:"data"`
		Model      string         `json:"model"`
		Hyper      map[string]any `json:"hyper"`
		Devices    []string       `json:"devices"`
		Seeds      int            `json:"seeds"`
		Strategies []string       `json:"strategies"`
		Shares     []float64      `json:"shares"` // start, step, stop, reference
	}{version.String(), activeCacheVersion, data, o.Model, hyper, o.Devices, o.Seeds, o.Strategies,
		[]float64{o.Start, o.Step, o.Stop, o.Reference}})
}

// runActiveCached returns eval.RunActive(d, o), read from
// dir/active-<key>.json when an earlier call stored it, else computed and
// stored there. hit reports a read.
func runActiveCached(dir string, d *model.Data, o eval.ActiveOptions) (res *eval.ActiveResult, hit bool, err error) {
	key, err := activeKey(d, o)
	if err != nil {
		return nil, false, err
	}
	path := filepath.Join(dir, "active-"+key+".json")
	if b, err := os.ReadFile(path); err == nil {
		res, err := readActiveCache(path, b, key)
		return res, err == nil, err
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("learning curves cache: %w", err)
	}
	if res, err = eval.RunActive(d, o); err != nil {
		return nil, false, err
	}
	f := activeCacheFile{Format: activeCacheFormat, Version: activeCacheVersion, Key: key}
	f.Result.Model, f.Result.Points, f.Result.Summaries, f.Result.Warnings = res.Model, res.Points, res.Summaries, res.Warnings
	f.Result.Reference = map[string]*float64{}
	for dev, v := range res.Reference {
		if !math.IsNaN(v) {
			f.Result.Reference[dev] = &v
		} else {
			f.Result.Reference[dev] = nil
		}
	}
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return nil, false, fmt.Errorf("learning curves cache: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false, fmt.Errorf("learning curves cache: %w", err)
	}
	if err := atomicfile.WriteBytes(path, append(b, '\n')); err != nil {
		return nil, false, fmt.Errorf("learning curves cache: %w", err)
	}
	return res, false, nil
}

// readActiveCache checks and decodes a cached result.
func readActiveCache(path string, b []byte, key string) (*eval.ActiveResult, error) {
	var f activeCacheFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("learning curves cache %s: %w", path, err)
	}
	switch {
	case f.Format != activeCacheFormat:
		return nil, fmt.Errorf("learning curves cache %s: format %q, want %q", path, f.Format, activeCacheFormat)
	case f.Version != activeCacheVersion:
		return nil, fmt.Errorf("learning curves cache %s: version %d is not known to this coloc (it reads version %d)", path, f.Version, activeCacheVersion)
	case f.Key != key:
		return nil, fmt.Errorf("learning curves cache %s: key %s does not match its name", path, short(f.Key))
	}
	r := f.Result
	res := &eval.ActiveResult{Model: r.Model, Points: r.Points, Summaries: r.Summaries, Reference: map[string]float64{}, Warnings: r.Warnings}
	for dev, v := range r.Reference {
		res.Reference[dev] = math.NaN()
		if v != nil {
			res.Reference[dev] = *v
		}
	}
	return res, nil
}

// short abbreviates a hex digest for messages.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
