package evalfile

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/internal/jsonkeys"
	"github.com/coloc-dev/coloc/model/eval"
)

// The learning-curves file is a JSON object of this format and version.
// Version 1 (the report's cache before the stages wrote the file) had no
// options; version 2 records them, since the page states them.
const (
	activeFormat  = "coloc.active-curves"
	activeVersion = 2
)

// maxActiveBytes bounds the learning-curves file ReadActive reads whole;
// one of the shipped datasets' defaults holds a few hundred kilobytes.
const maxActiveBytes = 256 << 20

// activeFile is the file. JSON keeps every float64 exactly, but not NaN:
// a reference MAE that could not be computed is stored as null and read
// back as NaN. Key identifies the run that made the file where a cache
// stores it; a file of `coloc eval` leaves it empty.
type activeFile struct {
	Format  string        `json:"format"`
	Version int           `json:"version"`
	Key     string        `json:"key"`
	Options activeOptions `json:"options"`
	Result  struct {
		Model     string              `json:"model"`
		Points    []eval.CurvePoint   `json:"points"`
		Summaries []eval.CurveSummary `json:"summaries"`
		Reference map[string]*float64 `json:"reference"`
		Warnings  []string            `json:"warnings"`
	} `json:"result"`
}

// activeOptions are the options of eval.RunActive that shape the curves
// (all but Progress).
type activeOptions struct {
	Model      string   `json:"model"`
	Devices    []string `json:"devices"`
	Seeds      int      `json:"seeds"`
	Strategies []string `json:"strategies"`
	Start      float64  `json:"start"`
	Step       float64  `json:"step"`
	Stop       float64  `json:"stop"`
	Reference  float64  `json:"reference"`
}

// Active is a learning-curves file: the options eval.RunActive ran with
// (Progress is not kept), its result, and Key, which identifies the run
// where a cache stores the file ("" for a file of `coloc eval`).
type Active struct {
	Options eval.ActiveOptions
	Result  *eval.ActiveResult
	Key     string
}

// WriteActive writes a learning-curves file to path (atomically), as
// indented JSON and a newline.
func WriteActive(path string, a *Active) error {
	if a == nil || a.Result == nil {
		return fmt.Errorf("writing %s: no learning curves", path)
	}
	res, o := a.Result, a.Options
	if err := checkOptions(o); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if res.Model != o.Model {
		return fmt.Errorf("writing %s: result of model %q, options name %q", path, res.Model, o.Model)
	}
	f := activeFile{Format: activeFormat, Version: activeVersion, Key: a.Key,
		Options: activeOptions{Model: o.Model, Devices: o.Devices, Seeds: o.Seeds, Strategies: o.Strategies,
			Start: o.Start, Step: o.Step, Stop: o.Stop, Reference: o.Reference}}
	f.Result.Model, f.Result.Points, f.Result.Summaries, f.Result.Warnings = res.Model, res.Points, res.Summaries, res.Warnings
	f.Result.Reference = map[string]*float64{}
	for dev, v := range res.Reference {
		f.Result.Reference[dev] = nil
		if !math.IsNaN(v) {
			f.Result.Reference[dev] = &v
		}
	}
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return atomicfile.WriteBytes(path, append(b, '\n'))
}

// ReadActive reads a file written by WriteActive (format
// "coloc.active-curves", version 2; another format or version is refused).
// A null reference reads as NaN. Every problem names the file.
func ReadActive(path string) (*Active, error) {
	b, err := inputfile.ReadAll(path, "a learning-curves file", maxActiveBytes)
	if err != nil {
		return nil, err
	}
	format, version, err := jsonkeys.Head(b)
	switch {
	case err != nil:
		return nil, fmt.Errorf("learning curves %s: %w", path, err)
	case format != activeFormat:
		return nil, fmt.Errorf("learning curves %s: format %q, want %q", path, format, activeFormat)
	case version != activeVersion:
		return nil, fmt.Errorf("learning curves %s: version %d is not known to this coloc (it reads version %d)", path, version, activeVersion)
	}
	var f activeFile
	if err := jsonkeys.Decode(b, &f); err != nil {
		return nil, fmt.Errorf("learning curves %s: %w", path, err)
	}
	r, fo := f.Result, f.Options
	o := eval.ActiveOptions{Model: fo.Model, Devices: fo.Devices, Seeds: fo.Seeds, Strategies: fo.Strategies,
		Start: fo.Start, Step: fo.Step, Stop: fo.Stop, Reference: fo.Reference}
	if err := checkOptions(o); err != nil {
		return nil, fmt.Errorf("learning curves %s: %w", path, err)
	}
	if r.Model != o.Model {
		return nil, fmt.Errorf("learning curves %s: result of model %q, options name %q", path, r.Model, o.Model)
	}
	if err := checkCurves(r.Model, r.Points, r.Summaries); err != nil {
		return nil, fmt.Errorf("learning curves %s: %w", path, err)
	}
	res := &eval.ActiveResult{Model: r.Model, Points: r.Points, Summaries: r.Summaries, Reference: map[string]float64{}, Warnings: r.Warnings}
	for dev, v := range r.Reference {
		res.Reference[dev] = math.NaN()
		if v != nil {
			res.Reference[dev] = *v
		}
	}
	return &Active{Options: o, Result: res, Key: f.Key}, nil
}

// checkOptions refuses options eval.RunActive would not have run with: no
// model or strategy, fewer than one seed, a share outside [0, 1].
func checkOptions(o eval.ActiveOptions) error {
	switch {
	case o.Model == "":
		return fmt.Errorf("options: no model")
	case len(o.Strategies) == 0:
		return fmt.Errorf("options: no strategy")
	case o.Seeds < 1:
		return fmt.Errorf("options: seeds %d: want at least 1", o.Seeds)
	}
	for _, v := range []float64{o.Start, o.Step, o.Stop, o.Reference} {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("options: share %v is not in [0, 1]", v)
		}
	}
	return nil
}

// checkCurves refuses what eval.RunActive could not have written: no
// model, a point or summary without strategy or device, a share outside
// [0, 1], a negative count or MAE.
func checkCurves(name string, pts []eval.CurvePoint, sums []eval.CurveSummary) error {
	if name == "" {
		return fmt.Errorf("result: no model")
	}
	for i, p := range pts {
		if err := checkCurve(p.Strategy, p.Device, p.Fraction, p.MAE); err != nil {
			return fmt.Errorf("point %d: %w", i+1, err)
		}
		if p.Seed < 1 || p.Pairs < 0 {
			return fmt.Errorf("point %d: seed %d, pairs %d: want a seed of at least 1 and a count", i+1, p.Seed, p.Pairs)
		}
	}
	for i, s := range sums {
		if err := checkCurve(s.Strategy, s.Device, s.Fraction, s.MAEMedian); err != nil {
			return fmt.Errorf("summary %d: %w", i+1, err)
		}
		if s.Seeds < 1 {
			return fmt.Errorf("summary %d: seeds %d: want at least 1", i+1, s.Seeds)
		}
	}
	return nil
}

func checkCurve(strategy, device string, fraction, mae float64) error {
	switch {
	case strategy == "" || device == "":
		return fmt.Errorf("no strategy or no device")
	case !(fraction >= 0 && fraction <= 1):
		return fmt.Errorf("share %v is not in [0, 1]", fraction)
	case !(mae >= 0):
		return fmt.Errorf("MAE %v is negative", mae)
	}
	return nil
}
