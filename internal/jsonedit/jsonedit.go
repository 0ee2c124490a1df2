// Package jsonedit edits decoded JSON documents by path, for tests that
// mutate a valid file to check that a reader refuses the result. A path is
// written as policy problems name values: member names joined by dots,
// array indices in brackets ("decisions[3].placement[0].gpus[1]"). It
// imports only the standard library.
package jsonedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Delete, as the value of Set, removes the member or array element.
var Delete = &struct{ delete bool }{true}

// Decode decodes a JSON document, keeping numbers as json.Number so that
// an unedited number is written back unchanged.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// Set sets the value at path in doc (a decoded document), or removes it
// when value is Delete, and returns the document. The containers on the
// path must exist; the last member of an object may be new.
func Set(doc any, path string, value any) (any, error) {
	toks, err := split(path)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return value, nil
	}
	return doc, set(doc, toks, value, path)
}

func set(v any, toks []string, value any, path string) error {
	tok, last := toks[0], len(toks) == 1
	switch x := v.(type) {
	case map[string]any:
		if strings.HasPrefix(tok, "[") {
			return fmt.Errorf("%s: index %s of an object", path, tok)
		}
		if last {
			if value == Delete {
				delete(x, tok)
			} else {
				x[tok] = value
			}
			return nil
		}
		next, ok := x[tok]
		if !ok {
			return fmt.Errorf("%s: no member %q", path, tok)
		}
		if a, isArr := next.([]any); isArr && len(toks) == 2 && value == Delete {
			i, err := arrIndex(toks[1], len(a), path)
			if err != nil {
				return err
			}
			x[tok] = append(a[:i:i], a[i+1:]...)
			return nil
		}
		return set(next, toks[1:], value, path)
	case []any:
		i, err := arrIndex(tok, len(x), path)
		if err != nil {
			return err
		}
		if last {
			if value == Delete {
				return fmt.Errorf("%s: deleting an element of a top-level array", path)
			}
			x[i] = value
			return nil
		}
		return set(x[i], toks[1:], value, path)
	}
	return fmt.Errorf("%s: %q is inside a value that is neither an object nor an array", path, tok)
}

func arrIndex(tok string, n int, path string) (int, error) {
	i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(tok, "["), "]"))
	if err != nil || !strings.HasPrefix(tok, "[") || i < 0 || i >= n {
		return 0, fmt.Errorf("%s: %s is not an index of an array of %d", path, tok, n)
	}
	return i, nil
}

// split cuts a path into member names and "[i]" tokens.
func split(path string) ([]string, error) {
	var toks []string
	for path != "" {
		switch {
		case path[0] == '[':
			j := strings.IndexByte(path, ']')
			if j < 0 {
				return nil, fmt.Errorf("unclosed [ in path %q", path)
			}
			toks = append(toks, path[:j+1])
			path = path[j+1:]
		case path[0] == '.':
			path = path[1:]
		default:
			j := strings.IndexAny(path, ".[")
			if j < 0 {
				j = len(path)
			}
			toks = append(toks, path[:j])
			path = path[j:]
		}
	}
	return toks, nil
}

// Edit decodes data, applies the edits in order (path, value, path,
// value, ...) and encodes the result.
func Edit(data []byte, edits ...any) ([]byte, error) {
	if len(edits)%2 != 0 {
		return nil, fmt.Errorf("edits come in (path, value) pairs")
	}
	doc, err := Decode(data)
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(edits); i += 2 {
		p, ok := edits[i].(string)
		if !ok {
			return nil, fmt.Errorf("edit %d: the path is a %T", i/2+1, edits[i])
		}
		if doc, err = Set(doc, p, edits[i+1]); err != nil {
			return nil, err
		}
	}
	return json.Marshal(doc)
}
