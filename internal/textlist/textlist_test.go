package textlist

import (
	"strings"
	"testing"
)

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

func TestNearestAndQuote(t *testing.T) {
	names := []string{"resnet50", "resnet18", "transformer", "ResNet-50"}
	got := Nearest("resnet5", names)
	if len(got) != 3 || got[0] != "resnet50" || got[1] != "resnet18" || got[2] != "ResNet-50" {
		t.Errorf("Nearest(resnet5) = %q, want resnet50 (1 edit), then resnet18 and ResNet-50 (2)", got)
	}
	if got := Nearest("lstm", names); len(got) != 0 {
		t.Errorf("Nearest(lstm) = %q, want none within 2 edits", got)
	}
	if got := Quote([]string{"a", "b c"}, " or "); got != `"a" or "b c"` {
		t.Errorf("Quote = %s", got)
	}
}

func TestListsOfNumbers(t *testing.T) {
	got, err := Ints(" 1,2, 8")
	if err != nil || JoinInts(got) != "1,2,8" {
		t.Errorf("Ints: %v %v", got, err)
	}
	if _, err := Ints("1,two"); err == nil {
		t.Error("Ints(1,two): no error")
	}
	fs, err := Shares("--fractions", "0,0.25")
	if err != nil || len(fs) != 2 || fs[1] != 0.25 {
		t.Errorf("Shares: %v %v", fs, err)
	}
	for _, bad := range []string{"1", "-0.1", "x"} {
		if _, err := Shares("--fractions", bad); err == nil || !strings.HasPrefix(err.Error(), "--fractions: ") {
			t.Errorf("Shares(%q): %v", bad, err)
		}
	}
}
