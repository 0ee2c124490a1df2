package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/coloc-dev/coloc/internal/atomicfile"
)

// Dataset is a directory of tables, each under its conventional name
// (runs.arrow, samples.arrow, solo.arrow, pairs.arrow, scaling.arrow). Any
// of them may be absent. Samples are not loaded (they can be large): use
// Read or a Scanner on SamplesPath.
type Dataset struct {
	Dir     string
	Runs    *RunsTable
	Solo    *SoloTable
	Pairs   *Pairs
	Scaling *ScalingTable
	// SamplesPath is the samples file, "" when the directory has none.
	SamplesPath string
	// Workloads is the content of workloads.json, nil when the directory
	// has none.
	Workloads []WorkloadMeta

	sums       []FileSum // of the files Open read
	samplesSum *FileSum  // computed by the first call of Files
	unchecked  []string  // tables Open read that carry no checksums
}

// Open reads and validates every table in dir, then checks them against
// each other: every workload and partner of an ok or suspect pair must have
// a solo row on that device type and degree when a solo table is present.
func Open(dir string) (*Dataset, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory (a dataset is a directory of .arrow tables)", dir)
	}
	ds := &Dataset{Dir: dir}
	found := 0
	for _, k := range Kinds {
		path := filepath.Join(dir, k.FileName())
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		found++
		if k == KindSamples {
			ds.SamplesPath = path
			continue
		}
		t, err := ds.readTable(path)
		if err != nil {
			return nil, err
		}
		if !t.Verified() {
			ds.unchecked = append(ds.unchecked, k.FileName())
		}
		if t.Kind != k {
			return nil, fmt.Errorf("%s: holds table %s, its name says %s", path, t.Kind, k)
		}
		switch k {
		case KindRuns:
			ds.Runs, err = RunsFrom(t)
		case KindSolo:
			ds.Solo, err = SoloFrom(t)
		case KindPairs:
			ds.Pairs, err = PairsFrom(t)
		case KindScaling:
			ds.Scaling, err = ScalingFrom(t)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("%s: no tables (want one or more of runs, samples, solo, pairs, scaling .arrow)", dir)
	}
	if err := ds.readWorkloads(); err != nil {
		return nil, err
	}
	if err := CrossCheck(ds.Solo, ds.Pairs, filepath.Join(dir, KindPairs.FileName())); err != nil {
		return nil, err
	}
	return ds, nil
}

// Check reads and validates the dataset in dir as Open does and streams
// its samples.arrow through the same checks, then says in one line what it
// holds and which of its tables carry no checksums (written before coloc
// recorded them, or by another program): those were validated, not
// verified.
func Check(dir string) (string, error) {
	ds, err := Open(dir)
	if err != nil {
		return "", err
	}
	var parts []string
	add := func(k Kind, n int) { parts = append(parts, fmt.Sprintf("%s %d rows", k, n)) }
	if ds.Runs != nil {
		add(KindRuns, len(ds.Runs.Rows))
	}
	if ds.Solo != nil {
		add(KindSolo, len(ds.Solo.Rows))
	}
	if ds.Pairs != nil {
		add(KindPairs, len(ds.Pairs.Rows))
	}
	if ds.Scaling != nil {
		add(KindScaling, len(ds.Scaling.Rows))
	}
	if ds.SamplesPath != "" {
		sc, err := NewScanner(ds.SamplesPath)
		if err != nil {
			return "", err
		}
		n := 0
		for sc.Scan() {
			n += sc.Batch().Len()
		}
		err = sc.Err()
		if cerr := sc.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", err
		}
		if sc.sum == nil {
			ds.unchecked = append(ds.unchecked, KindSamples.FileName())
		}
		add(KindSamples, n)
	}
	line := "dataset: " + strings.Join(parts, ", ")
	if len(ds.unchecked) > 0 {
		line += "; no checksums in " + strings.Join(ds.unchecked, ", ") + " (validated, not verified: written by an older coloc or another program)"
	} else {
		line += "; checksums verified"
	}
	return line, nil
}

