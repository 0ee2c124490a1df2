package strictnum

import "testing"

func TestSyntax(t *testing.T) {
	good := map[string]bool{"0": true, "12": true, "-3": true, "+4": true, "1.5": false, ".5": false, "5.": false, "1e3": false, "-2.5E-7": false, "007": true}
	for s, integral := range good {
		if !IsDecimal(s) || IsInteger(s) != integral {
			t.Errorf("%q: decimal %v, integer %v; want decimal, integer %v", s, IsDecimal(s), IsInteger(s), integral)
		}
	}
	for _, s := range []string{"", "-", ".", "1_000", "0x10", "0o17", "0b1", "0x1p3", "Inf", "-inf", "NaN", ".inf", "1e", "1e+", "1.2.3", " 1", "1 ", "1,5", "١"} {
		if IsDecimal(s) {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestParse(t *testing.T) {
	if v, err := ParseFloat("2.5e2"); err != nil || v != 250 {
		t.Errorf("2.5e2: %v %v", v, err)
	}
	if _, err := ParseFloat("1e400"); err == nil {
		t.Error("1e400 accepted")
	}
	if v, err := ParseInt("-42"); err != nil || v != -42 {
		t.Errorf("-42: %v %v", v, err)
	}
	for _, s := range []string{"1.0", "1e3", "99999999999999999999"} {
		if _, err := ParseInt(s); err == nil {
			t.Errorf("ParseInt(%q) accepted", s)
		}
	}
}
