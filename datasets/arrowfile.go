package datasets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/internal/inputfile"
)

// BatchRows is the number of rows per Arrow record batch that Write uses.
const BatchRows = 64 * 1024

var timestampType = &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}

func arrowType(t Type) arrow.DataType {
	switch t {
	case String:
		return arrow.BinaryTypes.String
	case Int:
		return arrow.PrimitiveTypes.Int64
	case Float:
		return arrow.PrimitiveTypes.Float64
	default:
		return timestampType
	}
}

// ArrowSchema builds the Arrow schema of a table: its columns with their
// units as field metadata, and the table name and version as schema
// metadata. It is the schema Write gives the file; package
// datasets/export writes it into Parquet files too.
func ArrowSchema(t *Table) *arrow.Schema {
	fields := make([]arrow.Field, len(t.Columns))
	for i, c := range t.Columns {
		keys, vals := []string{MetaUnit}, []string{c.Unit}
		for _, k := range slices.Sorted(maps.Keys(c.Meta)) {
			if k != MetaUnit {
				keys, vals = append(keys, k), append(vals, c.Meta[k])
			}
		}
		fields[i] = arrow.Field{Name: c.Name, Type: arrowType(c.Type), Nullable: true, Metadata: arrow.NewMetadata(keys, vals)}
	}
	keys := []string{MetaTable, MetaVersion, MetaIntegrity}
	vals := []string{string(t.Kind), strconv.Itoa(t.version()), IntegrityChain}
	for _, k := range slices.Sorted(maps.Keys(t.Meta)) {
		if k == MetaTable || k == MetaVersion || k == MetaIntegrity {
			continue
		}
		keys = append(keys, k)
		vals = append(vals, t.Meta[k])
	}
	md := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(fields, &md)
}

// Writer streams the record batches of one table into an Arrow IPC file.
// The file is written under a temporary name in the target directory and
// renamed into place by Close, so a crash never leaves a partial file under
// the final name. A Writer is not safe for concurrent use.
type Writer struct {
	path, tmp string
	f         *os.File
	buf       *bufio.Writer // over f
	enc       *encoder      // into buf
	proto     *Table        // column layout every batch must match
	rows      int
	done      bool
	other     bool // a table of another kind (see WriteOther): structure checks only
}

// encoder lays out the Arrow IPC file of one table on an io.Writer: its
// record batches, each with its checksum (integrity.go), then the
// footer. The Writer gives it a temporary file; the fuzz targets a
// buffer.
type encoder struct {
	w      *ipc.FileWriter
	schema *arrow.Schema
	layout *Table // kind, version, metadata and columns, no rows
	sum    *chain // the checksums of the batches written
}

func newEncoder(out io.Writer, proto *Table) (*encoder, error) {
	schema := ArrowSchema(proto)
	w, err := ipc.NewFileWriter(out, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, err
	}
	layout := &Table{Kind: proto.Kind, Version: proto.Version, Meta: withoutIntegrity(proto.Meta)}
	for _, c := range proto.Columns {
		layout.Columns = append(layout.Columns, &Column{Name: c.Name, Type: c.Type, Unit: c.Unit, Meta: c.Meta})
	}
	return &encoder{w: w, schema: schema, layout: layout, sum: newChain(layout, strconv.Itoa(layout.version()))}, nil
}

// write writes rows [lo, hi) of t, in batches of at most BatchRows.
func (e *encoder) write(t *Table, lo, hi int) error {
	for ; lo < hi; lo += BatchRows {
		if err := e.writeBatch(t, lo, min(lo+BatchRows, hi)); err != nil {
			return err
		}
	}
	return nil
}

// writeBatch writes rows [lo, hi) of t as one record batch, with its
// checksum.
func (e *encoder) writeBatch(t *Table, lo, hi int) error {
	rec := withSum(ArrowRecord(e.schema, t, lo, hi), e.sum.next(t, lo, hi))
	defer rec.Release()
	return e.w.Write(rec)
}

