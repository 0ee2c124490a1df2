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
}

// FitAll fits each named model on every measured pair of d with one seed
// and encodes it.
func FitAll(d *Data, names []string, seed uint64) ([]Fitted, error) {
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
		b, err := Encode(m, t, d.Files)
		if err != nil {
			return nil, err
		}
		out = append(out, Fitted{Name: name, Bytes: b, Warnings: t.Warnings})
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
