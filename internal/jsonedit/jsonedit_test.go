package jsonedit

import "testing"

func TestEdit(t *testing.T) {
	in := []byte(`{"a":[{"b":1},{"b":2}],"c":{"d":"x"},"n":0.1000000000000000055511151231257827}`)
	tests := []struct {
		edits []any
		want  string
	}{
		{[]any{"a[1].b", 3}, `{"a":[{"b":1},{"b":3}],"c":{"d":"x"},"n":0.1000000000000000055511151231257827}`},
		{[]any{"c.d", Delete}, `{"a":[{"b":1},{"b":2}],"c":{},"n":0.1000000000000000055511151231257827}`},
		{[]any{"a[0]", Delete}, `{"a":[{"b":2}],"c":{"d":"x"},"n":0.1000000000000000055511151231257827}`},
		{[]any{"c.e", []any{}, "a[0].b", nil}, `{"a":[{"b":null},{"b":2}],"c":{"d":"x","e":[]},"n":0.1000000000000000055511151231257827}`},
	}
	for _, tc := range tests {
		got, err := Edit(in, tc.edits...)
		if err != nil {
			t.Errorf("%v: %v", tc.edits, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%v:\n got %s\nwant %s", tc.edits, got, tc.want)
		}
	}
	for _, bad := range [][]any{{"a[2].b", 1}, {"x.y", 1}, {"c[0]", 1}, {"a.b", 1}, {"a[1"}, {"a[0].b"}} {
		if _, err := Edit(in, bad...); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
