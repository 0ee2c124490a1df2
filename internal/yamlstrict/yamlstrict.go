// Package yamlstrict decodes coloc's YAML inputs (suites, cluster specs,
// job lists) so that what is read is what was written. The YAML library
// alone ignores every document after the first, truncates a fraction
// given for an integer field (gpus: 2.5 becomes 2, degrees: [1.5] becomes
// [1]), and reads digit separators, hexadecimal and octal numbers (1_000,
// 0x10, 0o17) and .inf/.nan. Decode refuses all of these, naming the line
// and the key, and refuses unknown keys as the readers always did.
package yamlstrict

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/coloc-dev/coloc/internal/strictnum"
	"go.yaml.in/yaml/v3"
)

// Decode decodes the one YAML document of data into v, a pointer, with
// unknown keys refused. It returns io.EOF when data holds no document.
func Decode(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		return err
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return err
	default:
		return fmt.Errorf("line %d: a second YAML document (after ---); the file must hold one", max(next.Line, 1))
	}
	if err := check(&root, reflect.TypeOf(v), "", 0); err != nil {
		return err
	}
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	return strict.Decode(v)
}

// maxDepth bounds the nesting check walks; coloc's formats are a few
// levels deep.
const maxDepth = 64

// check walks n beside the Go type t it will be decoded into: every
// number must be a plain decimal, and a number for an integer field an
// integer. key names the mapping key above n, for messages.
func check(n *yaml.Node, t reflect.Type, key string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("line %d: nested more than %d levels deep", n.Line, maxDepth)
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := check(c, t, key, depth+1); err != nil {
				return err
			}
		}
	case yaml.AliasNode:
		return fmt.Errorf("line %d: %saliases (*name) are not read; write the value out", n.Line, where(key))
	case yaml.ScalarNode:
		return scalar(n, t, key)
	case yaml.SequenceNode:
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for _, c := range n.Content {
			if err := check(c, elem, key, depth+1); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if err := check(k, nil, key, depth+1); err != nil {
				return err
			}
			if err := check(v, fieldType(t, k.Value), k.Value, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func scalar(n *yaml.Node, t reflect.Type, key string) error {
	tag := n.ShortTag()
	if tag != "!!int" && tag != "!!float" {
		return nil
	}
	if !strictnum.IsDecimal(n.Value) {
		return fmt.Errorf("line %d: %s%s is not a plain decimal number (no digit separators, hexadecimal, octal or infinities)", n.Line, where(key), n.Value)
	}
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !strictnum.IsInteger(n.Value) {
			return fmt.Errorf("line %d: %s%s is not a whole number", n.Line, where(key), n.Value)
		}
	}
	return nil
}

func where(key string) string {
	if key == "" {
		return ""
	}
	return key + ": "
}

// fieldType is the type a mapping value under key decodes into: the
// struct field of that YAML name (its tag's name, or its name in lower
// case), a map's value type, or nil when unknown (the decoder then
// refuses an unknown key itself).
func fieldType(t reflect.Type, key string) reflect.Type {
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Map:
		return t.Elem()
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if strings.Contains(opts, "inline") {
				if ft := fieldType(f.Type, key); ft != nil {
					return ft
				}
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			if name == key && name != "-" {
				return f.Type
			}
		}
	}
	return nil
}
