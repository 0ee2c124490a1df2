package policy

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestEncodeRoundTrip(t *testing.T) {
	p := loadFixture(t)
	b, err := Encode(p.File)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Decode(bytes.NewReader(b), "encoded")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.File, q.File) {
		t.Error("the file read back differs from the file encoded")
	}
	again, err := Encode(q.File)
	if err != nil || !bytes.Equal(again, b) {
		t.Errorf("encoding twice gives other bytes (%v)", err)
	}
}

// TestEncodeWritesEmptyLists: a required list left nil is written [], so
// that readers in any language find an array; the caller's File keeps
// its nil.
func TestEncodeWritesEmptyLists(t *testing.T) {
	f := *loadFixture(t).File
	f.Pairs, f.Solo, f.Scaling, f.Provenance.Data = nil, nil, nil, nil
	f.Decisions = append([]Decision(nil), f.Decisions...)
	f.Decisions[0].Placement = append([]NodeGPUs(nil), f.Decisions[0].Placement...)
	b, err := Encode(&f)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"pairs": []`, `"solo": []`, `"scaling": []`, `"data": []`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("encoded file lacks %s", want)
		}
	}
	if bytes.Contains(b, []byte("null")) {
		t.Error("encoded file has a null")
	}
	if f.Pairs != nil || f.Provenance.Data != nil {
		t.Error("Encode changed its input")
	}
	if _, err := Decode(bytes.NewReader(b), "encoded"); err != nil {
		t.Error(err)
	}
}

func TestEncodeRefusesInvalid(t *testing.T) {
	f := *loadFixture(t).File
	f.Thresholds.MaxPerGPU = 0
	if _, err := Encode(&f); err == nil || !strings.Contains(err.Error(), "thresholds.max_per_gpu") {
		t.Errorf("error %v, want one naming thresholds.max_per_gpu", err)
	}
	g := *loadFixture(t).File
	g.Version = 5
	if _, err := Encode(&g); err == nil || !strings.Contains(err.Error(), "version 5") {
		t.Errorf("error %v, want one naming version 5", err)
	}
}

func TestWriteFile(t *testing.T) {
	p := loadFixture(t)
	path := filepath.Join(t.TempDir(), "policy.json")
	if err := WriteFile(path, p.File); err != nil {
		t.Fatal(err)
	}
	q, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.File, q.File) {
		t.Error("the file written differs")
	}
	bad := *p.File
	bad.ThroughputUnit = "furlongs"
	if err := WriteFile(path, &bad); err == nil {
		t.Fatal("an invalid policy was written")
	}
	if r, err := Load(path); err != nil || !reflect.DeepEqual(r.File, p.File) {
		t.Errorf("a refused write changed the file on disk (%v)", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d files in the directory, want only policy.json", len(entries))
	}
}

// The decisions, written one at a time, give the bytes one encoding of
// the whole file gives (with HTML characters unescaped), for the fixture,
// a file without decisions, and one with a single decision.
func TestEncodeStreamsTheSameBytes(t *testing.T) {
	whole := func(f *File) []byte {
		g := *f
		fill(reflect.ValueOf(&g).Elem())
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&g); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	full := *loadFixture(t).File
	one := full
	one.Decisions = full.Decisions[:1]
	one.Decisions[0].Reason = "keeps >= 0.8 & <x>"
	for name, f := range map[string]*File{"fixture": &full, "one decision": &one} {
		got, err := Encode(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := whole(f); !bytes.Equal(got, want) {
			t.Errorf("%s: streamed\n%s\nwant\n%s", name, got, want)
		}
		path := filepath.Join(t.TempDir(), "p.json")
		if err := WriteFile(path, f); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); !bytes.Equal(b, got) {
			t.Errorf("%s: WriteFile wrote other bytes than Encode", name)
		}
	}
}
