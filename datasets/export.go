package datasets

import (
	"encoding/csv"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/coloc-dev/coloc/internal/atomicfile"
)

// Export formats.
const (
	FormatCSV     = "csv"
	FormatParquet = "parquet"
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

// WriteParquet writes a table as Parquet (zstd-compressed), keeping the
// Arrow schema with its table, version and unit metadata in the file so
// Arrow-aware readers recover the units.
func WriteParquet(w io.Writer, t *Table) error {
	schema := arrowSchema(t)
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd))
	fw, err := pqarrow.NewFileWriter(schema, w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return err
	}
	for lo := 0; lo < t.Len(); lo += BatchRows {
		rec := buildRecord(schema, t, lo, min(lo+BatchRows, t.Len()))
		err := fw.Write(rec)
		rec.Release()
		if err != nil {
			fw.Close()
			return err
		}
	}
	return fw.Close()
}

// Export writes t to path in the given format, atomically.
func Export(path, format string, t *Table) error {
	var fn func(io.Writer, *Table) error
	switch format {
	case FormatCSV:
		fn = WriteCSV
	case FormatParquet:
		fn = WriteParquet
	default:
		return fmt.Errorf("unknown export format %q (want %s or %s)", format, FormatCSV, FormatParquet)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return fn(w, t) })
}
