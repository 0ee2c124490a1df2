package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

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

// FitAllWorkers is FitAll on up to Workers(workers) goroutines, one model
// each; the result does not depend on their number (models share only the
// training input, which they read).
func FitAllWorkers(d *Data, names []string, seed uint64, workers int) ([]Fitted, error) {
	return FitCalibrated(d, names, seed, TrustOptions{Coverage: DefaultTrustOptions.Coverage}, workers)
}

// FitCalibrated fits each named model on every measured pair of d with one
// seed, calibrates its intervals (Calibrate with trust; trust.Folds < 2:
// none) and encodes it, on up to Workers(workers) goroutines, one model
// each; the result does not depend on their number.
func FitCalibrated(d *Data, names []string, seed uint64, trust TrustOptions, workers int) ([]Fitted, error) {
	return FitCalibratedProgress(d, names, seed, trust, workers, nil)
}

// FitCalibratedProgress is FitCalibrated that writes a line to progress
// (when not nil) as each model is done: its time, how many are done and
// the time left at the pace so far.
func FitCalibratedProgress(d *Data, names []string, seed uint64, trust TrustOptions, workers int, progress io.Writer) ([]Fitted, error) {
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
	start := time.Now()
	var mu sync.Mutex
	done := 0
	err = ForEach(len(names), workers, func(i int) error {
		name := names[i]
		began := time.Now()
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
		b, err := EncodeTrusted(m, t, tr, d.Files)
		if err != nil {
			return err
		}
		out[i] = Fitted{Name: name, Bytes: b, Warnings: append(append([]string(nil), t.Warnings...), warns...), Calibration: warns}
		if progress != nil {
			mu.Lock()
			done++
			what := "fitted"
			if trust.Folds >= 2 {
				what = "fitted and calibrated"
			}
			elapsed := time.Since(start)
			left := time.Duration(float64(elapsed) / float64(done) * float64(len(names)-done))
			fmt.Fprintf(progress, "fit: %s %s in %.1f s (%d of %d models; about %.0f s left)\n", name, what, time.Since(began).Seconds(), done, len(names), left.Seconds())
			mu.Unlock()
		}
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
	ix := &Index{Format: IndexFormat, Version: FileVersion, Tool: version.String(), Data: d.Files, Features: d.Space.Features}
	err := atomicfile.Dir(dir, func(tmp string) error {
		for _, f := range fitted {
			file := f.Name + ".json"
			if err := WriteFile(filepath.Join(tmp, file), f.Bytes); err != nil {
				return err
			}
			sum := sha256.Sum256(f.Bytes)
			ix.Models = append(ix.Models, IndexEntry{Name: f.Name, File: file, SHA256: hex.EncodeToString(sum[:]), Notes: f.Warnings})
		}
		b, err := jsonIndent(ix)
		if err != nil {
			return err
		}
		return WriteFile(filepath.Join(tmp, IndexFile), b)
	})
	if err != nil {
		return nil, err
	}
	return ix, nil
}
