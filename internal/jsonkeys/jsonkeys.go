// Package jsonkeys finds what encoding/json accepts silently in a JSON
// document: an object that names a member twice (Unmarshal keeps the last
// value, so two readers of one file can disagree on what it says) and
// text that is not UTF-8 (Unmarshal replaces it with U+FFFD, so a name
// changes on the way in). Readers of coloc's JSON inputs call Check before
// decoding and refuse the file, or Decode, which also refuses members the
// reader has no field for and anything after the document, and says on
// which line a syntax or type error is. It imports only the standard
// library.
package jsonkeys

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Problem is the first duplicate member or invalid UTF-8 of a document.
// Path is the JSON path of the member or value (member names joined by
// dots, array indices in brackets: "decisions[3].job"; "" for the whole
// document); Line is 1-based.
type Problem struct {
	Path string
	Line int
	Msg  string
}

func (p *Problem) Error() string {
	if p.Path == "" {
		return fmt.Sprintf("line %d: %s", p.Line, p.Msg)
	}
	return fmt.Sprintf("line %d: %s: %s", p.Line, p.Path, p.Msg)
}

// Check returns the first duplicate member name or invalid UTF-8 of data,
// or nil. It is meant for a document the caller's decoder accepted: on a
// syntax error it stops without reporting it (the decoder reports that in
// its own words), and it never fails on any input.
//
// It scans the bytes once, keeping the member names of each open object,
// and builds a path only for the problem it returns, so it costs a small
// fraction of decoding the document.
func Check(data []byte) *Problem {
	c := &checker{data: data, bad: invalidUTF8(data)}
	if p := c.value(); p != nil {
		return p
	}
	if c.bad >= 0 {
		return &Problem{Line: lineOf(data, c.bad), Msg: "not UTF-8 text"}
	}
	return nil
}

// Decode decodes the JSON document data into v strictly: a member v has no
// field for (named by encoding/json's error, without a line), anything
// after the document, a member named twice and text that is not UTF-8 are
// refused; a syntax or type error names its line.
func Decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = fmt.Errorf("line %d: data after the JSON document", lineOf(data, dec.InputOffset()))
	}
	if errors.Is(err, io.EOF) {
		return errors.New("no JSON document: the file is empty")
	}
	if err != nil {
		return withLine(data, err)
	}
	if p := Check(data); p != nil {
		return p
	}
	return nil
}

// Head reads the "format" and "version" members of a versioned document
// and nothing else, leniently: a file of a later version may hold members
// this reader has no field for, and should be refused by its number
// before Decode refuses them one by one.
func Head(data []byte) (format string, version int, err error) {
	var h struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return "", 0, withLine(data, err)
	}
	return h.Format, h.Version, nil
}

// withLine puts the line of a syntax or type error before it.
func withLine(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("line %d: %w", lineOf(data, syn.Offset), err)
	case errors.As(err, &typ):
		return fmt.Errorf("line %d: %w", lineOf(data, typ.Offset), err)
	}
	return err
}

// step is one step of a JSON path: a member name, or an array index when
// key is nil.
type step struct {
	key   []byte
	index int
}

type checker struct {
	data []byte
	i    int
	bad  int64 // offset of the first byte that is not UTF-8, or -1
	path []step
}

func (c *checker) pathString() string {
	var b strings.Builder
	for _, s := range c.path {
		if s.key == nil {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strings.ToValidUTF8(string(s.key), "\uFFFD"))
	}
	return b.String()
}

func (c *checker) space() {
	for c.i < len(c.data) {
		switch c.data[c.i] {
		case ' ', '\t', '\r', '\n':
			c.i++
		default:
			return
		}
	}
}

// covers reports whether the first invalid byte lies in data[from:c.i].
func (c *checker) covers(from int) bool {
	return c.bad >= int64(from) && c.bad < int64(c.i)
}

