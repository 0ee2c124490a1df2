package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// The Arrow library trusts the flatbuffer metadata of an IPC file: a
// corrupt length makes it allocate whatever the file claims (a fuzzer found
// a 150 GB allocation in a few seconds). verifyIPC walks the footer, the
// schema and every record batch header of a file before the library sees
// it and checks that every offset, vector and buffer lies inside the file,
// that only the column types coloc reads appear, and that row counts are
// bounded by the bytes that would hold them. It accepts exactly what a
// well-formed uncompressed Arrow IPC file of flat columns is.

const ipcMagic = "ARROW1"

// Arrow's Type union tags that the reader accepts (Schema.fbs).
var ipcTypes = map[byte]string{2: "Int", 3: "FloatingPoint", 5: "Utf8", 10: "Timestamp", 20: "LargeUtf8"}

type fbuf []byte

var errFB = errors.New("flatbuffer offset out of bounds")

func (b fbuf) u16(pos int) (int, error) {
	if pos < 0 || pos+2 > len(b) {
		return 0, errFB
	}
	return int(binary.LittleEndian.Uint16(b[pos:])), nil
}

func (b fbuf) u32(pos int) (int64, error) {
	if pos < 0 || pos+4 > len(b) {
		return 0, errFB
	}
	return int64(binary.LittleEndian.Uint32(b[pos:])), nil
}

func (b fbuf) i64(pos int) (int64, error) {
	if pos < 0 || pos+8 > len(b) {
		return 0, errFB
	}
	return int64(binary.LittleEndian.Uint64(b[pos:])), nil
}

// fbTable is a verified flatbuffer table: its position and its vtable.
type fbTable struct {
	b       fbuf
	pos, vt int
	vtSize  int
	tblSize int
}

func (b fbuf) table(pos int) (fbTable, error) {
	so, err := b.u32(pos)
	if err != nil {
		return fbTable{}, err
	}
	vt := pos - int(int32(uint32(so)))
	vtSize, err := b.u16(vt)
	if err != nil {
		return fbTable{}, err
	}
	tblSize, err := b.u16(vt + 2)
	if err != nil {
		return fbTable{}, err
	}
	if vtSize < 4 || vtSize%2 != 0 || vt+vtSize > len(b) || tblSize < 4 || pos+tblSize > len(b) {
		return fbTable{}, errFB
	}
	return fbTable{b: b, pos: pos, vt: vt, vtSize: vtSize, tblSize: tblSize}, nil
}

// field returns the position of field i and whether it is present; size is
// the bytes the field's value occupies inline.
func (t fbTable) field(i, size int) (int, bool, error) {
	if 4+2*i+2 > t.vtSize {
		return 0, false, nil
	}
	off, err := t.b.u16(t.vt + 4 + 2*i)
	if err != nil || off == 0 {
		return 0, false, err
	}
	if off+size > t.tblSize {
		return 0, false, errFB
	}
	return t.pos + off, true, nil
}

// ref follows the offset stored in field i (a table, vector or string).
func (t fbTable) ref(i int) (int, bool, error) {
	pos, ok, err := t.field(i, 4)
	if !ok || err != nil {
		return 0, ok, err
	}
	off, err := t.b.u32(pos)
	if err != nil {
		return 0, false, err
	}
	target := pos + int(off)
	if target >= len(t.b) {
		return 0, false, errFB
	}
	return target, true, nil
}

// vector checks the vector at pos with elements of elem bytes and returns
// where its elements start and how many there are.
func (b fbuf) vector(pos, elem int) (int, int, error) {
	n, err := b.u32(pos)
	if err != nil {
		return 0, 0, err
	}
	start := pos + 4
	if n > int64(len(b)) || int64(start)+n*int64(elem) > int64(len(b)) {
		return 0, 0, errFB
	}
	return start, int(n), nil
}

func (t fbTable) vectorField(i, elem int) (int, int, error) {
	pos, ok, err := t.ref(i)
	if !ok || err != nil {
		return 0, 0, err
	}
	return t.b.vector(pos, elem)
}

