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

// decisionsSlot is how the encoding of a file with no decisions shows
// them: the place where encodeTo streams them.
const decisionsSlot = "\n  \"decisions\": [],\n"

// encodeTo validates f and writes its encoding to w: the file without its
// decisions, with the decisions encoded one by one where the empty list
// stands, byte for byte what one encoding of the whole file gives.
func encodeTo(w io.Writer, f *File) error {
	if _, err := New(f, "policy"); err != nil {
		return fmt.Errorf("encoding an invalid policy: %w", err)
	}
	g := *f
	g.Decisions = nil
	fill(reflect.ValueOf(&g).Elem())
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // reasons say ">= 0.8", not "\u003e= 0.8"
	if err := enc.Encode(&g); err != nil {
		return fmt.Errorf("encoding policy: %w", err)
	}
	text := head.Bytes()
	if len(f.Decisions) == 0 {
		_, err := w.Write(text)
		return err
	}
	i := bytes.Index(text, []byte(decisionsSlot))
	if i < 0 {
		return fmt.Errorf("encoding policy: no place for the decisions in the encoded file (the File type changed?)")
	}
	if _, err := w.Write(text[:i]); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "\n  \"decisions\": [\n"); err != nil {
		return err
	}
	var item bytes.Buffer
	de := json.NewEncoder(&item)
	de.SetIndent("    ", "  ")
	de.SetEscapeHTML(false)
	for k := range f.Decisions {
		d := f.Decisions[k]
		fill(reflect.ValueOf(&d).Elem())
		item.Reset()
		item.WriteString("    ")
		if err := de.Encode(&d); err != nil {
			return fmt.Errorf("encoding policy: decision %d: %w", k, err)
		}
		b := bytes.TrimSuffix(item.Bytes(), []byte("\n"))
		if k < len(f.Decisions)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err := w.Write(append([]byte("  ],\n"), text[i+len(decisionsSlot):]...))
	return err
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