// value checks the value at c.i and moves past it.
func (c *checker) value() *Problem {
	c.space()
	if c.i >= len(c.data) {
		return nil
	}
	switch c.data[c.i] {
	case '{':
		return c.object()
	case '[':
		return c.array()
	case '"':
		from := c.i
		c.str()
		if c.covers(from) {
			return &Problem{Path: c.pathString(), Line: lineOf(c.data, c.bad), Msg: "not UTF-8 text"}
		}
	default: // a number, true, false or null
		for c.i < len(c.data) && !bytes.ContainsRune([]byte(",:]} \t\r\n"), rune(c.data[c.i])) {
			c.i++
		}
	}
	return nil
}

// str moves past the string at c.i.
func (c *checker) str() {
	for c.i++; c.i < len(c.data); c.i++ {
		switch c.data[c.i] {
		case '\\':
			c.i++
		case '"':
			c.i++
			return
		}
	}
}

func (c *checker) object() *Problem {
	c.i++
	var (
		keys [][]byte
		set  map[string]bool
	)
	for {
		c.space()
		if c.i >= len(c.data) {
			return nil
		}
		switch c.data[c.i] {
		case '}':
			c.i++
			return nil
		case ',':
			c.i++
			continue
		case '"':
		default:
			return nil // a syntax error: the caller's decoder reports it
		}
		from := c.i
		c.str()
		key := memberName(c.data[from:c.i])
		c.path = append(c.path, step{key: key})
		if c.covers(from) {
			return &Problem{Path: c.pathString(), Line: lineOf(c.data, c.bad), Msg: "member name is not UTF-8 text"}
		}
		if seen(&keys, &set, key) {
			return &Problem{Path: c.pathString(), Line: lineOf(c.data, int64(c.i)), Msg: fmt.Sprintf("member %q appears twice in one object", key)}
		}
		c.space()
		if c.i >= len(c.data) || c.data[c.i] != ':' {
			return nil
		}
		c.i++
		at := c.i
		if p := c.value(); p != nil {
			return p
		}
		if c.i == at {
			return nil // no value: a syntax error
		}
		c.path = c.path[:len(c.path)-1]
	}
}

func (c *checker) array() *Problem {
	c.i++
	for n := 0; ; {
		c.space()
		if c.i >= len(c.data) {
			return nil
		}
		switch c.data[c.i] {
		case ']':
			c.i++
			return nil
		case ',':
			c.i++
			continue
		}
		c.path = append(c.path, step{index: n})
		at := c.i
		if p := c.value(); p != nil {
			return p
		}
		if c.i == at {
			return nil // no value: a syntax error
		}
		c.path = c.path[:len(c.path)-1]
		n++
	}
}

// smallObject is the number of members kept in a list; an object with
// more moves them to a map (a list is cheaper for the few members of most
// objects, a map keeps a hostile object of a million members linear).
const smallObject = 16

// seen reports whether key is among the names kept so far, and adds it.
func seen(keys *[][]byte, set *map[string]bool, key []byte) bool {
	if *set != nil {
		if (*set)[string(key)] {
			return true
		}
		(*set)[string(key)] = true
		return false
	}
	for _, k := range *keys {
		if bytes.Equal(k, key) {
			return true
		}
	}
	*keys = append(*keys, key)
	if len(*keys) > smallObject {
		*set = make(map[string]bool, 2*len(*keys))
		for _, k := range *keys {
			(*set)[string(k)] = true
		}
		*keys = nil
	}
	return false
}

// memberName returns the name a quoted member name stands for: the bytes
// between the quotes, decoded when they hold an escape.
func memberName(quoted []byte) []byte {
	if len(quoted) < 2 {
		return quoted
	}
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return inner
	}
	return []byte(s)
}

// invalidUTF8 returns the offset of the first byte of data that is not
// part of valid UTF-8, or -1.
func invalidUTF8(data []byte) int64 {
	if utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return int64(i)
		}
		i += size
	}
	return -1
}

// lineOf returns the 1-based line of a byte offset.
func lineOf(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}
