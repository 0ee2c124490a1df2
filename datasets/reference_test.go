package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestShippedReferenceTablesAreVerified: every table shipped under
// reference/ carries checksums (read verified, not merely validated), and
// the imported ones are byte for byte what the importers write today from
// the upstream files beside them, so a flipped bit or a stale table fails
// here rather than in a result.
func TestShippedReferenceTablesAreVerified(t *testing.T) {
	for _, dir := range []string{"reference/gavel", "reference/pollux", "reference/counters"} {
		ds, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds.unchecked) > 0 {
			t.Errorf("%s: %v carry no checksums: rewrite them with the command in the dataset's README or LICENSE notes", dir, ds.unchecked)
		}
	}

	gavel := importUpstreamGavel(t)
	pollux, err := ImportPollux("reference/pollux/upstream", DefaultPolluxOptions)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for _, c := range []struct {
		dir string
		im  *Imported
	}{{"reference/gavel", gavel}, {"reference/pollux", pollux}} {
		for _, tab := range c.im.Tables() {
			name := tab.Kind.FileName()
			fresh := filepath.Join(tmp, filepath.Base(c.dir)+"-"+name)
			if err := Write(fresh, tab); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(fresh)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(c.dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s differs from what the importer writes from %s/upstream today", c.dir, name, c.dir)
			}
		}
	}
}
