package paper

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/coloc-dev/coloc/internal/version"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/model/eval/evalfile"
)

// Learning curves kept in the cache are learning-curves files
// (evalfile.WriteActive) named active-<key>.json, the key recorded in the
// file too.

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
		Data       any            `json:"data"`
		Model      string         `json:"model"`
		Hyper      map[string]any `json:"hyper"`
		Devices    []string       `json:"devices"`
		Seeds      int            `json:"seeds"`
		Strategies []string       `json:"strategies"`
		Shares     []float64      `json:"shares"` // start, step, stop, reference
	}{version.String(), data, o.Model, hyper, o.Devices, o.Seeds, o.Strategies,
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
	if _, err := os.Stat(path); err == nil {
		f, err := evalfile.ReadActive(path)
		if err != nil {
			return nil, false, fmt.Errorf("learning curves cache: %w", err)
		}
		if f.Key != key {
			return nil, false, fmt.Errorf("learning curves cache %s: key %s does not match its name", path, short(f.Key))
		}
		return f.Result, true, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("learning curves cache: %w", err)
	}
	if res, err = eval.RunActive(d, o); err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false, fmt.Errorf("learning curves cache: %w", err)
	}
	o.Progress = nil
	if err := evalfile.WriteActive(path, &evalfile.Active{Options: o, Result: res, Key: key}); err != nil {
		return nil, false, fmt.Errorf("learning curves cache: %w", err)
	}
	return res, false, nil
}

// short abbreviates a hex digest for messages.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
