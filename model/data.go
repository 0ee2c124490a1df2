package model

import (
	"fmt"
	"strings"

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

// DataOptions choose the pairs LoadDataWith uses.
type DataOptions struct {
	// IncludeUnsettled also uses the suspect pairs the profiling harness
	// measured (source coloc:<campaign>): pairs from runs whose step time
	// never settled. Suspect pairs of other sources are never used.
	IncludeUnsettled bool
}

// LoadData opens the dataset in dir and returns its Data (DataOf).
func LoadData(dir string) (*Data, error) { return LoadDataWith(dir, DataOptions{}) }

// LoadDataWith is LoadData with options.
func LoadDataWith(dir string, o DataOptions) (*Data, error) {
	ds, err := datasets.Open(dir)
	if err != nil {
		return nil, err
	}
	return DataOfWith(ds, o)
}

// DataOf builds the features of an open dataset and collects its measured
// pairs. The dataset's files were read once by datasets.Open; their
// SHA-256 (ds.Files) become Data.Files, computed once.
func DataOf(ds *datasets.Dataset) (*Data, error) { return DataOfWith(ds, DataOptions{}) }

// DataOfWith is DataOf with options.
func DataOfWith(ds *datasets.Dataset, o DataOptions) (*Data, error) {
	set, err := features.Build(ds)
	if err != nil {
		return nil, err
	}
	d, err := dataFrom(set, ds.Pairs, o)
	if err != nil {
		return nil, err
	}
	if d.Files, err = ds.Files(); err != nil {
		return nil, err
	}
	return d, nil
}

// DataFrom pairs a feature set with a pairs table.
func DataFrom(set *features.Set, pairs *datasets.Pairs) (*Data, error) {
	return dataFrom(set, pairs, DataOptions{})
}

func dataFrom(set *features.Set, pairs *datasets.Pairs, o DataOptions) (*Data, error) {
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
		unsettled := o.IncludeUnsettled && p.Status == datasets.StatusSuspect && strings.HasPrefix(p.Source, "coloc:")
		if !p.Measured() && !unsettled {
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
		s, err := sp.Slot(Slot{DeviceType: p.DeviceType, Degree: p.Degree}.String())
		if err != nil {
			return nil, fmt.Errorf("pairs row %d: %w", i+1, err)
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
