package model

import (
	"fmt"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/features"
)

// Data is what models are fit and evaluated on: the space of jobs and
// features and every measured pair (status ok; suspect and infeasible pairs are never
// used).
type Data struct {
	Space    *Space
	Obs      []Obs
	Warnings []string
	// Files are the checksums of the data files, for provenance.
	Files []features.FileSum
}

// LoadData builds the features of the dataset in dir and collects its measured
// pairs.
func LoadData(dir string) (*Data, error) {
	set, err := features.BuildDir(dir)
	if err != nil {
		return nil, err
	}
	ds, err := datasets.Open(dir)
	if err != nil {
		return nil, err
	}
	d, err := DataFrom(set, ds.Pairs)
	if err != nil {
		return nil, err
	}
	if d.Files, err = features.DataFiles(dir); err != nil {
		return nil, err
	}
	return d, nil
}

// DataFrom pairs a feature set with a pairs table.
func DataFrom(set *features.Set, pairs *datasets.Pairs) (*Data, error) {
	if pairs == nil {
		return nil, fmt.Errorf("no pairs table: nothing to evaluate")
	}
	sp, err := NewSpace(set)
	if err != nil {
		return nil, err
	}
	d := &Data{Space: sp, Warnings: set.Warnings}
	skipped := 0
	for i, p := range pairs.Rows {
		if !p.Measured() {
			skipped++
			continue
		}
		a, err := sp.Job(p.Workload)
		if err != nil {
			return nil, fmt.Errorf("pairs row %d: %w", i+1, err)
		}
		b, err := sp.Job(p.Partner)
		if err != nil {
			return nil, fmt.Errorf("pairs row %d: %w", i+1, err)
		}
		s := sp.SlotIndex(Slot{DeviceType: p.DeviceType, Degree: p.Degree})
		if s < 0 {
			return nil, fmt.Errorf("pairs row %d: %s|%s: no solo features on device %s at degree %d", i+1, p.Workload, p.Partner, p.DeviceType, p.Degree)
		}
		if sp.Row(a, s) == nil || sp.Row(b, s) == nil {
			return nil, fmt.Errorf("pairs row %d: %s|%s on %s: a job has no solo features there", i+1, p.Workload, p.Partner, p.DeviceType)
		}
		d.Obs = append(d.Obs, Obs{A: a, B: b, S: s, Y: p.Normalized})
	}
	if skipped > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%d suspect or infeasible pairs are neither trained on nor scored", skipped))
	}
	return d, nil
}
