package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/internal/jsonkeys"
)

// MaxFileBytes is the largest policy file read: the decisions of
// place/jobs.MaxJobs (10^6) jobs take about 255 MB, the tables of a large
// catalogue a few hundred megabytes more.
const MaxFileBytes = 1 << 30

// Load reads, validates and indexes the policy file at path, a regular
// file of at most MaxFileBytes.
func Load(path string) (*Policy, error) {
	data, err := inputfile.ReadAll(path, "a policy file", MaxFileBytes)
	if err != nil {
		return nil, err
	}
	return decode(data, path)
}

// Decode reads, validates and indexes a policy file from r; name (the
// file's name) is used in messages.
//
// A file of another format or version is refused by name (the error wraps
// ErrFormat or ErrVersion) before anything else is looked at. Then its
// shape (members, JSON types), then its content: statuses, placements on
// nodes that exist and GPUs in range, co-located jobs that exist and list
// each other back, at most Thresholds.MaxPerGPU jobs a GPU, throughputs
// positive and finite, thresholds in range, similarity arrays aligned,
// unique keys. A member named twice in one object, or text that is not
// UTF-8, is refused with its JSON path and line. The error is a *ValidationError listing every problem with
// its JSON path.
func Decode(r io.Reader, name string) (*Policy, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return decode(data, name)
}

// New validates and indexes a policy held in memory, as Decode does after
// reading a file; name is used in messages. The Policy keeps f: it must
// not be changed afterwards.
func New(f *File, name string) (*Policy, error) {
	ps := &problems{file: name}
	if refused(f, ps) {
		return nil, ps.error()
	}
	check(f, ps)
	if ps.failed() {
		return nil, ps.error()
	}
	return build(f, name), nil
}

// refused reports a nil File, or one of another format or version, by
// name.
func refused(f *File, ps *problems) bool {
	switch {
	case f == nil:
		ps.err = ErrFormat
		ps.add("", "no policy (nil File)")
	case f.Format != Format:
		ps.err = ErrFormat
		ps.add("format", "format %q: not a coloc policy file (want %q)", f.Format, Format)
	case f.Version < MinVersion || f.Version > Version:
		ps.err = ErrVersion
		ps.add("version", "version %d: this reader knows versions %d to %d", f.Version, MinVersion, Version)
	default:
		return false
	}
	return true
}

func decode(data []byte, name string) (*Policy, error) {
	ps := &problems{file: name}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw any
	err := dec.Decode(&raw)
	if err == nil {
		if _, e := dec.Token(); e != io.EOF {
			err = fmt.Errorf("data after the JSON value at offset %d", dec.InputOffset())
		}
	}
	if err != nil {
		p := Problem{File: name, Msg: "not JSON: " + err.Error()}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			p.Line = lineOf(data, se.Offset)
		}
		if errors.Is(err, io.EOF) {
			p.Msg = "empty file"
		}
		return nil, &ValidationError{File: name, Problems: []Problem{p}, Err: ErrFormat}
	}
	if refuse(raw, ps) {
		return nil, ps.error()
	}
	// encoding/json keeps the last of two members of one name and turns
	// bytes that are not UTF-8 into U+FFFD: both would let this reader
	// see another file than a scheduler's reader does.
	if p := jsonkeys.Check(data); p != nil {
		return nil, &ValidationError{File: name, Problems: []Problem{{File: name, Line: p.Line, Path: p.Path, Msg: p.Msg}}}
	}
	checkShape(raw, reflect.TypeFor[File](), "", ps)
	if ps.failed() {
		return nil, ps.error()
	}
	f := new(File)
	if err := json.Unmarshal(data, f); err != nil {
		// The shape check accepted it: only an odd corner can get here.
		ps.add("", "%v", err)
		return nil, ps.error()
	}
	return New(f, name)
}

// refuse reports a file of another format or version, by name.
func refuse(raw any, ps *problems) bool {
	obj, ok := raw.(map[string]any)
	if !ok {
		ps.err = ErrFormat
		ps.add("", "%s, want a policy file (a JSON object with format %q)", jsonKind(raw), Format)
		return true
	}
	v, present := obj["format"]
	switch f, ok := v.(string); {
	case !present:
		ps.err = ErrFormat
		ps.add("format", "no format name, want %q: not a coloc policy file", Format)
		return true
	case !ok:
		ps.err = ErrFormat
		ps.add("format", "%s, want %q: not a coloc policy file", jsonKind(v), Format)
		return true
	case f != Format:
		ps.err = ErrFormat
		ps.add("format", "format %q: not a coloc policy file (want %q)", f, Format)
		return true
	}
	switch v, present := obj["version"]; {
	case !present:
		ps.err = ErrVersion
		ps.add("version", "no version, want %d", Version)
		return true
	case !knownVersion(v):
		ps.err = ErrVersion
		if n, ok := v.(json.Number); ok {
			ps.add("version", "version %s: this reader knows versions %d to %d", n, MinVersion, Version)
		} else {
			ps.add("version", "%s, want the number %d", jsonKind(v), Version)
		}
		return true
	}
	return false
}

// knownVersion reports whether a decoded version is one this reader reads.
func knownVersion(v any) bool {
	for n := MinVersion; n <= Version; n++ {
		if v == json.Number(fmt.Sprint(n)) {
			return true
		}
	}
	return false
}

// lineOf returns the 1-based line of a byte offset.
func lineOf(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// Summary says in one line what the file holds: its version, decisions by
// status, and the size of each table.
func (p *Policy) Summary() string {
	placed, waiting := 0, 0
	for _, d := range p.File.Decisions {
		switch d.Status {
		case StatusPlaced:
			placed++
		case StatusWaiting:
			waiting++
		}
	}
	waits := ""
	if waiting > 0 {
		waits = fmt.Sprintf(", %d waiting", waiting)
	}
	return fmt.Sprintf("policy version %d: %d decisions, %d placed%s, %d unplaceable; %d pairs, %d solo, %d scaling, %d similarity references",
		p.File.Version, len(p.File.Decisions), placed, waits, len(p.File.Decisions)-placed-waiting,
		len(p.File.Pairs), len(p.File.Solo), len(p.File.Scaling), len(p.File.Similarity.References))
}
