package model

import (
	"fmt"
	"sort"
	"strconv"
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
	// never settled, or measured only beside another tenant's processes.
	// Suspect pairs of other sources are never used.
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
	type group struct {
		status string
		multi  bool
	}
	skipped := map[group]int{}
	for i, p := range pairs.Rows {
		unsettled := o.IncludeUnsettled && p.Status == datasets.StatusSuspect && strings.HasPrefix(p.Source, "coloc:")
		if !p.Measured() && !unsettled {
			skipped[group{p.Status, p.Degree > 1}]++
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
	// One line per status and single/multi-GPU group, so the count says
	// what the user can act on: pairs never measured at degree > 1 are a
	// gap of the dataset, not bad data.
	var groups []group
	for g := range skipped {
		groups = append(groups, g)
	}
	sort.Slice(groups, func(i, j int) bool {
		if groups[i].status != groups[j].status {
			return groups[i].status < groups[j].status
		}
		return !groups[i].multi && groups[j].multi
	})
	for _, g := range groups {
		where := "at degree 1"
		if g.multi {
			where = "at degree > 1"
		}
		what := map[string]string{
			datasets.StatusInfeasible: "pairs not measured or unable to run (infeasible) " + where + ": neither trained on nor scored; profile them to cover them",
			datasets.StatusSuspect:    "suspect pairs " + where + " (e.g. co-located throughput equal to solo): neither trained on nor scored; re-measure them or set their status to ok if they are right",
			datasets.StatusFailed:     "failed pair runs " + where + ": neither trained on nor scored; rerun them ('coloc profile run' resumes)",
		}[g.status]
		if what == "" {
			what = fmt.Sprintf("pairs of status %q %s: neither trained on nor scored", g.status, where)
		}
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s %s", Count(skipped[g]), what))
	}
	return d, nil
}

// SmallDataWarning returns an actionable warning when d has too few
// measured pairs for the models to choose hyper-parameters or calibrate
// intervals, "" otherwise.
func SmallDataWarning(d *Data) string {
	const validate, calibrate = 10, 20 // chooseByValidation's minimum; 5 folds of MinObs
	n := len(d.Obs)
	jobs := map[int]bool{}
	for _, o := range d.Obs {
		jobs[o.A], jobs[o.B] = true, true
	}
	switch {
	case n < validate:
		return fmt.Sprintf("only %d measured pairs of %d jobs: every model keeps its default hyper-parameters (choosing needs %d pairs) and intervals span the plausible range (calibrating needs %d); profile more pairs ('coloc profile next' says which)", n, len(jobs), validate, calibrate)
	case n < calibrate:
		return fmt.Sprintf("only %d measured pairs of %d jobs: intervals span the plausible range (calibrating needs %d); profile more pairs ('coloc profile next' says which)", n, len(jobs), calibrate)
	}
	return ""
}

// Count formats n with thousands separators ("6,736").
func Count(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
