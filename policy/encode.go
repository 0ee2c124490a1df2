package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/coloc-dev/coloc/internal/atomicfile"
)

// Encode validates f as Decode would and returns its file bytes: indented
// JSON, members in the order of the Go types, a required list that is nil
// written as [] (never null). f is not changed.
func Encode(f *File) ([]byte, error) {
	if _, err := New(f, "policy"); err != nil {
		return nil, fmt.Errorf("encoding an invalid policy: %w", err)
	}
	g := *f
	fill(reflect.ValueOf(&g).Elem())
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // reasons say ">= 0.8", not "\u003e= 0.8"
	if err := enc.Encode(&g); err != nil {
		return nil, fmt.Errorf("encoding policy: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteFile writes f to path atomically (see Encode).
func WriteFile(path string, f *File) error {
	b, err := Encode(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.WriteBytes(path, b)
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
