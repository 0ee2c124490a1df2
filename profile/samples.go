package profile

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/coloc-dev/coloc/datasets"
)

// gatherSamples concatenates the sample files of the finished runs, in plan
// order, into one samples table. A counter missing from a run's file is null
// in its rows. It returns nil when no run has samples.
func gatherSamples(dir string, plan *Plan, recs map[string]*RunRecord) (*datasets.Table, error) {
	var out *datasets.Table
	for _, pr := range plan.Runs {
		r := recs[pr.ID]
		if r == nil || r.Samples == "" {
			continue
		}
		path := filepath.Join(dir, r.Samples)
		t, err := datasets.Read(path)
		if err != nil {
			return nil, fmt.Errorf("samples of run %s: %w", r.RunID, err)
		}
		if t.Kind != datasets.KindSamples {
			return nil, fmt.Errorf("%s: holds table %s, want samples", path, t.Kind)
		}
		if out == nil {
			out = datasets.NewTable(datasets.KindSamples)
		}
		if err := appendRows(out, t); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return out, nil
}

// appendRows appends the rows of src to dst, adding the columns dst lacks
// (null in its earlier rows). Columns of one name must agree in type and
// unit.
func appendRows(dst, src *datasets.Table) error {
	before := dst.Len()
	for _, sc := range src.Columns {
		dc := dst.Column(sc.Name)
		if dc == nil {
			dc = dst.AddColumn(sc.Name, sc.Type, sc.Unit)
			for i := 0; i < before; i++ {
				appendNull(dc)
			}
		}
		if dc.Type != sc.Type || dc.Unit != sc.Unit {
			return fmt.Errorf("column %s is %s [%s] here, %s [%s] in earlier runs", sc.Name, sc.Type, sc.Unit, dc.Type, dc.Unit)
		}
		for i := 0; i < sc.Len(); i++ {
			switch sc.Type {
			case datasets.String:
				dc.AppendString(sc.StringAt(i), sc.IsNull(i))
			case datasets.Float:
				dc.AppendFloat(sc.FloatAt(i))
			default:
				dc.AppendInt(sc.Int[i], sc.IsNull(i))
			}
		}
	}
	n := src.Len()
	for _, dc := range dst.Columns {
		if src.Column(dc.Name) == nil {
			for i := 0; i < n; i++ {
				appendNull(dc)
			}
		}
	}
	return nil
}

func appendNull(c *datasets.Column) {
	switch c.Type {
	case datasets.String:
		c.AppendString("", true)
	case datasets.Float:
		c.AppendFloat(math.NaN())
	default:
		c.AppendInt(0, true)
	}
}
