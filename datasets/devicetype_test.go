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