// finish writes the footer. A table of no rows gets one empty batch
// first, which carries its layout's checksum.
func (e *encoder) finish() error {
	var err error
	if e.sum.batch == 0 {
		err = e.writeBatch(e.layout, 0, 0)
	}
	if cerr := e.w.Close(); err == nil {
		err = cerr
	}
	return err
}

// encode is the Arrow IPC file Write writes for t, in memory and without
// validating t.
func encode(t *Table) ([]byte, error) {
	var buf bytes.Buffer
	e, err := newEncoder(&buf, t)
	if err != nil {
		return nil, err
	}
	if err := e.write(t, 0, t.Len()); err != nil {
		return nil, err
	}
	if err := e.finish(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// NewWriter starts a table file at path whose columns (names, types, units)
// and metadata are those of proto; proto's rows are not written.
func NewWriter(path string, proto *Table) (*Writer, error) {
	if _, err := SpecFor(proto.Kind); err != nil {
		return nil, err
	}
	return newWriter(path, proto, false)
}

func newWriter(path string, proto *Table, other bool) (*Writer, error) {
	f, err := atomicfile.CreateTemp(path)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, atomicfile.Explain(err))
	}
	buf := bufio.NewWriterSize(f, 1<<20)
	enc, err := newEncoder(buf, proto)
	if err != nil {
		f.Close()
		atomicfile.Discard(f.Name())
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return &Writer{path: path, tmp: f.Name(), f: f, buf: buf, enc: enc, proto: enc.layout, other: other}, nil
}

// Write appends the rows of batch, whose columns must match the writer's
// layout, as one or more record batches. The batch is validated first; an
// invalid batch is refused and nothing of it is written.
func (w *Writer) Write(batch *Table) error { return w.write(batch, true) }

// write is Write; validate false skips the validation of a batch the
// caller has just validated.
func (w *Writer) write(batch *Table, validate bool) error {
	if w.done {
		return fmt.Errorf("writing %s: writer is closed", w.path)
	}
	if err := sameLayout(w.proto, batch); err != nil {
		return fmt.Errorf("writing %s: %w", w.path, err)
	}
	check := Validate
	if w.other {
		check = validateStructure
	}
	if validate {
		if err := check(batch, w.path); err != nil {
			return err
		}
	}
	if err := w.enc.write(batch, 0, batch.Len()); err != nil {
		return fmt.Errorf("writing %s: %w", w.path, err)
	}
	w.rows += batch.Len()
	return nil
}

// withSum returns rec with the checksum sum as its metadata, releasing
// rec.
func withSum(rec arrow.RecordBatch, sum string) arrow.RecordBatch {
	out := array.NewRecordBatchWithMetadata(rec.Schema(), rec.Columns(), rec.NumRows(), arrow.NewMetadata([]string{MetaBatchSum}, []string{sum}))
	rec.Release()
	return out
}

// withoutIntegrity is m without the integrity marker, which the writer
// sets itself.
func withoutIntegrity(m map[string]string) map[string]string {
	if _, ok := m[MetaIntegrity]; !ok {
		return m
	}
	out := maps.Clone(m)
	delete(out, MetaIntegrity)
	return out
}

// Close finishes the file and renames it into place.
func (w *Writer) Close() error {
	if w.done {
		return nil
	}
	w.done = true
	err := w.enc.finish()
	if err == nil {
		err = w.buf.Flush()
	}
	if err == nil {
		err = atomicfile.Commit(w.f, w.path)
	}
	if err != nil {
		w.f.Close()
		atomicfile.Discard(w.tmp)
		return fmt.Errorf("writing %s: %w", w.path, atomicfile.Explain(err))
	}
	return nil
}

// Abort discards the file; the final path is left untouched.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.enc.w.Close()
	w.f.Close()
	atomicfile.Discard(w.tmp)
}

