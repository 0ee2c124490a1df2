package features

import (
	"fmt"
	"math"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
)

// Field metadata keys of a feature file.
const (
	MetaGroup = "coloc.group" // descriptor or measured
	MetaLog   = "coloc.log"   // "true" when models use the logarithm
	MetaKind  = "coloc.kind"  // "categorical" for a column of levels
)

// Write writes the set to path as a versioned Arrow table "features":
// workload, device_type, degree, then one column per feature with its
// unit, group and scale in field metadata; categorical features are string
// columns. The file is written atomically.
func Write(path string, s *Set) error {
	if err := s.Check(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	n := len(s.Rows)
	wl := TableColumn{Name: "workload", Str: make([]string, n)}
	dt := TableColumn{Name: "device_type", Str: make([]string, n)}
	dg := TableColumn{Name: "degree", Unit: datasets.UnitGPUs, Int: make([]int64, n)}
	for i, r := range s.Rows {
		wl.Str[i], dt.Str[i], dg.Int[i] = r.Workload, r.DeviceType, int64(r.Degree)
	}
	t := &Table{Name: TableName, Version: Version, Meta: s.Meta, Columns: []TableColumn{wl, dt, dg}}
	if len(s.Warnings) > 0 {
		if t.Meta == nil {
			t.Meta = map[string]string{}
		}
		t.Meta["coloc.warnings"] = strings.Join(s.Warnings, "\n")
	}
	for j, c := range s.Columns {
		tc := TableColumn{Name: c.Name, Unit: c.Unit, Meta: map[string]string{MetaGroup: string(c.Group)}}
		if c.Log {
			tc.Meta[MetaLog] = "true"
		}
		if c.Categorical() {
			tc.Meta[MetaKind] = "categorical"
			tc.Str, tc.Nullable = make([]string, n), true
			for i, r := range s.Rows {
				tc.Str[i] = c.Label(r.Values[j])
			}
		} else {
			tc.Float = make([]float64, n)
			for i, r := range s.Rows {
				tc.Float[i] = r.Values[j]
			}
		}
		t.Columns = append(t.Columns, tc)
	}
	return WriteTable(path, t)
}

// Read reads and checks a feature file.
func Read(path string) (*Set, error) {
	t, err := ReadTable(path, TableName, Version)
	if err != nil {
		return nil, err
	}
	if len(t.Columns) < 3 || t.Columns[0].Name != "workload" || t.Columns[1].Name != "device_type" || t.Columns[2].Name != "degree" ||
		t.Columns[0].Str == nil || t.Columns[1].Str == nil || t.Columns[2].Int == nil {
		return nil, fmt.Errorf("%s: a feature file starts with workload, device_type and degree columns", path)
	}
	s := &Set{Meta: t.Meta}
	if w := t.Meta["coloc.warnings"]; w != "" {
		s.Warnings = strings.Split(w, "\n")
		delete(s.Meta, "coloc.warnings")
	}
	n := len(t.Columns[0].Str)
	for i := 0; i < n; i++ {
		s.Rows = append(s.Rows, Row{Workload: t.Columns[0].Str[i], DeviceType: t.Columns[1].Str[i], Degree: int(t.Columns[2].Int[i])})
	}
	for _, tc := range t.Columns[3:] {
		c := Column{Name: tc.Name, Unit: tc.Unit, Group: Group(tc.Meta[MetaGroup]), Log: tc.Meta[MetaLog] == "true"}
		switch {
		case tc.Meta[MetaKind] == "categorical" && tc.Str != nil:
			set := map[string]bool{}
			for _, v := range tc.Str {
				if v != "" {
					set[v] = true
				}
			}
			c.Levels = sortedSet(set)
			for i := range s.Rows {
				s.Rows[i].Values = append(s.Rows[i].Values, levelIndex(c.Levels, tc.Str[i]))
			}
		case tc.Float != nil:
			for i := range s.Rows {
				s.Rows[i].Values = append(s.Rows[i].Values, tc.Float[i])
			}
		default:
			return nil, fmt.Errorf("%s: column %s: a feature is a float64 column or a categorical string column", path, tc.Name)
		}
		s.Columns = append(s.Columns, c)
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

func nan() float64 { return math.NaN() }
