package datasets

import (
	"fmt"
	"math"
	"strings"

	"github.com/coloc-dev/coloc/internal/inputfile"
)

// Tables of other kinds. Besides the five dataset tables, coloc keeps a few
// versioned tables of its own (feature sets, evaluation results, Nsight
// Compute kernels). They share this package's file machinery: atomic
// writes, verified reads (see ipcverify.go), the kind and version in the
// schema metadata, units and other field metadata per column. What their
// values mean is checked by the package that owns them; here only their
// structure is (column lengths, unique names, no NaN stored as a value).

// WriteOther writes t, a table of a kind that is not a dataset table, at
// schema version t.Version (which must be positive), atomically.
func WriteOther(path string, t *Table) error {
	if _, err := SpecFor(t.Kind); err == nil {
		return fmt.Errorf("writing %s: %s is a dataset table: use Write", path, t.Kind)
	}
	if t.Kind == "" || t.Version <= 0 {
		return fmt.Errorf("writing %s: a table needs a kind and a positive version (got %q, %d)", path, t.Kind, t.Version)
	}
	if err := validateStructure(t, path); err != nil {
		return err
	}
	w, err := newWriter(path, t, true)
	if err != nil {
		return err
	}
	if err := w.write(t, false); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// ReadOther reads a table of kind k that this build reads at version;
// another kind or version is refused by name (ErrVersion for a version).
func ReadOther(path string, k Kind, version int) (*Table, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := decode(f, path, func(kind string) (Kind, int, error) {
		if kind != string(k) {
			return "", 0, fmt.Errorf("holds table %q, want %q", kind, k)
		}
		return k, version, nil
	})
	if err != nil {
		return nil, err
	}
	t.Version = version
	if err := validateStructure(t, path); err != nil {
		return nil, err
	}
	return t, nil
}

// OtherKind describes a table kind that is not a dataset table to ReadAny:
// its name, the version this build reads, and the owner's check of its
// values (features.Read for a feature file, for instance), which this
// package cannot know.
type OtherKind struct {
	Kind    Kind
	Version int
	// Check reads the file at path as its owner does and returns the
	// owner's error; nil means the file is valid.
	Check func(path string) error
}

// ReadAny reads a table file of any kind coloc writes: a dataset table,
// read and validated as Read does, or a table of one of the other kinds
// given, whose structure is validated here and whose values are checked by
// the kind's Check. An unknown kind, or a version of a kind this build does
// not read, is refused by name. It is how the datasets commands (inspect,
// validate, export) read feature and evaluation files too.
func ReadAny(path string, others ...OtherKind) (*Table, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var other *OtherKind
	t, err := decode(f, path, func(kind string) (Kind, int, error) {
		if _, err := ParseKind(kind); err == nil {
			return datasetKind(kind) // the version of its kind (runs has its own)
		}
		names := []string{kindList()}
		for i := range others {
			if string(others[i].Kind) == kind {
				other = &others[i]
				return other.Kind, other.Version, nil
			}
			names = append(names, string(others[i].Kind))
		}
		return "", 0, fmt.Errorf("unknown table %q (want one of %s)", kind, strings.Join(names, ", "))
	})
	if err != nil {
		return nil, err
	}
	if other == nil {
		if err := Validate(t, path); err != nil {
			return nil, err
		}
		return t, nil
	}
	t.Version = other.Version
	if err := validateStructure(t, path); err != nil {
		return nil, err
	}
	if other.Check != nil {
		if err := other.Check(path); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// validateStructure checks what every table must satisfy whatever its
// kind: unique column names, one value (and null flag) per row in every
// column, no NaN or infinity stored as a value.
func validateStructure(t *Table, file string) error {
	ps := &problems{file: file}
	n := t.Len()
	seen := map[string]bool{}
	for _, c := range t.Columns {
		switch {
		case !isName(c.Name):
			ps.add(0, clip(c.Name), "a column's name is text of at most %d bytes without control characters", MaxNameBytes)
		case seen[c.Name]:
			ps.add(0, c.Name, "duplicate column")
		case c.Len() != n:
			ps.add(0, c.Name, "has %d values, table has %d rows", c.Len(), n)
		case c.Null != nil && len(c.Null) != n:
			ps.add(0, c.Name, "null mask has %d entries, table has %d rows", len(c.Null), n)
		case c.Type == Float:
			for i, v := range c.Float {
				if !c.IsNull(i) && (math.IsNaN(v) || math.IsInf(v, 0)) {
					ps.add(i+1, c.Name, "%v stored as a value (write null for a missing value)", v)
				}
			}
		}
		seen[c.Name] = true
	}
	return ps.err()
}