func sameLayout(want, got *Table) error {
	if want.Kind != got.Kind {
		return fmt.Errorf("batch is table %s, file is %s", got.Kind, want.Kind)
	}
	if len(want.Columns) != len(got.Columns) {
		return fmt.Errorf("batch has %d columns, file has %d", len(got.Columns), len(want.Columns))
	}
	for i, c := range want.Columns {
		g := got.Columns[i]
		if g.Name != c.Name || g.Type != c.Type || g.Unit != c.Unit {
			return fmt.Errorf("batch column %d is %s %s [%s], file has %s %s [%s]", i+1, g.Name, g.Type, g.Unit, c.Name, c.Type, c.Unit)
		}
	}
	return nil
}

// ArrowRecord makes the record batch of rows [lo, hi) of t with schema
// (from ArrowSchema); the caller releases it. The numeric
// and time columns are not copied: their arrays are views of the table's
// slices (valid while t is unchanged; the IPC writer copies them out before
// Write returns). A string column's offsets and bytes are laid out in one
// pass into buffers of their final size, and a validity bitmap is made
// only for a range that holds a null. The arrays are those the Arrow
// builders would make from the same rows, and the file bytes the same
// (a test writes both ways).
func ArrowRecord(schema *arrow.Schema, t *Table, lo, hi int) arrow.RecordBatch {
	n := hi - lo
	cols := make([]arrow.Array, len(t.Columns))
	for j, c := range t.Columns {
		bitmap, nulls := validityBitmap(c, lo, hi)
		var bufs []*memory.Buffer
		switch c.Type {
		case String:
			offsets, data := stringBuffers(c.Str[lo:hi])
			bufs = []*memory.Buffer{bitmap, offsets, data}
		case Float:
			bufs = []*memory.Buffer{bitmap, memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(c.Float[lo:hi]))}
		default: // Int, Time: both int64 values
			bufs = []*memory.Buffer{bitmap, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(c.Int[lo:hi]))}
		}
		data := array.NewData(schema.Field(j).Type, n, bufs, nil, nulls, 0)
		cols[j] = array.MakeFromData(data)
		data.Release()
	}
	rec := array.NewRecordBatch(schema, cols, int64(n))
	for _, a := range cols {
		a.Release()
	}
	return rec
}

// validityBitmap returns the Arrow validity bitmap of rows [lo, hi) of c
// (bit set: a value) and the number of nulls; nil when there is none.
func validityBitmap(c *Column, lo, hi int) (*memory.Buffer, int) {
	if c.Null == nil {
		return nil, 0
	}
	nulls := 0
	for _, null := range c.Null[lo:hi] {
		if null {
			nulls++
		}
	}
	if nulls == 0 {
		return nil, 0
	}
	// The length the IPC writer records for a builder's bitmap: the
	// builder's (one bit per row of its capacity: the next power of two,
	// and at least 32 in the numeric builders) cut to the bytes of the
	// rows padded to 64, the writer's alignment.
	n := int64(hi - lo)
	capacity := bitutil.NextPowerOf2(int(n))
	if c.Type != String {
		capacity = max(capacity, 32)
	}
	size := min(bitutil.CeilByte(capacity)/8, int((bitutil.BytesForBits(n)+63)&^63))
	bits := make([]byte, size)
	for i, null := range c.Null[lo:hi] {
		if !null {
			bitutil.SetBit(bits, i)
		}
	}
	return memory.NewBufferBytes(bits), nulls
}

// stringBuffers lays out Arrow string values: n+1 int32 offsets and the
// bytes of every value (a null's value too, as the builders do).
func stringBuffers(vals []string) (offsets, data *memory.Buffer) {
	size := 0
	for _, v := range vals {
		size += len(v)
	}
	off := make([]int32, len(vals)+1)
	b := make([]byte, 0, size)
	for i, v := range vals {
		b = append(b, v...)
		off[i+1] = int32(len(b))
	}
	return memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(off)), memory.NewBufferBytes(b)
}

