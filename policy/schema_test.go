package policy

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestSchemaMatchesTypes holds policy.schema.json and the Go types
// together, both ways: every struct is an object with
// additionalProperties false whose properties are exactly the struct's
// json members, required exactly when the tag has no omitempty, and every
// value has the JSON type of its Go field, down to the leaves.
func TestSchemaMatchesTypes(t *testing.T) {
	var root map[string]any
	if err := json.Unmarshal(Schema(), &root); err != nil {
		t.Fatalf("policy.schema.json: %v", err)
	}
	if root["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema %v, want draft 2020-12", root["$schema"])
	}
	props := root["properties"].(map[string]any)
	if f := props["format"].(map[string]any); f["const"] != Format {
		t.Errorf("schema format const %v, want %q", f["const"], Format)
	}
	var versions []any
	for v := MinVersion; v <= Version; v++ {
		versions = append(versions, float64(v))
	}
	if v := props["version"].(map[string]any); !reflect.DeepEqual(v["enum"], versions) {
		t.Errorf("schema version enum %v, want %v", v["enum"], versions)
	}
	n := agree(t, root, root, reflect.TypeFor[File](), "File")
	if n < 10 {
		t.Errorf("only %d structs compared", n)
	}
}

// agree compares the schema node s with Go type typ and returns the number
// of struct types compared.
func agree(t *testing.T, root, s map[string]any, typ reflect.Type, where string) int {
	t.Helper()
	s = deref(t, root, s, where)
	switch typ.Kind() {
	case reflect.Struct:
		if s["type"] != "object" || s["additionalProperties"] != false {
			t.Errorf("%s: schema type %v, additionalProperties %v; want object, false", where, s["type"], s["additionalProperties"])
		}
		props, _ := s["properties"].(map[string]any)
		var required []string
		for _, r := range asList(s["required"]) {
			required = append(required, r.(string))
		}
		n := 1
		var names, wantRequired []string
		for _, m := range members(typ) {
			names = append(names, m.Name)
			if m.Required {
				wantRequired = append(wantRequired, m.Name)
			}
			ps, ok := props[m.Name].(map[string]any)
			if !ok {
				t.Errorf("%s.%s: in the Go type, not in the schema", where, m.Name)
				continue
			}
			n += agree(t, root, ps, m.Type, where+"."+m.Name)
		}
		for name := range props {
			if !slices.Contains(names, name) {
				t.Errorf("%s.%s: in the schema, not in the Go type", where, name)
			}
		}
		sort.Strings(required)
		sort.Strings(wantRequired)
		if !slices.Equal(required, wantRequired) {
			t.Errorf("%s: schema requires %v, the Go type (members without omitempty) %v", where, required, wantRequired)
		}
		// Conditional parts may only name members of the type.
		for _, c := range conditionals(s) {
			cp, _ := c["properties"].(map[string]any)
			for name := range cp {
				if !slices.Contains(names, name) {
					t.Errorf("%s: a conditional names %q, not a member", where, name)
				}
			}
			for _, r := range asList(c["required"]) {
				if !slices.Contains(names, r.(string)) {
					t.Errorf("%s: a conditional requires %q, not a member", where, r)
				}
			}
		}
		return n
	case reflect.Slice:
		if s["type"] != "array" {
			t.Errorf("%s: schema type %v, want array", where, s["type"])
			return 0
		}
		items, ok := s["items"].(map[string]any)
		if !ok {
			t.Errorf("%s: array without items", where)
			return 0
		}
		return agree(t, root, items, typ.Elem(), where+"[]")
	case reflect.Pointer:
		if typ.Elem().Kind() == reflect.Struct {
			return agree(t, root, s, typ.Elem(), where) // absent, never null
		}
		types := asList(s["type"])
		want := jsonType(typ.Elem())
		if len(types) != 2 || !slices.Contains(types, any("null")) || !slices.Contains(types, any(want)) {
			t.Errorf("%s: schema type %v, want [%s, null]", where, s["type"], want)
		}
		return 0
	default:
		if want := jsonType(typ); s["type"] != want {
			t.Errorf("%s: schema type %v, want %s (Go %s)", where, s["type"], want, typ)
		}
		return 0
	}
}

// deref follows a local $ref ("#/$defs/name").
func deref(t *testing.T, root, s map[string]any, where string) map[string]any {
	ref, ok := s["$ref"].(string)
	if !ok {
		return s
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	def, found := root["$defs"].(map[string]any)[name].(map[string]any)
	if !ok || !found {
		t.Fatalf("%s: $ref %q does not resolve", where, ref)
	}
	return def
}

// conditionals returns the if/then/else schemas of s and of its allOf.
func conditionals(s map[string]any) []map[string]any {
	var out []map[string]any
	parts := []map[string]any{s}
	for _, a := range asList(s["allOf"]) {
		parts = append(parts, a.(map[string]any))
	}
	for _, p := range parts {
		for _, k := range []string{"if", "then", "else"} {
			if c, ok := p[k].(map[string]any); ok {
				out = append(out, c)
			}
		}
	}
	return out
}

func asList(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case nil:
		return nil
	}
	return []any{v}
}

func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int:
		return "integer"
	case reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	}
	return "unknown Go kind " + t.Kind().String()
}
