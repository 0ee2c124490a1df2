package datasets

import (
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/coloc-dev/coloc/internal/inputfile"
)

// Scanner reads a table file one record batch at a time, in the manner of
// bufio.Scanner, for inputs too large to hold at once (a campaign's
// samples):
//
//	sc, err := datasets.NewScanner(path)
//	...
//	defer sc.Close()
//	for sc.Scan() {
//		batch := sc.Batch() // valid until the next Scan
//	}
//	if err := sc.Err(); err != nil { ... }
//
// Each batch is validated on its own, and the time order of samples is
// checked across batches; key uniqueness across batches is not checked
// (Read checks it for the whole file).
type Scanner struct {
	name  string
	f     *os.File
	fr    *ipc.FileReader
	proto *Table
	file  *ipcFile
	sum   *chain // the file's checksums, nil when it has none
	next  int
	batch *Table
	last  map[seriesKey]int64
	err   error
}

type seriesKey struct {
	run, wl string
	dev     int64
}

// NewScanner opens a table file for scanning.
func NewScanner(path string) (*Scanner, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	sc := &Scanner{name: path, f: f, last: map[seriesKey]int64{}}
	if err := sc.open(); err != nil {
		f.Close()
		return nil, err
	}
	return sc, nil
}

func (sc *Scanner) open() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: corrupt Arrow file: %v", sc.name, p)
		}
	}()
	st, err := sc.f.Stat()
	if err != nil {
		return err
	}
	if sc.file, err = verifyIPC(sc.f, st.Size()); err != nil {
		return fmt.Errorf("%s: not a readable Arrow IPC file: %w", sc.name, err)
	}
	fr, err := ipc.NewFileReader(sc.f, ipc.WithAllocator(memory.DefaultAllocator), ipc.WithEnsureNativeEndian(true))
	if err != nil {
		return fmt.Errorf("%s: not a readable Arrow IPC file (truncated or another format): %w", sc.name, libraryError(err))
	}
	sc.fr = fr
	if sc.proto, sc.sum, err = tableFromSchema(fr.Schema(), sc.name, datasetKind); err != nil {
		return err
	}
	if sc.sum != nil {
		if err := checkWhole(sc.f, st.Size(), sc.file, fr.Schema()); err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
	}
	return nil
}

// Kind returns the table kind of the file.
func (sc *Scanner) Kind() Kind { return sc.proto.Kind }

// Columns returns the file's columns (name, type, unit) without values,
// known before the first Scan. The scanner owns them.
func (sc *Scanner) Columns() []*Column { return sc.proto.Columns }

// Scan reads the next record batch; false at the end or on error.
func (sc *Scanner) Scan() bool {
	if sc.err != nil || sc.next >= sc.fr.NumRecords() {
		return false
	}
	sc.err = sc.read()
	sc.next++
	return sc.err == nil
}

func (sc *Scanner) read() (err error) {
	col := -1
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: corrupt Arrow file: %s cannot be read", sc.name, sc.file.where(sc.next, col))
		}
	}()
	rec, err := sc.fr.RecordBatchAt(sc.next)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", sc.name, sc.file.where(sc.next, -1), libraryError(err))
	}
	defer rec.Release()
	t := &Table{Kind: sc.proto.Kind, Meta: sc.proto.Meta}
	for _, c := range sc.proto.Columns {
		t.Columns = append(t.Columns, &Column{Name: c.Name, Type: c.Type, Unit: c.Unit})
	}
	if err := appendRecord(t, rec, sc.name, 0, &col); err != nil {
		return err
	}
	if err := sc.sum.check(rec, t, 0, sc.name, sc.file.where(sc.next, -1)); err != nil {
		return err
	}
	if err := Validate(t, fmt.Sprintf("%s (batch %d)", sc.name, sc.next)); err != nil {
		return err
	}
	if t.Kind == KindSamples {
		if err := sc.checkOrder(t); err != nil {
			return err
		}
	}
	sc.batch = t
	return nil
}

func (sc *Scanner) checkOrder(t *Table) error {
	run, dev, ts, wl := t.Column("run_id"), t.Column("device"), t.Column("timestamp"), t.Column("workload")
	for i := 0; i < t.Len(); i++ {
		k := seriesKey{run: run.Str[i], dev: dev.Int[i]}
		if wl != nil && !wl.IsNull(i) {
			k.wl = wl.Str[i]
		}
		if prev, ok := sc.last[k]; ok && ts.Int[i] < prev {
			return &ValidationError{File: sc.name, Problems: []Problem{{File: sc.name, Column: "timestamp",
				Msg: fmt.Sprintf("batch %d row %d goes back in time within run %s", sc.next, i+1, k.run)}}}
		}
		sc.last[k] = ts.Int[i]
	}
	return nil
}

// Batch returns the batch read by the last successful Scan. The scanner
// owns it; it is replaced by the next Scan.
func (sc *Scanner) Batch() *Table { return sc.batch }

// Err returns the first error met, nil at a clean end.
func (sc *Scanner) Err() error { return sc.err }

// Close releases the file.
func (sc *Scanner) Close() error {
	if sc.fr != nil {
		sc.fr.Close()
	}
	return sc.f.Close()
}