// Write validates t and writes it to path atomically.
func Write(path string, t *Table) error {
	if err := Validate(t, path); err != nil {
		return err
	}
	w, err := NewWriter(path, t)
	if err != nil {
		return err
	}
	if err := w.write(t, false); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// Read reads and validates a table file. Every problem found is reported in
// a *ValidationError naming the file, row and column; a file of another
// schema version fails with an error wrapping ErrVersion.
func Read(path string) (*Table, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadFrom(f, path)
}

// ReadFrom reads and validates a table from r; name is used in messages.
func ReadFrom(r io.ReaderAt, name string) (*Table, error) {
	t, err := decode(r, name, datasetKind)
	if err != nil {
		return nil, err
	}
	if err := Validate(t, name); err != nil {
		return nil, err
	}
	return t, nil
}

// decode reads an Arrow IPC file into a Table without validating values,
// verifying its checksums when it carries them (integrity.go).
//
// Malformed input must not crash the process, nor reach the user as a Go
// runtime message: verifyIPC checks every offset and buffer before the
// Arrow library sees the file, and should the library still panic, the
// panic becomes an error naming the table, the batch and the column being
// read.
func decode(r io.ReaderAt, name string, want kindCheck) (t *Table, err error) {
	var file *ipcFile
	batch, col := -1, -1
	defer func() {
		if p := recover(); p != nil {
			where := "the file"
			if file != nil && batch >= 0 {
				where = file.where(batch, col)
			}
			t, err = nil, fmt.Errorf("%s: corrupt Arrow file: %s cannot be read", name, where)
		}
	}()
	size, err := readerSize(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	file, err = verifyIPC(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Arrow IPC file: %w", name, err)
	}
	fr, err := ipc.NewFileReader(io.NewSectionReader(r, 0, size), ipc.WithAllocator(memory.DefaultAllocator), ipc.WithEnsureNativeEndian(true))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Arrow IPC file (truncated or another format): %w", name, libraryError(err))
	}
	defer fr.Close()
	t, sum, err := tableFromSchema(fr.Schema(), name, want)
	if err != nil {
		return nil, err
	}
	if sum != nil {
		if err := checkWhole(r, size, file, fr.Schema()); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	// Read every batch first so that the columns are allocated once, at
	// their final length, instead of growing batch by batch.
	recs := make([]arrow.RecordBatch, 0, fr.NumRecords())
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	rows := 0
	for batch = 0; batch < fr.NumRecords(); batch++ {
		rec, err := fr.RecordBatchAt(batch)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, file.where(batch, -1), libraryError(err))
		}
		recs = append(recs, rec)
		rows += int(rec.NumRows())
	}
	for _, c := range t.Columns {
		switch c.Type {
		case String:
			c.Str = make([]string, 0, rows)
		case Float:
			c.Float = make([]float64, 0, rows)
		default:
			c.Int = make([]int64, 0, rows)
		}
	}
	for batch = range recs {
		base := t.Len()
		if err := appendRecord(t, recs[batch], name, rows, &col); err != nil {
			return nil, err
		}
		if err := sum.check(recs[batch], t, base, name, file.where(batch, -1)); err != nil {
			return nil, err
		}
	}
	t.verified = sum != nil
	return t, nil
}

// checkWhole checks what the checksums do not cover in a file that has
// them: the file holds nothing but its schema, batches and footer, and
// the schema at its start (which stream readers read) is the footer's.
func checkWhole(r io.ReaderAt, size int64, file *ipcFile, footer *arrow.Schema) error {
	if err := file.exactLayout(r); err != nil {
		return err
	}
	if err := verifyStartSchema(r, file.schemaEnd); err != nil {
		return fmt.Errorf("the schema at the start of the file: %w", err)
	}
	sr, err := ipc.NewReader(io.NewSectionReader(r, 8, size-8), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return fmt.Errorf("the schema at the start of the file: %w", libraryError(err))
	}
	defer sr.Release()
	if !sameSchema(sr.Schema(), footer) {
		return errors.New("the schema at the start of the file differs from the footer's: the file changed after it was written")
	}
	return nil
}

