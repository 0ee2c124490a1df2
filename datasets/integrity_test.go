package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeBytes writes tab as Write does and returns the file's bytes.
func writeBytes(t *testing.T, tab *Table) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), tab.Kind.FileName())
	if err := Write(path, tab); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every single-bit change of a table file is refused, or leaves what is
// read unchanged (a bit of padding, or of metadata no reader uses): no
// changed value is ever read. The errors never hold a Go runtime message.
// Each byte gets one of its bits flipped, a different one byte to byte.
func TestEveryBitFlipIsCaught(t *testing.T) {
	for _, tab := range sampleTables() {
		b := writeBytes(t, tab)
		want, err := ReadFrom(bytes.NewReader(b), "t.arrow")
		if err != nil || !want.Verified() {
			t.Fatalf("%s: %v (verified %v)", tab.Kind, err, want != nil && want.Verified())
		}
		refused := 0
		for i := range b {
			bit := i % 8
			c := bytes.Clone(b)
			c[i] ^= 1 << bit
			got, err := ReadFrom(bytes.NewReader(c), "t.arrow")
			switch {
			case err != nil:
				refused++
				if strings.Contains(err.Error(), "runtime error") || strings.Contains(err.Error(), "goroutine") {
					t.Fatalf("%s: byte %d bit %d: a Go runtime message: %v", tab.Kind, i, bit, err)
				}
			case firstDiff(got, want) != "" || got.Len() != want.Len():
				t.Fatalf("%s: byte %d bit %d: read with a changed value: %s", tab.Kind, i, bit, firstDiff(got, want))
			}
		}
		t.Logf("%s: %d of %d single-bit changes refused, the rest read the same table", tab.Kind, refused, len(b))
	}
}

// A file joined to itself, a file with bytes appended, and a file cut
// short are refused; a table of no rows is checked too.
func TestWholeFile(t *testing.T) {
	b := writeBytes(t, samplePairs().Table())
	for name, c := range map[string][]byte{
		"joined to itself": append(bytes.Clone(b), b...),
		"bytes appended":   append(bytes.Clone(b), "trailing text\n"...),
		"cut short":        b[:len(b)-1],
	} {
		if _, err := ReadFrom(bytes.NewReader(c), "t.arrow"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	empty := samplePairs().Table()
	for _, c := range empty.Columns {
		c.Str, c.Int, c.Float, c.Null = nil, nil, nil, nil
	}
	eb := writeBytes(t, empty)
	if got, err := ReadFrom(bytes.NewReader(eb), "t.arrow"); err != nil || got.Len() != 0 || !got.Verified() {
		t.Fatalf("empty table: %v", err)
	}
	// A changed unit of a table of no rows is caught by its one batch.
	i := bytes.LastIndex(eb, []byte("iterations/s"))
	if i < 0 {
		i = bytes.LastIndex(eb, []byte("samples/s"))
	}
	c := bytes.Clone(eb)
	c[i] ^= 0x20
	if _, err := ReadFrom(bytes.NewReader(c), "t.arrow"); err == nil {
		t.Error("a changed unit in the footer of an empty table: accepted")
	}
}

// A file written without checksums (by a coloc before them, or another
// Arrow writer) is read and validated as before, and says it was not
// verified. testdata/solo-without-checksums.arrow is the counters
// dataset's solo table as coloc wrote it before tables carried checksums.
func TestFilesWithoutChecksumsStillRead(t *testing.T) {
	tab, err := Read(filepath.Join("testdata", "solo-without-checksums.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	if tab.Verified() || !strings.Contains(tab.Describe(), "no checksums") {
		t.Errorf("a table without checksums: verified %v, %s", tab.Verified(), tab.Describe())
	}
}

// Corrupt files are refused with the table, the batch, the column and the
// byte at fault, never a Go runtime message.
func TestCorruptFileMessages(t *testing.T) {
	b := writeBytes(t, sampleSolo().Table())
	f, err := verifyIPC(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	// Break a string offset of the workload column: the batch's body
	// starts after its message; the first buffer of a string column after
	// its validity bitmap holds the offsets.
	blk := f.blocks[0]
	body := blk.off + blk.metaLen
	c := bytes.Clone(b)
	// The first 8 bytes of the body are the (empty) validity bitmap's
	// padding or the offsets; put a huge value in every int32 slot of the
	// first 64 bytes.
	for i := body; i < body+64; i += 4 {
		c[i+3] = 0x7f
	}
	_, err = ReadFrom(bytes.NewReader(c), "solo.arrow")
	if err == nil {
		t.Fatal("a broken string offset was accepted")
	}
	msg := err.Error()
	if strings.Contains(msg, "runtime") || !strings.Contains(msg, "table solo, record batch 0, column") || !strings.Contains(msg, "at byte") {
		t.Errorf("message %q: want the table, batch, column and byte", msg)
	}
}
