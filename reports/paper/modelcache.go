package paper

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/internal/version"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place"
)

// The models the paper fits for the policies are kept in the cache
// (Plan.Cache) as a model directory, models-<key>, beside the
// evaluations. The key is the SHA-256 of what the fits depend on: the
// data's files (their SHA-256), the model names with their default
// hyper-parameters, the seed and the tool version. A paper with the same
// key copies the directory instead of fitting: the files are the bytes
// model.WriteDir wrote, checked against the SHA-256 its index records, so
// the page is the same either way. As with the evaluation, a
// development build that reports no revision keeps one version across
// edits: remove the cache after changing a model.

// modelsKey returns the cache key of fitting names on d with seed, or ""
// for data not read from files (nothing to key it by).
func modelsKey(d *model.Data, names []string, seed uint64) (string, error) {
	if len(d.Files) == 0 {
		return "", nil
	}
	hyper, err := defaultHyper(names...)
	if err != nil {
		return "", err
	}
	return cacheKey("models", struct {
		Tool   string         `json:"tool"`
		Format int            `json:"format"`
		Data   any            `json:"data"`
		Models []string       `json:"models"`
		Hyper  map[string]any `json:"hyper"`
		Seed   uint64         `json:"seed"`
	}{version.String(), model.FileVersion, d.Files, names, hyper, seed})
}

// defaultHyper maps each model name to its default hyper-parameters, which
// a cache key changes with.
func defaultHyper(names ...string) (map[string]any, error) {
	hyper := map[string]any{}
	for _, name := range names {
		m, err := model.New(name)
		if err != nil {
			return nil, err
		}
		if h, ok := m.(model.Hyper); ok {
			hyper[name] = h.Hyper()
		}
	}
	return hyper, nil
}

// cacheKey is the hexadecimal SHA-256 of v's JSON; what names the cache in
// an error.
func cacheKey(what string, v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("%s cache key: %w", what, err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// copyModels copies the model directory src (its index and the files it
// names, each checked against its SHA-256) into dst as one change of dst,
// and returns the index. It refuses a directory whose models are not
// names, in that order.
func copyModels(src, dst string, names []string) (*model.Index, error) {
	if err := place.CheckModelDir(src); err != nil {
		return nil, err
	}
	ix, err := model.ReadIndex(src)
	if err != nil {
		return nil, err
	}
	var got []string
	for _, e := range ix.Models {
		got = append(got, e.Name)
	}
	if !slices.Equal(got, names) {
		return nil, fmt.Errorf("%s: holds models %v, want %v", src, got, names)
	}
	err = atomicfile.Dir(dst, func(tmp string) error {
		for _, e := range ix.Models {
			b, err := os.ReadFile(filepath.Join(src, e.File))
			if err != nil {
				return err
			}
			if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != e.SHA256 {
				return fmt.Errorf("%s: SHA-256 differs from its index", filepath.Join(src, e.File))
			}
			if err := atomicfile.WriteBytes(filepath.Join(tmp, e.File), b); err != nil {
				return err
			}
		}
		b, err := os.ReadFile(filepath.Join(src, model.IndexFile))
		if err != nil {
			return err
		}
		return atomicfile.WriteBytes(filepath.Join(tmp, model.IndexFile), b)
	})
	if err != nil {
		return nil, err
	}
	return ix, nil
}

// cachedModels fits names on d into dir, or copies them from the cache
// when it holds them (hit), storing them there after a fit. It returns
// each model's warnings, in names' order.
func cachedModels(cache, dir string, d *model.Data, names []string, seed uint64) (warnings [][]string, hit bool, err error) {
	key, err := modelsKey(d, names, seed)
	if err != nil {
		return nil, false, err
	}
	stored := ""
	if cache != "" && key != "" {
		stored = filepath.Join(cache, "models-"+key)
		if _, err := os.Stat(stored); err == nil {
			ix, err := copyModels(stored, dir, names)
			if err != nil {
				return nil, false, fmt.Errorf("models cache: %w", err)
			}
			for _, e := range ix.Models {
				warnings = append(warnings, e.Notes)
			}
			return warnings, true, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, false, fmt.Errorf("models cache: %w", err)
		}
	}
	fitted, err := model.FitAll(d, names, seed)
	if err != nil {
		return nil, false, err
	}
	if _, err := model.WriteDir(dir, d, fitted); err != nil {
		return nil, false, err
	}
	for _, f := range fitted {
		warnings = append(warnings, f.Warnings)
	}
	if stored != "" {
		if err := os.MkdirAll(cache, 0o755); err != nil {
			return nil, false, fmt.Errorf("models cache: %w", err)
		}
		if _, err := copyModels(dir, stored, names); err != nil {
			return nil, false, fmt.Errorf("models cache: %w", err)
		}
	}
	return warnings, false, nil
}