// sameSchema compares two schemas field by field, metadata included.
func sameSchema(a, b *arrow.Schema) bool {
	if a.NumFields() != b.NumFields() || a.Metadata().String() != b.Metadata().String() {
		return false
	}
	for i := range a.NumFields() {
		fa, fb := a.Field(i), b.Field(i)
		if fa.Name != fb.Name || !arrow.TypeEqual(fa.Type, fb.Type) || fa.Metadata.String() != fb.Metadata.String() {
			return false
		}
	}
	return true
}

// libraryError is an error of the Arrow library as a message for people:
// a Go runtime error it recovered from says nothing they can act on.
func libraryError(err error) error {
	if strings.Contains(err.Error(), "runtime error") {
		return errors.New("its buffers do not describe its columns")
	}
	return err
}

func readerSize(r io.ReaderAt) (int64, error) {
	switch v := r.(type) {
	case *os.File:
		st, err := v.Stat()
		if err != nil {
			return 0, err
		}
		return st.Size(), nil
	case interface{ Size() int64 }:
		return v.Size(), nil
	}
	return 0, errors.New("reader has no size")
}

// kindCheck checks the table kind a file names and returns the schema
// version this build reads for it.
type kindCheck func(kind string) (Kind, int, error)

// datasetKind accepts the five dataset tables, at KindVersion.
func datasetKind(kind string) (Kind, int, error) {
	k, err := ParseKind(kind)
	return k, KindVersion(k), err
}

// tableFromSchema checks the schema metadata (table kind and version) and
// returns an empty table with the file's columns, and the checksum chain
// its batches must follow (nil for a file written without checksums).
func tableFromSchema(s *arrow.Schema, name string, want kindCheck) (*Table, *chain, error) {
	md := s.Metadata()
	kind, ok := md.GetValue(MetaTable)
	if !ok {
		return nil, nil, fmt.Errorf("%s: not a coloc table: schema metadata has no %q", name, MetaTable)
	}
	k, version, err := want(kind)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	vs, ok := md.GetValue(MetaVersion)
	if !ok {
		return nil, nil, fmt.Errorf("%s: table %s has no %q in its schema metadata", name, k, MetaVersion)
	}
	if v, err := strconv.Atoi(vs); err != nil || (v != version && !(version == KindVersion(k) && readsOlder(k, v))) {
		return nil, nil, fmt.Errorf("%s: table %s has schema version %q; this coloc reads version %d: %w", name, k, vs, version, ErrVersion)
	}
	t := &Table{Kind: k}
	if version != KindVersion(k) {
		t.Version = version
	}
	for i, key := range md.Keys() {
		if key == MetaTable || key == MetaVersion {
			continue
		}
		if t.Meta == nil {
			t.Meta = map[string]string{}
		}
		t.Meta[key] = md.Values()[i]
	}
	ps := &problems{file: name}
	for _, f := range s.Fields() {
		var typ Type
		switch f.Type.ID() {
		case arrow.STRING, arrow.LARGE_STRING:
			typ = String
		case arrow.INT64, arrow.INT32, arrow.INT16, arrow.INT8, arrow.UINT32, arrow.UINT16, arrow.UINT8:
			typ = Int
		case arrow.FLOAT64, arrow.FLOAT32:
			typ = Float
		case arrow.TIMESTAMP:
			typ = Time
		default:
			ps.add(0, f.Name, "unsupported Arrow type %s", f.Type)
			continue
		}
		c := &Column{Name: f.Name, Type: typ}
		for i, key := range f.Metadata.Keys() {
			if key == MetaUnit {
				c.Unit = f.Metadata.Values()[i]
				continue
			}
			if c.Meta == nil {
				c.Meta = map[string]string{}
			}
			c.Meta[key] = f.Metadata.Values()[i]
		}
		t.Columns = append(t.Columns, c)
	}
	if err := ps.err(); err != nil {
		return nil, nil, err
	}
	var sum *chain
	switch scheme, ok := md.GetValue(MetaIntegrity); {
	case !ok:
	case scheme == IntegrityChain:
		delete(t.Meta, MetaIntegrity)
		if len(t.Meta) == 0 {
			t.Meta = nil
		}
		sum = newChain(t, vs)
	default:
		return nil, nil, fmt.Errorf("%s: table %s: checksums of scheme %q, this coloc verifies %q (written by a newer coloc?)", name, k, scheme, IntegrityChain)
	}
	return t, sum, nil
}

