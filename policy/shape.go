package policy

import (
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The shape of a policy file is the JSON form of File: every object has
// exactly the members of its Go struct's json tags (a member is required
// unless its tag says omitempty), every value has the JSON type of its Go
// field, and null stands only for a *float64. policy.schema.json states
// the same, and a test holds the two together.

// member is one JSON member of a struct type.
type member struct {
	Name     string
	Required bool
	Type     reflect.Type
	index    int
}

var membersCache sync.Map // reflect.Type -> []member

// members returns the JSON members of struct type t, in field order.
func members(t reflect.Type) []member {
	if ms, ok := membersCache.Load(t); ok {
		return ms.([]member)
	}
	var out []member
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out = append(out, member{Name: name, Required: !hasOpt(opts, "omitempty"), Type: f.Type, index: i})
	}
	membersCache.Store(t, out)
	return out
}

func hasOpt(opts, want string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// checkShape reports where v, a value decoded with UseNumber, is not of
// Go type t.
func checkShape(v any, t reflect.Type, path string, ps *problems) {
	if t.Kind() == reflect.Pointer {
		if v == nil && t.Elem().Kind() == reflect.Struct {
			ps.add(path, "null, want an object (or no member)")
			return
		}
		if v != nil {
			checkShape(v, t.Elem(), path, ps)
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			ps.add(path, "%s, want an object", jsonKind(v))
			return
		}
		ms := members(t)
		known := make(map[string]bool, len(ms))
		for _, m := range ms {
			known[m.Name] = true
			x, present := obj[m.Name]
			if !present {
				if m.Required {
					ps.add(path, "missing required member %q", m.Name)
				}
				continue
			}
			checkShape(x, m.Type, at(path, m.Name), ps)
		}
		var unknown []string
		for k := range obj {
			if !known[k] {
				unknown = append(unknown, k)
			}
		}
		sort.Strings(unknown)
		for _, k := range unknown {
			ps.add(at(path, k), "unknown member (a typo? the members here are %s)", memberNames(ms))
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			ps.add(path, "%s, want an array", jsonKind(v))
			return
		}
		for i, x := range arr {
			checkShape(x, t.Elem(), elem(path, i), ps)
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			ps.add(path, "%s, want a string", jsonKind(v))
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			ps.add(path, "%s, want a boolean", jsonKind(v))
		}
	case reflect.Int:
		n, ok := v.(json.Number)
		if !ok {
			ps.add(path, "%s, want an integer", jsonKind(v))
			return
		}
		if _, err := strconv.ParseInt(string(n), 10, strconv.IntSize); err != nil {
			ps.add(path, "%s is not an integer in range", n)
		}
	case reflect.Float64:
		n, ok := v.(json.Number)
		if !ok {
			ps.add(path, "%s, want a number", jsonKind(v))
			return
		}
		if f, err := strconv.ParseFloat(string(n), 64); err != nil || math.IsInf(f, 0) {
			ps.add(path, "number %s is out of range", n)
		}
	}
}

func memberNames(ms []member) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

// jsonKind describes a decoded JSON value for a message.
func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return strconv.Quote(x) + " is a string"
	case json.Number:
		return string(x) + " is a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a value"
}
