// Package export writes a dataset table in formats other tools read: CSV
// (the datasets package's own CSV form, which 'coloc datasets import csv'
// reads back unchanged) and Parquet.
//
// It is apart from package datasets because Parquet's library is large:
// its writer brings in the Arrow Flight and gRPC code, about 40 MB of
// every binary that links it. Every stage above datasets reads tables and
// none writes Parquet, so only the coloc binary, which wires this package
// to 'coloc datasets export', carries that code, and each package's test
// binary links in about a quarter of the time it took when datasets held
// the Parquet writer.
//
// Its tests live with the datasets tests (datasets/parquet_test.go, an
// external test package there), which hold the reference tables and the
// interop harness they use.
package export

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/internal/atomicfile"
)

// Export formats.
const (
	CSV     = "csv"
	Parquet = "parquet"
)

// Formats lists the formats Write takes.
var Formats = []string{CSV, Parquet}

// WriteParquet writes a table as Parquet (zstd-compressed), keeping the
// Arrow schema with its table, version and unit metadata in the file so
// Arrow-aware readers recover the units.
func WriteParquet(w io.Writer, t *datasets.Table) error {
	schema := datasets.ArrowSchema(t)
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd))
	fw, err := pqarrow.NewFileWriter(schema, w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return err
	}
	for lo := 0; lo < t.Len(); lo += datasets.BatchRows {
		rec := datasets.ArrowRecord(schema, t, lo, min(lo+datasets.BatchRows, t.Len()))
		err := fw.Write(rec)
		rec.Release()
		if err != nil {
			fw.Close()
			return err
		}
	}
	return fw.Close()
}

// Write writes t to path in the given format, atomically.
func Write(path, format string, t *datasets.Table) error {
	var fn func(io.Writer, *datasets.Table) error
	switch format {
	case CSV:
		fn = datasets.WriteCSV
	case Parquet:
		fn = WriteParquet
	default:
		return fmt.Errorf("unknown export format %q (want %s or %s)", format, CSV, Parquet)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return fn(w, t) })
}