// CrossCheck reports pairs that name a workload without a solo measurement
// on that device type and degree. Only ok and suspect pairs are checked (an
// infeasible pair may involve a job that never ran). Nil tables pass.
func CrossCheck(solo *SoloTable, pairs *Pairs, pairsFile string) error {
	if solo == nil || pairs == nil {
		return nil
	}
	type key struct {
		w, d string
		g    int
	}
	known := map[key]bool{}
	for _, s := range solo.Rows {
		known[key{s.Workload, s.DeviceType, s.Degree}] = true
	}
	ps := &problems{file: pairsFile}
	for i, p := range pairs.Rows {
		if p.Status == StatusInfeasible {
			continue
		}
		if !known[key{p.Workload, p.DeviceType, p.Degree}] {
			ps.add(i+1, "workload", "unknown workload %q: no solo row on %s at degree %d", p.Workload, p.DeviceType, p.Degree)
		}
		if !known[key{p.Partner, p.DeviceType, p.Degree}] {
			ps.add(i+1, "partner", "unknown workload %q: no solo row on %s at degree %d", p.Partner, p.DeviceType, p.Degree)
		}
	}
	return ps.err()
}

// WriteDir writes the tables into dir under their conventional names. All
// are validated and written to temporary files first and renamed into place
// only when every one succeeded, so bad input writes nothing. A failure
// among the renames can leave some tables new and some old: where the
// tables must change together, use ReplaceDir.
func WriteDir(dir string, tables ...*Table) error {
	if err := checkDir(dir, tables); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return writeTables(dir, tables)
}

// ReplaceDir writes the tables into dir as WriteDir does, but as one
// change of the whole directory (internal/atomicfile.Dir): they are written
// into a temporary directory beside dir, which then replaces dir, so a
// reader sees every old table or every new one, and any failure leaves dir
// as it was. The other files of dir (tables not written, a user's notes)
// are kept. Importers use it: their tables (solo, pairs, scaling) describe
// one source together.
func ReplaceDir(dir string, tables ...*Table) error {
	if err := checkDir(dir, tables); err != nil {
		return err
	}
	return atomicfile.Dir(dir, func(tmp string) error { return writeTables(tmp, tables) })
}

// checkDir validates the tables of one directory, naming each by its file
// in dir, and refuses two of one kind.
func checkDir(dir string, tables []*Table) error {
	seen := map[Kind]bool{}
	for _, t := range tables {
		if seen[t.Kind] {
			return fmt.Errorf("two %s tables for one directory", t.Kind)
		}
		seen[t.Kind] = true
		if err := Validate(t, filepath.Join(dir, t.Kind.FileName())); err != nil {
			return err
		}
	}
	return nil
}

// writeTables writes validated tables into dir, renaming them into place
// when every one was written.
func writeTables(dir string, tables []*Table) error {
	var staged []*Writer
	abort := func() {
		for _, w := range staged {
			w.Abort()
		}
	}
	for _, t := range tables {
		w, err := NewWriter(filepath.Join(dir, t.Kind.FileName()), t)
		if err != nil {
			abort()
			return err
		}
		staged = append(staged, w)
		if err := w.write(t, false); err != nil {
			abort()
			return err
		}
	}
	// Renames are the commit; a failure here can leave some tables renamed.
	for i, w := range staged {
		if err := w.Close(); err != nil {
			for _, rest := range staged[i+1:] {
				rest.Abort()
			}
			return err
		}
	}
	return nil
}

// Workloads returns the sorted distinct workload names of a pairs table.
func (p *Pairs) Workloads() []string {
	set := map[string]bool{}
	for _, r := range p.Rows {
		set[r.Workload] = true
		set[r.Partner] = true
	}
	out := make([]string, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// DeviceTypes returns the sorted distinct device types of a pairs table.
func (p *Pairs) DeviceTypes() []string {
	set := map[string]bool{}
	for _, r := range p.Rows {
		set[r.DeviceType] = true
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}
