package jsonkeys

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name, in string
		want     *Problem // nil: no problem
	}{
		{"clean", `{"a": 1, "b": [{"a": 2}, {"a": 3}], "c": {"a": {"a": 4}}}`, nil},
		{"same name in two objects", `[{"x": 1}, {"x": 2}]`, nil},
		{"top duplicate", "{\"a\": 1,\n \"a\": 2}", &Problem{Path: "a", Line: 2, Msg: `member "a" appears twice in one object`}},
		{"nested duplicate", "{\"d\": [\n {\"j\": 1},\n {\"j\": 1, \"k\": [], \"j\": 2}]}", &Problem{Path: "d[1].j", Line: 3, Msg: `member "j" appears twice in one object`}},
		{"after an array", `{"a": [1, [2, 3], {"b": 1}], "c": {"x": 1, "x": 1}}`, &Problem{Path: "c.x", Line: 1, Msg: `member "x" appears twice in one object`}},
		{"bad value", "{\"a\": \"ok\",\n \"b\": [\"x\xffy\"]}", &Problem{Path: "b[0]", Line: 2, Msg: "not UTF-8 text"}},
		{"bad name", "{\"a\xc3\": 1}", &Problem{Path: "a\uFFFD", Line: 1, Msg: "member name is not UTF-8 text"}},
		{"bad outside strings", "{\"a\": 1}\n\xff", &Problem{Line: 2, Msg: "not UTF-8 text"}},
		{"syntax error is the caller's", `{"a": [1,}`, nil},
		{"escaped names differ", `{"a": 1, "\u0061b": 2}`, nil},
		{"escaped name equal", `{"a": 1, "\u0061": 2}`, &Problem{Path: "a", Line: 1, Msg: `member "a" appears twice in one object`}},
	}
	for _, tc := range tests {
		got := Check([]byte(tc.in))
		switch {
		case tc.want == nil && got != nil:
			t.Errorf("%s: %v, want no problem", tc.name, got)
		case tc.want != nil && (got == nil || *got != *tc.want):
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestCheckLargeObject(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 100 {
		fmt.Fprintf(&b, "%q: %d, ", "k"+strconv.Itoa(i), i)
	}
	b.WriteString(`"k42": 0}`)
	if p := Check([]byte(b.String())); p == nil || p.Path != "k42" {
		t.Errorf("%v, want k42 twice", p)
	}
	if p := Check([]byte(strings.Replace(b.String(), `"k42": 0`, `"k100": 0`, 1))); p != nil {
		t.Errorf("%v, want no problem", p)
	}
}

// reference finds the first duplicate member of a valid JSON document
// with encoding/json's tokenizer: slow, but plainly right.
func reference(data []byte) (string, bool) {
	type frame struct {
		obj     bool
		path    string
		keys    map[string]bool
		key     string
		wantKey bool
		n       int
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []*frame
	done := func() {
		if len(stack) > 0 {
			if f := stack[len(stack)-1]; f.obj {
				f.wantKey = true
			} else {
				f.n++
			}
		}
	}
	join := func(path, key string) string {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		var f *frame
		if len(stack) > 0 {
			f = stack[len(stack)-1]
		}
		if f != nil && f.obj && f.wantKey {
			if tok == json.Delim('}') {
				stack = stack[:len(stack)-1]
				done()
				continue
			}
			key := tok.(string)
			if f.keys[key] {
				return join(f.path, key), true
			}
			f.keys[key], f.key, f.wantKey = true, key, false
			continue
		}
		path := ""
		if f != nil && f.obj {
			path = join(f.path, f.key)
		} else if f != nil {
			path = f.path + "[" + strconv.Itoa(f.n) + "]"
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, path: path, keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{path: path})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			done()
		default:
			done()
		}
	}
}

// FuzzCheck: Check never fails, and on valid UTF-8 JSON it finds the
// duplicate the tokenizer finds.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a": 1, "a": 2}`, `[{"x": [1, {"y": 2, "y": 3}]}]`, `{"a\u0062": 1, "ab": 2}`, `"x"`, `{"a": {"b": []}, "c": 1}`, "{\"a\xff\": 1}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := Check(data)
		if !json.Valid(data) || !utf8.Valid(data) {
			return
		}
		want, dup := reference(data)
		switch {
		case !dup && p != nil:
			t.Fatalf("Check: %v; the tokenizer finds no duplicate", p)
		case dup && (p == nil || p.Path != want):
			t.Fatalf("Check: %v; the tokenizer finds %s twice", p, want)
		}
	})
}

// Decode refuses what a strict reader must, each error with its line;
// Head reads the format and version whatever else the document holds.
func TestDecode(t *testing.T) {
	type doc struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
		N       int    `json:"n"`
	}
	var d doc
	if err := Decode([]byte("{\"format\": \"f\",\n \"version\": 2, \"n\": 3}\n"), &d); err != nil || d != (doc{"f", 2, 3}) {
		t.Fatalf("a good document: %+v, %v", d, err)
	}
	for _, c := range []struct{ name, text, want string }{
		{"unknown member", "{\"n\": 1,\n \"m\": 2}", `unknown field "m"`},
		{"member twice", "{\"n\": 1,\n \"n\": 2}", `line 2: n: member "n" appears twice`},
		{"trailing data", "{\"n\": 1}\n{}", "line 2: data after the JSON document"},
		{"syntax", "{\"n\": 1,\n\n ]", "line 3"},
		{"type", "{\n\"n\": \"x\"}", "line 2"},
		{"empty", "", "the file is empty"},
	} {
		err := Decode([]byte(c.text), new(doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	f, v, err := Head([]byte(`{"format": "f", "version": 9, "later": {"x": 1}}`))
	if err != nil || f != "f" || v != 9 {
		t.Errorf("Head = %q, %d, %v", f, v, err)
	}
	if _, _, err := Head([]byte("{\n\"version\": \"9\"}")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("Head of a string version: %v", err)
	}
}
