package policy

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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

// WriteStream, given the decisions one at a time, writes the bytes
// WriteFile writes; a decision that fails the checks (here a partner that
// does not list the job back, seen only once both are given) or an error
// of the caller leaves the file on disk as it was, and the caller's error
// comes back as it is.
func TestWriteStream(t *testing.T) {
	f := loadFixture(t).File
	dir := t.TempDir()
	whole, stream := filepath.Join(dir, "whole.json"), filepath.Join(dir, "stream.json")
	if err := WriteFile(whole, f); err != nil {
		t.Fatal(err)
	}
	head := *f
	head.Decisions = nil
	each := func(ds []Decision) func(add func(Decision) error) error {
		return func(add func(Decision) error) error {
			for _, d := range ds {
				if err := add(d); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if err := WriteStream(stream, &head, each(f.Decisions)); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(whole)
	b, _ := os.ReadFile(stream)
	if !bytes.Equal(a, b) {
		t.Fatal("WriteStream wrote other bytes than WriteFile")
	}
	bad := append([]Decision(nil), f.Decisions...)
	bad[2].ColocatedWith = nil // rec-b no longer lists lm-a
	err := WriteStream(stream, &head, each(bad))
	if err == nil || !strings.Contains(err.Error(), `decisions[1].colocated_with[0]: job "rec-b" (decisions[2]) does not list "lm-a" back`) {
		t.Errorf("error %v", err)
	}
	mine := os.ErrDeadlineExceeded
	if err := WriteStream(stream, &head, func(add func(Decision) error) error { return mine }); err != mine {
		t.Errorf("error %v, want the caller's", err)
	}
	if b, _ := os.ReadFile(stream); !bytes.Equal(a, b) {
		t.Error("a refused stream changed the file on disk")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files in the directory, want 2", len(entries))
	}
	head.Decisions = f.Decisions
	if _, err := NewEncoder(io.Discard, &head); err == nil {
		t.Error("an Encoder took a head with decisions")
	}
}

// The checks an Encoder makes one decision at a time list the problems
// as a reader does: every job's id first, then each decision's members,
// then the partners. A problem of the other members refuses the file
// before any decision is looked at.
func TestEncoderListsProblemsAsTheReader(t *testing.T) {
	f := *loadFixture(t).File
	f.Decisions = append([]Decision(nil), f.Decisions...)
	f.Decisions[0].Reason = ""          // a member of decisions[0]
	f.Decisions[4].Job = "resnet-train" // an id of decisions[4]
	f.Decisions[2].ColocatedWith = nil  // a partner of decisions[1]
	paths := func(err error) []string {
		var out []string
		for _, p := range ProblemsOf(err) {
			out = append(out, p.Path)
		}
		return out
	}
	_, read := New(&f, "policy")
	_, wrote := Encode(&f)
	if got, want := paths(wrote), paths(read); !slices.Equal(got, want) || !slices.Equal(want, []string{"decisions[4].job", "decisions[0].reason", "decisions[1].colocated_with[0]"}) {
		t.Errorf("the writer lists %q, the reader %q", got, want)
	}
	f.Solo = append([]Solo(nil), f.Solo...)
	f.Solo[0].Throughput = 0
	if _, wrote := Encode(&f); !slices.Equal(paths(wrote), []string{"solo[0].throughput"}) {
		t.Errorf("the writer lists %q, want the table's problem alone", paths(wrote))
	}
}
