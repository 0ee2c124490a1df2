package jsonkeys

import "testing"

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
