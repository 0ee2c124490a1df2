package fleet

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/coloc-dev/coloc/datasets"
)

// Dirs returns the sub-directories of dir that hold a fleet (one per
// GPU type in a heterogeneous campaign), sorted by name.
func Dirs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(sub, FileName)); err == nil {
			out = append(out, sub)
		}
	}
	return out, nil
}

// unionKinds are the tables UnionCampaigns joins; samples stay in each
// campaign (their run IDs repeat from one fleet to the next).
var unionKinds = []datasets.Kind{datasets.KindRuns, datasets.KindSolo, datasets.KindPairs, datasets.KindScaling}

// UnionCampaigns writes into dir the union of the runs, solo, pairs and
// scaling tables of the campaign directories subs (datasets.Merge: rows
// are keyed, by campaign and run for runs and by device type for the
// others, so the fleets of several GPU types join without conflict, and two
// campaigns that measured one key differently are refused). It returns the
// tables written. The samples stay in each campaign's directory.
func UnionCampaigns(dir string, subs []string) ([]*datasets.Table, error) {
	var out []*datasets.Table
	for _, k := range unionKinds {
		var tables []*datasets.Table
		var names []string
		for _, sub := range subs {
			path := filepath.Join(sub, k.FileName())
			t, err := datasets.Read(path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			tables = append(tables, t)
			names = append(names, path)
		}
		if len(tables) == 0 {
			continue
		}
		m, err := datasets.Merge(tables, names)
		if err != nil {
			return nil, fmt.Errorf("joining the fleets of %s: %w", dir, err)
		}
		out = append(out, m)
	}
	if err := datasets.WriteDir(dir, out...); err != nil {
		return nil, err
	}
	return out, nil
}
