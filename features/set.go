package features

import (
	"fmt"
	"math"
	"sort"
)

// Version is the version of the feature file format (table "features").
// Readers refuse any other.
const Version = 1

// TableName is the table name a feature file carries in its schema
// metadata (coloc.table).
const TableName = "features"

// Group says where a feature comes from.
type Group string

// Feature groups.
const (
	// GroupDescriptor features describe the model, whatever the hardware: they are
	// the same on every row of a workload (parameters, FLOPs, layers, batch
	// size, class, precision).
	GroupDescriptor Group = "descriptor"
	// GroupMeasured features come from solo runs on one device type and degree:
	// throughput, peak memory, counter summaries.
	GroupMeasured Group = "measured"
)

// Column describes one feature.
type Column struct {
	Name  string
	Unit  string
	Group Group
	// Levels, when not nil, makes the column categorical: a row's value is
	// the index of its level (NaN when unknown). Levels are sorted.
	Levels []string
	// Log says the value is positive and heavy-tailed: models use its
	// logarithm.
	Log bool
}

// Categorical reports whether the column holds levels rather than numbers.
func (c Column) Categorical() bool { return c.Levels != nil }

// Row is the feature vector of one workload on one device type at one
// degree. Values is aligned with Set.Columns; NaN is missing.
type Row struct {
	Workload   string
	DeviceType string
	Degree     int
	Values     []float64
}

// Set is a feature table: one row per (workload, device type, degree).
type Set struct {
	Columns []Column
	Rows    []Row
	// Meta is provenance kept in the file (descriptor table version, data
	// checksums, ...).
	Meta map[string]string
	// Warnings are problems that did not stop the build (unknown model
	// family, missing values).
	Warnings []string
}

// Column returns the index of the named column, or -1.
func (s *Set) Column(name string) int {
	for i, c := range s.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Names returns the column names in order.
func (s *Set) Names() []string {
	out := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		out[i] = c.Name
	}
	return out
}

// Find returns the row of a workload on a device type and degree.
func (s *Set) Find(workload, deviceType string, degree int) (Row, bool) {
	for _, r := range s.Rows {
		if r.Workload == workload && r.DeviceType == deviceType && r.Degree == degree {
			return r, true
		}
	}
	return Row{}, false
}

// Workloads returns the sorted distinct workloads.
func (s *Set) Workloads() []string {
	set := map[string]bool{}
	for _, r := range s.Rows {
		set[r.Workload] = true
	}
	out := make([]string, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// Label returns the level of a categorical value, "" when unknown.
func (c Column) Label(v float64) string {
	if math.IsNaN(v) || int(v) < 0 || int(v) >= len(c.Levels) {
		return ""
	}
	return c.Levels[int(v)]
}

// Check verifies the set's invariants: unique column names, rows of the
// right width, categorical values within their levels, no infinite
// values, no duplicate row keys. Readers and writers call it.
func (s *Set) Check() error {
	seen := map[string]bool{}
	for i, c := range s.Columns {
		if c.Name == "" {
			return fmt.Errorf("feature column %d has no name", i+1)
		}
		if seen[c.Name] || c.Name == "workload" || c.Name == "device_type" || c.Name == "degree" {
			return fmt.Errorf("feature column %q is duplicated or reserved", c.Name)
		}
		seen[c.Name] = true
		if c.Group != GroupDescriptor && c.Group != GroupMeasured {
			return fmt.Errorf("feature column %q: unknown group %q", c.Name, c.Group)
		}
	}
	type key struct {
		w, d string
		g    int
	}
	keys := map[key]bool{}
	for i, r := range s.Rows {
		if r.Workload == "" || r.DeviceType == "" || r.Degree < 1 {
			return fmt.Errorf("feature row %d: workload, device type and a positive degree are required", i+1)
		}
		k := key{r.Workload, r.DeviceType, r.Degree}
		if keys[k] {
			return fmt.Errorf("feature row %d: duplicate row for %s on %s at degree %d", i+1, r.Workload, r.DeviceType, r.Degree)
		}
		keys[k] = true
		if len(r.Values) != len(s.Columns) {
			return fmt.Errorf("feature row %d (%s): %d values for %d columns", i+1, r.Workload, len(r.Values), len(s.Columns))
		}
		for j, v := range r.Values {
			c := s.Columns[j]
			switch {
			case math.IsInf(v, 0):
				return fmt.Errorf("feature row %d (%s): column %s is infinite", i+1, r.Workload, c.Name)
			case c.Categorical() && !math.IsNaN(v) && (v != math.Trunc(v) || v < 0 || int(v) >= len(c.Levels)):
				return fmt.Errorf("feature row %d (%s): column %s: %v is not a level index", i+1, r.Workload, c.Name, v)
			case c.Log && !math.IsNaN(v) && v <= 0:
				return fmt.Errorf("feature row %d (%s): column %s is log-scaled and must be positive, got %v", i+1, r.Workload, c.Name, v)
			}
		}
	}
	return nil
}
