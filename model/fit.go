package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/coloc-dev/coloc/internal/version"
)

// DefaultSeed is the seed of `coloc fit` unless one is given.
const DefaultSeed = 1

// Fitted is a model fit on all measured pairs, encoded.
type Fitted struct {
	Name     string
	Bytes    []byte
	Warnings []string
	// Calibration are the problems of this model's calibration (also in
	// Warnings, after the data's).
	Calibration []string
}

// FitAll fits each named model on every measured pair of d with one seed
// and encodes it with an uncalibrated Trust (bounds and flags; intervals
// span the plausible range). FitCalibrated also calibrates intervals.
func FitAll(d *Data, names []string, seed uint64) ([]Fitted, error) {
	return FitCalibrated(d, names, seed, TrustOptions{Coverage: DefaultTrustOptions.Coverage})
}

// FitCalibrated fits each named model on every measured pair of d with one
// seed, calibrates its intervals (Calibrate with trust; trust.Folds < 2:
// none) and encodes it.
func FitCalibrated(d *Data, names []string, seed uint64, trust TrustOptions) ([]Fitted, error) {
	t, err := NewTrain(d.Space, d.Obs, seed)
	if err != nil {
		return nil, err
	}
	var out []Fitted
	for _, name := range names {
		m, err := New(name)
		if err != nil {
			return nil, err
		}
		if err := m.Fit(t); err != nil {
			return nil, fmt.Errorf("fitting %s: %w", name, err)
		}
		tr, warns := UncalibratedTrust(t), []string(nil)
		tr.Coverage = trust.Coverage
		if trust.Folds >= 2 {
			if tr, warns, err = Calibrate(name, t, trust); err != nil {
				return nil, err
			}
		}
		b, err := EncodeTrusted(m, t, tr, d.Files)
		if err != nil {
			return nil, err
		}
		out = append(out, Fitted{Name: name, Bytes: b, Warnings: append(append([]string(nil), t.Warnings...), warns...), Calibration: warns})
	}
	return out, nil
}

// WriteDir writes each fitted model to dir/<name>.json and then the index
// (each file atomically; the index last, so a reader never sees an index
// naming a file not yet written).
func WriteDir(dir string, d *Data, fitted []Fitted) (*Index, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ix := &Index{Format: IndexFormat, Version: FileVersion, Tool: version.String(), Data: d.Files, Features: d.Space.Features}
	for _, f := range fitted {
		file := f.Name + ".json"
		if err := WriteFile(filepath.Join(dir, file), f.Bytes); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(f.Bytes)
		ix.Models = append(ix.Models, IndexEntry{Name: f.Name, File: file, SHA256: hex.EncodeToString(sum[:]), Notes: f.Warnings})
	}
	b, err := jsonIndent(ix)
	if err != nil {
		return nil, err
	}
	return ix, WriteFile(filepath.Join(dir, IndexFile), b)
}