// tableVector verifies a vector of tables in field i and calls fn on each.
func (t fbTable) tableVector(i int, fn func(fbTable) error) error {
	start, n, err := t.vectorField(i, 4)
	if err != nil {
		return err
	}
	for k := 0; k < n; k++ {
		p := start + 4*k
		off, err := t.b.u32(p)
		if err != nil {
			return err
		}
		sub, err := t.b.table(p + int(off))
		if err != nil {
			return err
		}
		if fn != nil {
			if err := fn(sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// stringField verifies the string in field i and returns it ("" when
// absent).
func (t fbTable) stringField(i int) (string, error) {
	start, n, err := t.vectorField(i, 1)
	if err != nil || n == 0 {
		return "", err
	}
	return string(t.b[start : start+n]), nil
}

func verifyKeyValues(t fbTable, i int) error {
	return t.tableVector(i, func(kv fbTable) error {
		if _, err := kv.stringField(0); err != nil {
			return err
		}
		_, err := kv.stringField(1)
		return err
	})
}

// ipcFile is what verifyIPC learned of a file: the layout of each column
// and where the schema, the batches and the footer lie.
type ipcFile struct {
	table     string        // the coloc.table of the schema metadata, if any
	fields    []fieldLayout // one a column
	blocks    []ipcBlock    // the record batches, as the footer lists them
	schemaEnd int64         // the end of the schema message at the start
	bodyEnd   int64         // the start of the footer
}

// fieldLayout is how a column's values lie in a record batch: a fixed
// width in bytes, or (width 0) string offsets of offWidth bytes and the
// bytes they point into.
type fieldLayout struct {
	name            string
	width, offWidth int
}

// ipcBlock is one record batch of the footer: its offset in the file,
// the length of its message and of its body.
type ipcBlock struct{ off, metaLen, bodyLen int64 }

// where names a column (and the table) in a message.
func (f *ipcFile) where(batch, col int) string {
	s := fmt.Sprintf("record batch %d", batch)
	if col >= 0 && col < len(f.fields) {
		s += fmt.Sprintf(", column %d (%s)", col+1, f.fields[col].name)
	}
	if f.table != "" {
		s = "table " + f.table + ", " + s
	}
	return s
}

// verifyIPC checks an Arrow IPC file of the given size read through r.
func verifyIPC(r io.ReaderAt, size int64) (*ipcFile, error) {
	file := &ipcFile{}
	return file, file.verify(r, size)
}

func (file *ipcFile) verify(r io.ReaderAt, size int64) error {
	const tail = 10 // int32 footer length + "ARROW1"
	if size < 8+tail {
		return fmt.Errorf("file of %d bytes is too short for an Arrow IPC file", size)
	}
	head := make([]byte, 6)
	end := make([]byte, tail)
	if _, err := r.ReadAt(head, 0); err != nil {
		return err
	}
	if _, err := r.ReadAt(end, size-tail); err != nil {
		return err
	}
	if string(head) != ipcMagic || string(end[4:]) != ipcMagic {
		return errors.New("missing ARROW1 magic at start or end (truncated or another format)")
	}
	flen := int64(int32(binary.LittleEndian.Uint32(end)))
	if flen <= 0 || flen > size-8-tail {
		return fmt.Errorf("footer length %d does not fit a file of %d bytes", flen, size)
	}
	footer := make(fbuf, flen)
	if _, err := r.ReadAt(footer, size-tail-flen); err != nil {
		return err
	}
	bodyEnd := size - tail - flen
	root, err := footer.u32(0)
	if err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	ft, err := footer.table(int(root))
	if err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	if err := file.verifySchema(ft); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	// The schema message at the start: 8 bytes of magic and padding, the
	// 0xFFFFFFFF continuation and its length, then the message.
	var head8 [8]byte
	if _, err := r.ReadAt(head8[:], 8); err == nil && binary.LittleEndian.Uint32(head8[:]) == 0xFFFFFFFF {
		file.schemaEnd = 16 + int64(int32(binary.LittleEndian.Uint32(head8[4:])))
	}
	file.bodyEnd = bodyEnd
	if _, n, err := ft.vectorField(2, 24); err != nil {
		return fmt.Errorf("footer dictionaries: %w", err)
	} else if n > 0 {
		return errors.New("dictionary-encoded columns are not supported")
	}
	if err := verifyKeyValues(ft, 4); err != nil {
		return fmt.Errorf("footer metadata: %w", err)
	}
	start, n, err := ft.vectorField(3, 24)
	if err != nil {
		return fmt.Errorf("footer record batches: %w", err)
	}
	for k := 0; k < n; k++ {
		p := start + 24*k
		off, _ := footer.i64(p)
		metaLen, _ := footer.u32(p + 8)
		metaLen = int64(int32(uint32(metaLen)))
		bodyLen, _ := footer.i64(p + 16)
		if off < 8 || metaLen < 8 || bodyLen < 0 || off > bodyEnd || metaLen > bodyEnd-off || bodyLen > bodyEnd-off-metaLen {
			return fmt.Errorf("%s: block (offset %d, metadata %d, body %d) outside the file", file.where(k, -1), off, metaLen, bodyLen)
		}
		file.blocks = append(file.blocks, ipcBlock{off, metaLen, bodyLen})
		if err := file.verifyBatch(r, k, off, metaLen, bodyLen); err != nil {
			return err
		}
	}
	return nil
}

func (file *ipcFile) verifySchema(ft fbTable) error {
	pos, ok, err := ft.ref(1)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("footer has no schema")
	}
	st, err := ft.b.table(pos)
	if err != nil {
		return err
	}
	return file.verifySchemaTable(st)
}

// verifyStartSchema checks the schema message at the start of the file,
// which readers of the stream read instead of the footer's: the file
// reader never looks at it, so a change there is found only by this
// check and by comparing it with the footer's (decode).
func verifyStartSchema(r io.ReaderAt, schemaEnd int64) error {
	if schemaEnd <= 16 || schemaEnd > 16+(64<<20) {
		return errors.New("no schema message at the start of the file")
	}
	msg := make(fbuf, schemaEnd-16)
	if _, err := r.ReadAt(msg, 16); err != nil {
		return err
	}
	root, err := msg.u32(0)
	if err != nil {
		return err
	}
	mt, err := msg.table(int(root))
	if err != nil {
		return err
	}
	if ht, ok, err := mt.field(1, 1); err != nil || !ok || msg[ht] != 1 { // MessageHeader.Schema
		return errors.New("the message at the start of the file is not a schema")
	}
	hpos, ok, err := mt.ref(2)
	if err != nil || !ok {
		return fmt.Errorf("schema message: %v", orMissing(err))
	}
	st, err := msg.table(hpos)
	if err != nil {
		return err
	}
	return (&ipcFile{}).verifySchemaTable(st)
}

func (file *ipcFile) verifySchemaTable(st fbTable) error {
	if err := verifyKeyValues(st, 2); err != nil {
		return err
	}
	file.table = schemaTable(st)
	if _, _, err := st.vectorField(3, 8); err != nil {
		return err
	}
	k := 0
	return st.tableVector(1, func(f fbTable) error {
		k++
		name, err := f.stringField(0)
		if err != nil {
			return err
		}
		tp, ok, err := f.field(2, 1)
		if err != nil {
			return err
		}
		tag := byte(0)
		if ok {
			tag = f.b[tp]
		}
		if _, known := ipcTypes[tag]; !known {
			return fmt.Errorf("field %d (%s): Arrow type tag %d is not a type coloc reads (int, float, utf8, timestamp)", k, name, tag)
		}
		tpos, ok, err := f.ref(3)
		if err != nil || !ok {
			return fmt.Errorf("field %d (%s): type: %v", k, name, orMissing(err))
		}
		tt, err := f.b.table(tpos)
		if err != nil {
			return fmt.Errorf("field %d (%s): type: %w", k, name, err)
		}
		lay := fieldLayout{name: name}
		switch tag {
		case 2: // Int: bitWidth int32, is_signed bool
			bits := int64(0)
			if bp, ok, err := tt.field(0, 4); err != nil {
				return fmt.Errorf("field %d (%s): type: %w", k, name, err)
			} else if ok {
				bits, _ = tt.b.u32(bp)
			}
			if bits != 8 && bits != 16 && bits != 32 && bits != 64 {
				return fmt.Errorf("field %d (%s): an integer of %d bits", k, name, bits)
			}
			lay.width = int(bits / 8)
		case 3: // FloatingPoint: precision short (0 half, 1 single, 2 double)
			prec := 0
			if pp, ok, err := tt.field(0, 2); err != nil {
				return fmt.Errorf("field %d (%s): type: %w", k, name, err)
			} else if ok {
				prec, _ = tt.b.u16(pp)
			}
			switch prec {
			case 1:
				lay.width = 4
			case 2:
				lay.width = 8
			default:
				return fmt.Errorf("field %d (%s): floating point of precision %d (coloc reads single and double)", k, name, prec)
			}
		case 5: // Utf8
			lay.offWidth = 4
		case 20: // LargeUtf8
			lay.offWidth = 8
		case 10: // Timestamp: unit short, timezone string
			if _, err := tt.stringField(1); err != nil {
				return fmt.Errorf("field %d (%s): timezone: %w", k, name, err)
			}
			lay.width = 8
		}
		if _, present, _ := f.field(4, 4); present {
			return fmt.Errorf("field %d (%s): dictionary-encoded columns are not supported", k, name)
		}
		if _, n, err := f.vectorField(5, 4); err != nil || n > 0 {
			return fmt.Errorf("field %d (%s): nested columns are not supported", k, name)
		}
		file.fields = append(file.fields, lay)
		return verifyKeyValues(f, 6)
	})
}

// schemaTable is the value of the coloc.table key of a verified schema's
// metadata, "" when it has none.
func schemaTable(st fbTable) string {
	table := ""
	st.tableVector(2, func(kv fbTable) error {
		k, _ := kv.stringField(0)
		if k == MetaTable {
			table, _ = kv.stringField(1)
		}
		return nil
	})
	if !utf8.ValidString(table) || len(table) > 64 {
		return ""
	}
	return table
}

func orMissing(err error) error {
	if err != nil {
		return err
	}
	return errors.New("missing")
}

// verifyBatch checks record batch k, the message at off: its header, that
// every buffer lies inside its body, and that each column's buffers hold
// its values: a validity bitmap of a bit a row, fixed-width values of
// their width, string offsets that go forward inside their bytes. Its
// errors name the batch, the column and the byte of the file at fault.
func (file *ipcFile) verifyBatch(r io.ReaderAt, k int, off, metaLen, bodyLen int64) error {
	bad := func(col int, format string, args ...any) error {
		return fmt.Errorf("%s: %s", file.where(k, col), fmt.Sprintf(format, args...))
	}
	meta := make(fbuf, metaLen)
	if _, err := r.ReadAt(meta, off); err != nil {
		return bad(-1, "%v", err)
	}
	// Encapsulated message: 0xFFFFFFFF continuation, int32 length, then the
	// flatbuffer (older writers omit the continuation).
	p := 0
	if c, _ := meta.u32(0); c == 0xFFFFFFFF {
		p = 4
	}
	l, err := meta.u32(p)
	if err != nil || l <= 0 || int64(p+4)+l > metaLen {
		return bad(-1, "message at byte %d: length outside its block", off)
	}
	msg := meta[p+4 : p+4+int(l)]
	fail := func(err error) error { return bad(-1, "message at byte %d: %v", off, err) }
	root, err := msg.u32(0)
	if err != nil {
		return fail(err)
	}
	mt, err := msg.table(int(root))
	if err != nil {
		return fail(err)
	}
	ht, ok, err := mt.field(1, 1)
	if err != nil || !ok || msg[ht] != 3 { // MessageHeader.RecordBatch
		return bad(-1, "message at byte %d is not a record batch", off)
	}
	if bp, ok, _ := mt.field(3, 8); ok {
		if bl, _ := msg.i64(bp); bl != bodyLen {
			return bad(-1, "message at byte %d: body length %d, the footer says %d", off, bl, bodyLen)
		}
	}
	if err := verifyKeyValues(mt, 4); err != nil {
		return fail(err)
	}
	hpos, ok, err := mt.ref(2)
	if err != nil || !ok {
		return bad(-1, "message at byte %d: record batch header: %v", off, orMissing(err))
	}
	rb, err := msg.table(hpos)
	if err != nil {
		return fail(err)
	}
	rows := int64(0)
	if lp, ok, err := rb.field(0, 8); err != nil {
		return fail(err)
	} else if ok {
		if rows, _ = msg.i64(lp); rows < 0 || rows > bodyLen*8+8 {
			return bad(-1, "%d rows cannot fit a body of %d bytes", rows, bodyLen)
		}
	}
	if _, present, _ := rb.field(3, 4); present {
		return bad(-1, "compressed record batches are not supported (write the file uncompressed)")
	}
	nodeStart, nodes, err := rb.vectorField(1, 16)
	if err != nil {
		return fail(err)
	}
	if nodes != len(file.fields) {
		return bad(-1, "%d columns, the schema has %d", nodes, len(file.fields))
	}
	bufStart, nbufs, err := rb.vectorField(2, 16)
	if err != nil {
		return fail(err)
	}
	want := 0
	for _, f := range file.fields {
		want += 2
		if f.width == 0 {
			want++
		}
	}
	if nbufs != want {
		return bad(-1, "%d buffers, the columns need %d", nbufs, want)
	}
	body := off + metaLen // the body's first byte in the file
	buf := func(i int) (int64, int64, error) {
		bo, _ := msg.i64(bufStart + 16*i)
		bl, _ := msg.i64(bufStart + 16*i + 8)
		if bo < 0 || bl < 0 || bo > bodyLen || bl > bodyLen-bo {
			return 0, 0, fmt.Errorf("buffer %d (offset %d, length %d) outside a body of %d bytes at byte %d", i, bo, bl, bodyLen, body)
		}
		return bo, bl, nil
	}
	b := 0
	for c, f := range file.fields {
		length, _ := msg.i64(nodeStart + 16*c)
		nulls, _ := msg.i64(nodeStart + 16*c + 8)
		if length != rows || nulls < 0 || nulls > length {
			return bad(c, "%d values (%d null) in a batch of %d rows", length, nulls, rows)
		}
		_, vl, err := buf(b)
		if err != nil {
			return bad(c, "%v", err)
		}
		if nulls > 0 && vl < (length+7)/8 {
			return bad(c, "validity bitmap of %d bytes for %d values, at byte %d", vl, length, body)
		}
		if f.width > 0 {
			do, dl, err := buf(b + 1)
			if err != nil {
				return bad(c, "%v", err)
			}
			if dl < length*int64(f.width) {
				return bad(c, "%d bytes at byte %d for %d values of %d bytes", dl, body+do, length, f.width)
			}
			b += 2
			continue
		}
		oo, ol, err := buf(b + 1)
		if err != nil {
			return bad(c, "%v", err)
		}
		_, dl, err := buf(b + 2)
		if err != nil {
			return bad(c, "%v", err)
		}
		b += 3
		if length == 0 {
			continue
		}
		ow := int64(f.offWidth)
		if ol < (length+1)*ow {
			return bad(c, "string offsets of %d bytes at byte %d for %d values", ol, body+oo, length)
		}
		offs := make([]byte, (length+1)*ow)
		if _, err := r.ReadAt(offs, body+oo); err != nil {
			return bad(c, "%v", err)
		}
		prev := int64(0)
		for i := int64(0); i <= length; i++ {
			var v int64
			if ow == 4 {
				v = int64(int32(binary.LittleEndian.Uint32(offs[i*4:])))
			} else {
				v = int64(binary.LittleEndian.Uint64(offs[i*8:]))
			}
			if v < prev || v > dl {
				return bad(c, "string offset %d (row %d) at byte %d is outside the %d bytes of its text, or goes back", v, i, body+oo+i*ow, dl)
			}
			prev = v
		}
	}
	_, _, err = rb.vectorField(4, 8)
	if err != nil {
		return fail(err)
	}
	return nil
}

// exactLayout checks that the file holds nothing but what a writer lays
// out: after the schema message, the batches one after the other, then
// the end-of-stream marker, then the footer. Two files joined, or a file
// cut and mended, have bytes that belong to no batch.
func (file *ipcFile) exactLayout(r io.ReaderAt) error {
	at := file.schemaEnd
	if at <= 8 {
		return errors.New("no schema message at the start of the file")
	}
	for k, b := range file.blocks {
		if b.off != at {
			return fmt.Errorf("%s starts at byte %d, the bytes before it end at %d: %d bytes belong to no batch (files joined, or cut and mended?)", file.where(k, -1), b.off, at, b.off-at)
		}
		at = b.off + b.metaLen + b.bodyLen
	}
	var eos [8]byte
	if _, err := r.ReadAt(eos[:], at); err != nil || at+8 != file.bodyEnd || binary.LittleEndian.Uint32(eos[:]) != 0xFFFFFFFF || binary.LittleEndian.Uint32(eos[4:]) != 0 {
		return fmt.Errorf("the %d bytes from byte %d to the footer at byte %d are not the end-of-stream marker: they belong to no batch (files joined, or cut and mended?)", file.bodyEnd-at, at, file.bodyEnd)
	}
	return nil
}