// appendRecord appends the rows of rec to t's columns; rows is the table's
// final length (the capacity a null mask is given). *col is set to the
// column being read, for the message of a panic.
func appendRecord(t *Table, rec arrow.RecordBatch, name string, rows int, col *int) error {
	if int(rec.NumCols()) != len(t.Columns) {
		return fmt.Errorf("%s: record batch has %d columns, schema has %d", name, rec.NumCols(), len(t.Columns))
	}
	n := int(rec.NumRows())
	for j, c := range t.Columns {
		*col = j
		arr := rec.Column(j)
		if arr.Len() != n {
			return fmt.Errorf("%s: column %s has %d values in a batch of %d rows", name, c.Name, arr.Len(), n)
		}
		base := c.Len()
		if arr.NullN() > 0 && c.Null == nil {
			c.Null = make([]bool, base, max(rows, base+n))
		}
		switch a := arr.(type) {
		case *array.String:
			for i := 0; i < n; i++ {
				c.Str = append(c.Str, a.Value(i))
			}
		case *array.LargeString:
			for i := 0; i < n; i++ {
				c.Str = append(c.Str, a.Value(i))
			}
		case *array.Int64:
			c.Int = append(c.Int, a.Int64Values()...)
		case *array.Int32:
			for _, v := range a.Int32Values() {
				c.Int = append(c.Int, int64(v))
			}
		case *array.Int16:
			for _, v := range a.Int16Values() {
				c.Int = append(c.Int, int64(v))
			}
		case *array.Int8:
			for _, v := range a.Int8Values() {
				c.Int = append(c.Int, int64(v))
			}
		case *array.Uint32:
			for _, v := range a.Uint32Values() {
				c.Int = append(c.Int, int64(v))
			}
		case *array.Uint16:
			for _, v := range a.Uint16Values() {
				c.Int = append(c.Int, int64(v))
			}
		case *array.Uint8:
			for _, v := range a.Uint8Values() {
				c.Int = append(c.Int, int64(v))
			}
		case *array.Float64:
			c.Float = append(c.Float, a.Float64Values()...)
		case *array.Float32:
			for _, v := range a.Float32Values() {
				c.Float = append(c.Float, float64(v))
			}
		case *array.Timestamp:
			mult, err := toNanos(a.DataType().(*arrow.TimestampType).Unit)
			if err != nil {
				return fmt.Errorf("%s: column %s: %w", name, c.Name, err)
			}
			for _, v := range a.TimestampValues() {
				c.Int = append(c.Int, int64(v)*mult)
			}
		default:
			return fmt.Errorf("%s: column %s: unsupported Arrow array %s", name, c.Name, arr.DataType())
		}
		if c.Null != nil {
			if arr.NullN() == 0 {
				c.Null = append(c.Null, make([]bool, n)...)
			} else {
				for i := 0; i < n; i++ {
					c.Null = append(c.Null, arr.IsNull(i))
				}
			}
		}
		if c.Type == Float && arr.NullN() > 0 {
			for i := base; i < base+n; i++ {
				if c.Null[i] {
					c.Float[i] = nanValue
				}
			}
		}
	}
	*col = -1
	return nil
}

func toNanos(u arrow.TimeUnit) (int64, error) {
	switch u {
	case arrow.Second:
		return 1e9, nil
	case arrow.Millisecond:
		return 1e6, nil
	case arrow.Microsecond:
		return 1e3, nil
	case arrow.Nanosecond:
		return 1, nil
	}
	return 0, fmt.Errorf("unknown timestamp unit %v", u)
}
