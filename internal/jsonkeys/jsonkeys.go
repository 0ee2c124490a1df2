// Package jsonkeys finds what encoding/json accepts silently in a JSON
// document: an object that names a member twice (Unmarshal keeps the last
// value, so two readers of one file can disagree on what it says) and
// text that is not UTF-8 (Unmarshal replaces it with U+FFFD, so a name
// changes on the way in). Readers of coloc's JSON inputs call Check before
// decoding and refuse the file. It imports only the standard library.
package jsonkeys

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
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

// frame is an object or array being read.
type frame struct {
	obj     bool
	path    string
	keys    map[string]bool // of an object
	key     string          // of an object: the member whose value is next
	wantKey bool            // of an object: a member name (or '}') is next
	n       int             // of an array: the index of the next element
}

// Check returns the first duplicate member name or invalid UTF-8 of data,
// or nil. It stops at a syntax error without reporting it: the caller's
// decoder reports that with its own words.
func Check(data []byte) *Problem {
	bad := invalidUTF8(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*frame
	top := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return stack[len(stack)-1]
	}
	// done records that a value of the innermost container was read.
	done := func() {
		if f := top(); f != nil {
			if f.obj {
				f.wantKey = true
			} else {
				f.n++
			}
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			break // io.EOF, or a syntax error the caller reports
		}
		end := dec.InputOffset()
		f := top()
		if f != nil && f.obj && f.wantKey {
			if tok == json.Delim('}') {
				stack = stack[:len(stack)-1]
				done()
				continue
			}
			key, _ := tok.(string)
			path := member(f.path, key)
			if bad >= 0 && end > bad {
				return &Problem{Path: path, Line: lineOf(data, bad), Msg: "member name is not UTF-8 text"}
			}
			if f.keys[key] {
				return &Problem{Path: path, Line: lineOf(data, end), Msg: fmt.Sprintf("member %q appears twice in one object", key)}
			}
			f.keys[key], f.key, f.wantKey = true, key, false
			continue
		}
		var path string
		switch {
		case f == nil:
		case f.obj:
			path = member(f.path, f.key)
		default:
			path = f.path + "[" + strconv.Itoa(f.n) + "]"
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, path: path, keys: map[string]bool{}, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{path: path})
			continue
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			done()
			continue
		}
		if bad >= 0 && end > bad {
			return &Problem{Path: path, Line: lineOf(data, bad), Msg: "not UTF-8 text"}
		}
		done()
	}
	if bad >= 0 {
		return &Problem{Line: lineOf(data, bad), Msg: "not UTF-8 text"}
	}
	return nil
}

func member(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// invalidUTF8 returns the offset of the first byte of data that is not
// part of valid UTF-8, or -1.
func invalidUTF8(data []byte) int64 {
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
