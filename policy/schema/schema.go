// Package schema checks policy files against their JSON Schema
// (policy.schema.json, carried by package policy) with a pure-Go JSON
// Schema validator (santhosh-tekuri/jsonschema, draft 2020-12, formats
// asserted). Validate reports a file's schema violations; Check is
// `coloc policy validate`: the schema's problems and those of policy.Load's
// content checks, each fault once. It lives apart from package policy so
// that schedulers importing policy do not import the validator.
package schema

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/coloc-dev/coloc/policy"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// url names the schema inside the validator (its $id).
const url = "urn:coloc:policy:1"

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(policy.Schema()))
	if err != nil {
		return nil, fmt.Errorf("policy.schema.json: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("policy.schema.json: %w", err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("policy.schema.json: %w", err)
	}
	return s, nil
})

var printer = message.NewPrinter(language.English)

// Validate checks a policy file's bytes against the schema and returns one
// Problem per violation (file name, JSON path in policy's notation, e.g.
// decisions[3].placement[0].gpus[1], and message), sorted by path; none
// when the file conforms. The error is for a file that is not JSON, or a
// schema that does not compile (a bug of this build).
func Validate(data []byte, name string) ([]policy.Problem, error) {
	s, err := compiled()
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: not JSON: %w", name, err)
	}
	err = s.Validate(doc)
	if err == nil {
		return nil, nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []policy.Problem
	seen := map[policy.Problem]bool{}
	leaves(ve, func(e *jsonschema.ValidationError) {
		p := policy.Problem{File: name, Path: path(doc, e.InstanceLocation), Msg: e.ErrorKind.LocalizedString(printer)}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	})
	sort.SliceStable(out, func(i, j int) bool { return pathLess(out[i].Path, out[j].Path) })
	return out, nil
}

// leaves calls fn for each error of the tree without causes: the
// violations themselves, not the keywords that group them.
func leaves(e *jsonschema.ValidationError, fn func(*jsonschema.ValidationError)) {
	if len(e.Causes) == 0 {
		fn(e)
		return
	}
	for _, c := range e.Causes {
		leaves(c, fn)
	}
}

// path writes a JSON Pointer's tokens in policy's notation, looking at the
// document to tell an array index from a member name.
func path(doc any, tokens []string) string {
	var b strings.Builder
	v := doc
	for _, tok := range tokens {
		switch x := v.(type) {
		case []any:
			fmt.Fprintf(&b, "[%s]", tok)
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(x) {
				v = x[i]
			} else {
				v = nil
			}
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
			if m, ok := x.(map[string]any); ok {
				v = m[tok]
			} else {
				v = nil
			}
		}
	}
	return b.String()
}

// pathLess orders paths as the values come in the file: array indices by
// number ("decisions[2]" before "decisions[10]"), names as strings.
func pathLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, _ := strconv.Atoi(a[:da])
			nb, _ := strconv.Atoi(b[:db])
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

// digits returns the length of the run of decimal digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// Check validates a policy file's bytes as `coloc policy validate` does:
// a file of another format or version is refused by name (that problem
// alone); otherwise the schema's problems and policy.Decode's, leaving out
// a reader problem at or under a path the schema already faults (the same
// fault in other words), all in file order. It returns the loaded policy
// when there is no problem.
func Check(data []byte, name string) (*policy.Policy, []policy.Problem) {
	p, err := policy.Decode(bytes.NewReader(data), name)
	if errors.Is(err, policy.ErrFormat) || errors.Is(err, policy.ErrVersion) {
		return nil, policy.ProblemsOf(err)
	}
	out, serr := Validate(data, name)
	if serr != nil {
		return nil, []policy.Problem{{File: name, Msg: serr.Error()}}
	}
	for _, rp := range policy.ProblemsOf(err) {
		dup := false
		for _, sp := range out {
			dup = dup || within(rp.Path, sp.Path)
		}
		if !dup {
			out = append(out, rp)
		}
	}
	if len(out) > 0 {
		sort.SliceStable(out, func(i, j int) bool { return pathLess(out[i].Path, out[j].Path) })
		return nil, out
	}
	return p, nil
}

// within reports whether path g lies at or under path s.
func within(g, s string) bool {
	return s == "" || g == s || strings.HasPrefix(g, s+".") || strings.HasPrefix(g, s+"[")
}
