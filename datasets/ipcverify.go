package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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

func (t fbTable) stringField(i int) error {
	_, _, err := t.vectorField(i, 1)
	return err
}

func verifyKeyValues(t fbTable, i int) error {
	return t.tableVector(i, func(kv fbTable) error {
		if err := kv.stringField(0); err != nil {
			return err
		}
		return kv.stringField(1)
	})
}

// verifyIPC checks an Arrow IPC file of the given size read through r.
func verifyIPC(r io.ReaderAt, size int64) error {
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
	if err := verifySchema(ft); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
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
			return fmt.Errorf("record batch %d: block (offset %d, metadata %d, body %d) outside the file", k, off, metaLen, bodyLen)
		}
		if err := verifyBatch(r, off, metaLen, bodyLen); err != nil {
			return fmt.Errorf("record batch %d: %w", k, err)
		}
	}
	return nil
}

func verifySchema(ft fbTable) error {
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
	if err := verifyKeyValues(st, 2); err != nil {
		return err
	}
	if _, _, err := st.vectorField(3, 8); err != nil {
		return err
	}
	k := 0
	return st.tableVector(1, func(f fbTable) error {
		k++
		if err := f.stringField(0); err != nil {
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
			return fmt.Errorf("field %d: Arrow type tag %d is not a type coloc reads (int, float, utf8, timestamp)", k, tag)
		}
		tpos, ok, err := f.ref(3)
		if err != nil || !ok {
			return fmt.Errorf("field %d: type: %v", k, orMissing(err))
		}
		tt, err := f.b.table(tpos)
		if err != nil {
			return fmt.Errorf("field %d: type: %w", k, err)
		}
		if tag == 10 { // Timestamp: unit short, timezone string
			if err := tt.stringField(1); err != nil {
				return fmt.Errorf("field %d: timezone: %w", k, err)
			}
		}
		if _, present, _ := f.field(4, 4); present {
			return fmt.Errorf("field %d: dictionary-encoded columns are not supported", k)
		}
		if _, n, err := f.vectorField(5, 4); err != nil || n > 0 {
			return fmt.Errorf("field %d: nested columns are not supported", k)
		}
		return verifyKeyValues(f, 6)
	})
}

func orMissing(err error) error {
	if err != nil {
		return err
	}
	return errors.New("missing")
}

// verifyBatch checks one record batch message: its header and that every
// buffer lies inside its body, and bounds its row counts by the body size
// (each column coloc reads needs at least one byte per row).
func verifyBatch(r io.ReaderAt, off, metaLen, bodyLen int64) error {
	meta := make(fbuf, metaLen)
	if _, err := r.ReadAt(meta, off); err != nil {
		return err
	}
	// Encapsulated message: 0xFFFFFFFF continuation, int32 length, then the
	// flatbuffer (older writers omit the continuation).
	p := 0
	if c, _ := meta.u32(0); c == 0xFFFFFFFF {
		p = 4
	}
	l, err := meta.u32(p)
	if err != nil || l <= 0 || int64(p+4)+l > metaLen {
		return errors.New("message length outside its block")
	}
	msg := meta[p+4 : p+4+int(l)]
	root, err := msg.u32(0)
	if err != nil {
		return err
	}
	mt, err := msg.table(int(root))
	if err != nil {
		return err
	}
	ht, ok, err := mt.field(1, 1)
	if err != nil || !ok || msg[ht] != 3 { // MessageHeader.RecordBatch
		return errors.New("message is not a record batch")
	}
	if bp, ok, _ := mt.field(3, 8); ok {
		if bl, _ := msg.i64(bp); bl != bodyLen {
			return fmt.Errorf("message body length %d, block says %d", bl, bodyLen)
		}
	}
	if err := verifyKeyValues(mt, 4); err != nil {
		return err
	}
	hpos, ok, err := mt.ref(2)
	if err != nil || !ok {
		return fmt.Errorf("record batch header: %v", orMissing(err))
	}
	rb, err := msg.table(hpos)
	if err != nil {
		return err
	}
	if lp, ok, err := rb.field(0, 8); err != nil {
		return err
	} else if ok {
		if n, _ := msg.i64(lp); n < 0 || n > bodyLen {
			return fmt.Errorf("%d rows cannot fit a body of %d bytes", n, bodyLen)
		}
	}
	if _, present, _ := rb.field(3, 4); present {
		return errors.New("compressed record batches are not supported (write the file uncompressed)")
	}
	start, n, err := rb.vectorField(1, 16)
	if err != nil {
		return err
	}
	for k := 0; k < n; k++ {
		length, _ := msg.i64(start + 16*k)
		nulls, _ := msg.i64(start + 16*k + 8)
		if length < 0 || length > bodyLen || nulls < 0 || nulls > length {
			return fmt.Errorf("column %d: %d values (%d null) cannot fit a body of %d bytes", k+1, length, nulls, bodyLen)
		}
	}
	start, n, err = rb.vectorField(2, 16)
	if err != nil {
		return err
	}
	for k := 0; k < n; k++ {
		bo, _ := msg.i64(start + 16*k)
		bl, _ := msg.i64(start + 16*k + 8)
		if bo < 0 || bl < 0 || bo > bodyLen || bl > bodyLen-bo {
			return fmt.Errorf("buffer %d (offset %d, length %d) outside a body of %d bytes", k, bo, bl, bodyLen)
		}
	}
	_, _, err = rb.vectorField(4, 8)
	return err
}
