package datasets

import (
	"fmt"
	"math"
)

// Merge combines tables of one kind into one. Columns are the union of the
// inputs' columns (a column missing from an input is null in its rows); a
// column must have the same type and unit in every input that has it. Rows
// are keyed by the table's key (see Spec.Key): a row equal to one already
// merged collapses into it; a row with the same key and other values is an
// error naming the key and both inputs. names labels the inputs in messages.
// Rows keep the order in which they first appear.
func Merge(tables []*Table, names []string) (*Table, error) {
	if len(tables) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	kind := tables[0].Kind
	spec, err := SpecFor(kind)
	if err != nil {
		return nil, err
	}
	out := &Table{Kind: kind}
	for i, t := range tables {
		if t.Kind != kind {
			return nil, fmt.Errorf("%s is table %s, %s is %s: merge takes tables of one kind", names[i], t.Kind, names[0], kind)
		}
		for k, v := range t.Meta {
			if out.Meta == nil {
				out.Meta = map[string]string{}
			}
			if old, ok := out.Meta[k]; ok && old != v {
				out.Meta[k] = old + "; " + v
			} else if !ok {
				out.Meta[k] = v
			}
		}
		for _, c := range t.Columns {
			oc := out.Column(c.Name)
			if oc == nil {
				out.AddColumn(c.Name, c.Type, c.Unit)
				continue
			}
			if oc.Type != c.Type || oc.Unit != c.Unit {
				return nil, fmt.Errorf("column %s is %s [%s] in %s but %s [%s] in an earlier input", c.Name, c.Type, c.Unit, names[i], oc.Type, oc.Unit)
			}
		}
	}
	type origin struct {
		input, row int
	}
	first := map[string]origin{}
	for ti, t := range tables {
		for r := 0; r < t.Len(); r++ {
			key := KeyOf(t, spec, r)
			if o, dup := first[key]; dup {
				if diff := rowDiff(tables[o.input], o.row, t, r, out); diff != "" {
					return nil, fmt.Errorf("conflicting rows for key (%s): %s row %d and %s row %d differ in %s", key, names[o.input], o.row+1, names[ti], r+1, diff)
				}
				continue
			}
			first[key] = origin{ti, r}
			for _, oc := range out.Columns {
				if c := t.Column(oc.Name); c != nil {
					oc.appendFrom(c, r)
				} else {
					oc.appendNull()
				}
			}
		}
	}
	if err := Validate(out, "merged"); err != nil {
		return nil, err
	}
	return out, nil
}

// rowDiff returns the name of the first column whose value differs between
// row i of a and row j of b ("" when the rows are equal); a column absent
// from one table counts as null there.
func rowDiff(a *Table, i int, b *Table, j int, layout *Table) string {
	for _, lc := range layout.Columns {
		ca, cb := a.Column(lc.Name), b.Column(lc.Name)
		na := ca == nil || ca.IsNull(i)
		nb := cb == nil || cb.IsNull(j)
		if na || nb {
			if na != nb {
				return lc.Name
			}
			continue
		}
		switch lc.Type {
		case String:
			if ca.Str[i] != cb.Str[j] {
				return lc.Name
			}
		case Float:
			if ca.Float[i] != cb.Float[j] && !(math.IsNaN(ca.Float[i]) && math.IsNaN(cb.Float[j])) {
				return lc.Name
			}
		default:
			if ca.Int[i] != cb.Int[j] {
				return lc.Name
			}
		}
	}
	return ""
}
