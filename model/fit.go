package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/coloc-dev/coloc/internal/atomicfile"
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
// span the plausible range), the models spread over GOMAXPROCS
// goroutines. FitCalibrated also calibrates intervals.
func FitAll(d *Data, names []string, seed uint64) ([]Fitted, error) {
	return FitAllWorkers(d, names, seed, 0)
}

// FitAllWorkers is FitAll on up to workerCount(workers) goroutines, one model
// each; the result does not depend on their number (models share only the
// training input, which they read).
func FitAllWorkers(d *Data, names []string, seed uint64, workers int) ([]Fitted, error) {
	return FitCalibrated(d, names, seed, TrustOptions{Coverage: DefaultTrustOptions.Coverage}, workers)
}

// FitCalibrated fits each named model on every measured pair of d with one
// seed, calibrates its intervals (Calibrate with trust; trust.Folds < 2:
// none) and encodes it, on up to workerCount(workers) goroutines, one model
// each; the result does not depend on their number.
func FitCalibrated(d *Data, names []string, seed uint64, trust TrustOptions, workers int) ([]Fitted, error) {
	t, err := NewTrain(d.Space, d.Obs, seed)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if _, err := New(name); err != nil {
			return nil, err
		}
	}
	out := make([]Fitted, len(names))
	err = ForEach(len(names), workers, func(i int) error {
		name := names[i]
		m, _ := New(name)
		if err := m.Fit(t); err != nil {
			return fmt.Errorf("fitting %s: %w", name, err)
		}
		tr, warns := UncalibratedTrust(t), []string(nil)
		tr.Coverage = trust.Coverage
		if trust.Folds >= 2 {
			var err error
			if tr, warns, err = Calibrate(name, t, trust); err != nil {
				return err
			}
		}
		b, err := encodeTrusted(m, t, tr, d.Files)
		if err != nil {
			return err
		}
		out[i] = Fitted{Name: name, Bytes: b, Warnings: append(append([]string(nil), t.Warnings...), warns...), Calibration: warns}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// WriteDir writes each fitted model to dir/<name>.json and the index, as
// one directory replaced as a whole (internal/atomicfile.Dir): a reader
// sees the old models or the new ones, and a failure leaves the old
// directory as it was. Other files in dir are kept.
func WriteDir(dir string, d *Data, fitted []Fitted) (*Index, error) {
	ix := &Index{Format: indexFormat, Version: FileVersion, Tool: version.String(), Data: d.Files, Features: d.Space.Features}
	err := atomicfile.Dir(dir, func(tmp string) error {
		for _, f := range fitted {
			file := f.Name + ".json"
			if err := writeFile(filepath.Join(tmp, file), f.Bytes); err != nil {
				return err
			}
			sum := sha256.Sum256(f.Bytes)
			ix.Models = append(ix.Models, IndexEntry{Name: f.Name, File: file, SHA256: hex.EncodeToString(sum[:]), Notes: f.Warnings})
		}
		b, err := jsonIndent(ix)
		if err != nil {
			return err
		}
		return writeFile(filepath.Join(tmp, IndexFile), b)
	})
	if err != nil {
		return nil, err
	}
	return ix, nil
}
