package textlist

import "testing"

func TestHead(t *testing.T) {
	abcd := []string{"a", "b", "c", "d"}
	for _, c := range []struct {
		items []string
		n     int
		sep   string
		want  string
	}{
		{nil, 3, ", ", ""},
		{abcd, 4, ", ", "a, b, c, d"},
		{abcd, 5, "; ", "a; b; c; d"},
		{abcd, 2, ", ", "a, b and 2 more"},
		{abcd, 3, "; ", "a; b; c and 1 more"},
	} {
		if got := Head(c.items, c.n, c.sep); got != c.want {
			t.Errorf("Head(%q, %d, %q) = %q, want %q", c.items, c.n, c.sep, got, c.want)
		}
	}
}
