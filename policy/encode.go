package policy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"

	"github.com/coloc-dev/coloc/internal/atomicfile"
)

// Encode validates f as Decode would and returns its file bytes: indented
// JSON, members in the order of the Go types, a required list that is nil
// written as [] (never null). f is not changed.
func Encode(f *File) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeTo(&buf, f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFile writes f to path atomically, the bytes Encode gives. The
// decisions are written one at a time (a file's size is mostly its
// decisions: a file of 10^6 jobs is encoded without holding its text).
func WriteFile(path string, f *File) error {
	err := atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := encodeTo(bw, f); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteStream writes a policy file atomically, as WriteFile writes it,
// with its decisions given one at a time: head is the file without them,
// and decide calls add once for each decision, in order (an Encoder checks
// and writes each as it comes). An error of decide is returned as it is;
// on any error the file at path is left as it was.
func WriteStream(path string, head *File, decide func(add func(Decision) error) error) error {
	var derr error
	err := atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		e, err := NewEncoder(bw, head)
		if err != nil {
			return err
		}
		if derr = decide(e.Add); derr != nil {
			return derr
		}
		if err := e.Close(); err != nil {
			return err
		}
		return bw.Flush()
	})
	if derr != nil {
		return derr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// decisionsSlot is how the encoding of a file with no decisions shows
// them: the place where an Encoder streams them.
const decisionsSlot = "\n  \"decisions\": [],\n"

// encodeTo validates f and writes its encoding to w, the decisions one at
// a time (an Encoder).
func encodeTo(w io.Writer, f *File) error {
	var head *File
	if f != nil {
		h := *f
		h.Decisions = nil
		head = &h
	}
	e, err := NewEncoder(w, head)
	if err != nil {
		return err
	}
	for _, d := range f.Decisions {
		if err := e.Add(d); err != nil {
			return err
		}
	}
	return e.Close()
}

// An Encoder writes a policy file whose decisions come one at a time, the
// bytes Encode gives for the whole file, and checks it as Decode would: the
// members other than the decisions when it starts (a file that fails there
// is refused before any decision), each decision as it comes, and what
// relates the decisions (ids, partners, GPUs shared) at Close, which
// returns every problem in the order a reader lists them. It holds the id
// of each decision and the placed ones (which the cluster bounds), never
// the decisions' text. On an error the bytes written so far are not a
// valid file: the caller discards them (WriteStream does).
type Encoder struct {
	w    io.Writer
	head []byte // the file's encoding with no decision
	slot int    // where the decisions go in head
	c    *checker
	ds   *decisions
	post *problems // those of the members after the decisions
	n    int
	size int64
	item bytes.Buffer
	enc  *json.Encoder
	err  error
}

// NewEncoder checks head, a policy file without decisions, and writes its
// members up to the decisions to w.
func NewEncoder(w io.Writer, head *File) (*Encoder, error) {
	ps := &problems{file: "policy"}
	if refused(head, ps) {
		return nil, fmt.Errorf("encoding an invalid policy: %w", ps.error())
	}
	if len(head.Decisions) > 0 {
		return nil, fmt.Errorf("encoding policy: the head holds %d decisions; an Encoder takes them one at a time (Add)", len(head.Decisions))
	}
	c, post := checkHead(head, ps)
	if ps.failed() || post.failed() {
		ps.merge(post)
		return nil, fmt.Errorf("encoding an invalid policy: %w", ps.error())
	}
	g := *head
	fill(reflect.ValueOf(&g).Elem())
	var text bytes.Buffer
	enc := json.NewEncoder(&text)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // reasons say ">= 0.8", not "\u003e= 0.8"
	if err := enc.Encode(&g); err != nil {
		return nil, fmt.Errorf("encoding policy: %w", err)
	}
	e := &Encoder{w: w, head: text.Bytes(), c: c, ds: c.decisions(), post: post}
	e.slot = bytes.Index(e.head, []byte(decisionsSlot))
	if e.slot < 0 {
		return nil, fmt.Errorf("encoding policy: no place for the decisions in the encoded file (the File type changed?)")
	}
	e.enc = json.NewEncoder(&e.item)
	e.enc.SetIndent("    ", "  ")
	e.enc.SetEscapeHTML(false)
	if err := e.write(e.head[:e.slot]); err != nil {
		return nil, err
	}
	return e, nil
}

// Add checks decision d, the next of the file, and writes it.
func (e *Encoder) Add(d Decision) error {
	if e.err != nil {
		return e.err
	}
	e.ds.add(d)
	fill(reflect.ValueOf(&d).Elem())
	e.item.Reset()
	if e.n == 0 {
		e.item.WriteString("\n  \"decisions\": [\n    ")
	} else {
		e.item.WriteString(",\n    ")
	}
	if err := e.enc.Encode(&d); err != nil {
		e.err = fmt.Errorf("encoding policy: decision %d: %w", e.n, err)
		return e.err
	}
	e.n++
	return e.write(bytes.TrimSuffix(e.item.Bytes(), []byte("\n")))
}

// Close checks what relates the decisions and writes the rest of the
// file. Its error lists every problem of the file.
func (e *Encoder) Close() error {
	if e.err != nil {
		return e.err
	}
	e.ds.finish()
	ps := e.c.ps
	ps.merge(e.post)
	if ps.failed() {
		e.err = fmt.Errorf("encoding an invalid policy: %w", ps.error())
		return e.err
	}
	if e.n == 0 {
		return e.write(e.head[e.slot:])
	}
	return e.write(append([]byte("\n  ],\n"), e.head[e.slot+len(decisionsSlot):]...))
}

// write writes b, keeping the file within what a reader loads.
func (e *Encoder) write(b []byte) error {
	if e.size += int64(len(b)); e.size > MaxFileBytes {
		e.err = fmt.Errorf("encoding policy: more than the %d bytes a policy reader loads (MaxFileBytes), at decision %d", int64(MaxFileBytes), e.n)
		return e.err
	}
	if _, err := e.w.Write(b); err != nil {
		e.err = err
		return err
	}
	return nil
}

// fill replaces, in the struct v (settable), every slice by a copy and
// every nil slice of a required member by an empty one, recursively: the
// caller's slices are never written to.
func fill(v reflect.Value) {
	for _, m := range members(v.Type()) {
		fv := v.Field(m.index)
		switch fv.Kind() {
		case reflect.Struct:
			fill(fv)
		case reflect.Slice:
			if fv.IsNil() {
				if m.Required {
					fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
				}
				continue
			}
			cp := reflect.MakeSlice(fv.Type(), fv.Len(), fv.Len())
			reflect.Copy(cp, fv)
			fv.Set(cp)
			if cp.Type().Elem().Kind() == reflect.Struct {
				for i := 0; i < cp.Len(); i++ {
					fill(cp.Index(i))
				}
			}
		}
	}
}
