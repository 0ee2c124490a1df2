package datasets

import (
	"encoding/csv"
	"io"
)

// WriteCSV writes a table as CSV. Header fields carry units as
// "name [unit]", nulls are empty fields, times are RFC 3339 in UTC, floats
// are written in the shortest form that reads back exactly: ImportCSV reads
// the file back into an equal table.
func WriteCSV(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	hdr := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		hdr[i] = FormatHeader(c.Name, c.Unit)
	}
	if err := cw.Write(hdr); err != nil {
		return err
	}
	rec := make([]string, len(t.Columns))
	for r := 0; r < t.Len(); r++ {
		for i, c := range t.Columns {
			rec[i] = c.Format(r)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
