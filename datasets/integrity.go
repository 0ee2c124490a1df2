package datasets

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// Every table file coloc writes carries checksums, so that a file changed
// after it was written (a flipped bit on a disk or in a copy, an edit, two
// files joined) is refused when read instead of read as other values:
//
//   - the schema metadata holds MetaIntegrity = IntegrityChain;
//   - each record batch carries, in its own metadata under MetaBatchSum, a
//     SHA-256 chained over the table's layout and every batch up to it:
//     h0 = SHA-256 of the kind, version, table metadata and each column's
//     name, type, unit and metadata; h(i) = SHA-256 of h(i-1), i, the
//     batch's row count and its values (a null as a null, whatever its
//     slot holds). A changed value, unit or name, and batches reordered,
//     dropped or repeated, all break the chain;
//   - a table of no rows is written as one batch of no rows, so its layout
//     is checked too;
//   - the file's bytes are exactly what the writer lays out: the magic,
//     the schema, the batches one after the other, the end-of-stream
//     marker and the footer. A file joined to another, or cut and mended,
//     has bytes no batch accounts for, and is refused.
//
// The checksums hash the values as coloc reads them, not the file's bytes,
// so that they say what matters (the same table read back) and survive
// nothing that changes it. A file without MetaIntegrity (written by a coloc
// before checksums, or by another Arrow writer) is read as before:
// validated, not verified; Table.Verified tells which.

// Integrity metadata keys and the one scheme this build writes and reads.
const (
	MetaIntegrity  = "coloc.integrity"
	MetaBatchSum   = "coloc.sha256"
	IntegrityChain = "sha256-chain-1"
)

// chain is the running checksum of a table's batches.
type chain struct {
	h     [sha256.Size]byte
	batch int
	buf   []byte // scratch for one column's values
}

// newChain starts the chain of a table laid out as t (its rows are not
// read) at schema version version, as the file's metadata writes it.
func newChain(t *Table, version string) *chain {
	h := sha256.New()
	put := func(s string) {
		var n [binary.MaxVarintLen64]byte
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	put("coloc table")
	put(string(t.Kind))
	put(version)
	putMeta := func(m map[string]string) {
		keys := slices.Sorted(maps.Keys(m))
		put(strconv.Itoa(len(keys)))
		for _, k := range keys {
			put(k)
			put(m[k])
		}
	}
	putMeta(t.Meta)
	put(strconv.Itoa(len(t.Columns)))
	for _, c := range t.Columns {
		put(c.Name)
		put(c.Type.String())
		put(c.Unit)
		putMeta(c.Meta)
	}
	c := &chain{}
	h.Sum(c.h[:0])
	return c
}

// next adds rows [lo, hi) of t as the next batch and returns the chain's
// value after it, in hex.
func (c *chain) next(t *Table, lo, hi int) string {
	h := sha256.New()
	h.Write(c.h[:])
	var head [16]byte
	binary.LittleEndian.PutUint64(head[:8], uint64(c.batch))
	binary.LittleEndian.PutUint64(head[8:], uint64(hi-lo))
	h.Write(head[:])
	for _, col := range t.Columns {
		c.buf = appendColumn(c.buf[:0], col, lo, hi)
		h.Write(c.buf)
	}
	h.Sum(c.h[:0])
	c.batch++
	return hex.EncodeToString(c.h[:])
}

// appendColumn appends the canonical bytes of rows [lo, hi) of col: per
// row a byte 0 for a null, else 1 and the value (8 little-endian bytes
// for a number or a time, a length and the bytes for a string).
func appendColumn(b []byte, col *Column, lo, hi int) []byte {
	for i := lo; i < hi; i++ {
		if col.IsNull(i) {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		switch col.Type {
		case String:
			b = binary.AppendUvarint(b, uint64(len(col.Str[i])))
			b = append(b, col.Str[i]...)
		case Float:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(col.Float[i]))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(col.Int[i]))
		}
	}
	return b
}

// check verifies the checksum rec carries against rows [base, t.Len()) of
// t, the rows just read from it, and advances the chain. A nil chain (a
// file without checksums) checks only that rec carries none, since a
// checksum without the schema's marker means the marker was changed.
func (c *chain) check(rec arrow.RecordBatch, t *Table, base int, name, where string) error {
	var got string
	if rm, ok := rec.(arrow.RecordBatchWithMetadata); ok {
		md := rm.Metadata()
		got, _ = md.GetValue(MetaBatchSum)
	}
	if c == nil {
		if got != "" {
			return fmt.Errorf("%s: %s carries a checksum, but the schema does not say the table has them: the file changed after it was written", name, where)
		}
		return nil
	}
	want := c.next(t, base, t.Len())
	switch {
	case got == "":
		return fmt.Errorf("%s: %s has no checksum (%s): the file changed after it was written", name, where, MetaBatchSum)
	case got != want:
		return fmt.Errorf("%s: %s (rows %d to %d): checksum mismatch: its values, or the table's layout, changed after coloc wrote it (a disk or copy error, or an edit); write it again from its source", name, where, base+1, t.Len())
	}
	return nil
}
