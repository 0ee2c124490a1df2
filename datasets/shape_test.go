package datasets

import "testing"

func TestSpreadTypeRoundTrip(t *testing.T) {
	if got := SpreadType("v100"); got != "v100_unconsolidated" {
		t.Errorf("SpreadType(v100) = %q", got)
	}
	for in, want := range map[string]struct {
		t      string
		spread bool
	}{"v100_unconsolidated": {"v100", true}, "v100": {"v100", false}, "a100-80gb": {"a100-80gb", false}} {
		if g, s := BaseType(in); g != want.t || s != want.spread {
			t.Errorf("BaseType(%q) = %q %v, want %q %v", in, g, s, want.t, want.spread)
		}
	}
}

// A shape's name reads back as the shape, for device types that look like
// degrees too; the "@" form is read for any type.
func TestShapeNames(t *testing.T) {
	for _, c := range []struct {
		sh   Shape
		name string
	}{
		{Shape{"v100", 1, false}, "v100"},
		{Shape{"v100", 2, false}, "v100x2"},
		{Shape{"v100", 4, true}, "v100_unconsolidatedx4"},
		{Shape{"a100-80gb", 8, false}, "a100-80gbx8"},
		{Shape{"rtx3090", 1, false}, "rtx3090@1"},
		{Shape{"rtx3090", 2, false}, "rtx3090@2"},
		{Shape{"rtx3090", 2, true}, "rtx3090_unconsolidatedx2"},
		{Shape{"x2", 1, false}, "x2"},
		{Shape{"gpux02", 3, false}, "gpux02x3"},
		{Shape{"a@b", 1, false}, "a@b@1"},
	} {
		if got := c.sh.String(); got != c.name {
			t.Errorf("%+v: name %q, want %q", c.sh, got, c.name)
		}
		if got, err := ParseShape(c.name); err != nil || got != c.sh {
			t.Errorf("ParseShape(%q) = %+v, %v; want %+v", c.name, got, err, c.sh)
		}
	}
	if got, err := ParseShape("v100@2"); err != nil || got != (Shape{"v100", 2, false}) {
		t.Errorf(`ParseShape("v100@2") = %+v, %v`, got, err)
	}
	if sh := (Shape{"v100", 1, true}); sh.String() != "v100_unconsolidated" {
		t.Errorf("one GPU spread: name %q, want v100_unconsolidated as the tables spell it", sh.String())
	}
	for _, bad := range []string{"", "v100@", "v100@0", "v100@x", "@2", "v100@-1"} {
		if _, err := ParseShape(bad); err == nil {
			t.Errorf("ParseShape(%q): no error", bad)
		}
	}
}

// Every name ParseShape reads names a shape whose own name reads back as
// it.
func FuzzParseShape(f *testing.F) {
	for _, s := range []string{"v100", "v100x2", "rtx3090", "rtx3090@2", "v100_unconsolidatedx4", "a@b@1", "x2", "gx0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		sh, err := ParseShape(name)
		if err != nil {
			return
		}
		back, err := ParseShape(sh.String())
		if err != nil || back != sh {
			t.Fatalf("%q -> %+v named %q -> %+v, %v", name, sh, sh.String(), back, err)
		}
	})
}
