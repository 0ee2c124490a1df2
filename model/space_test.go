package model

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseSlot(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Slot
		err  string
	}{
		{in: "v100", want: Slot{"v100", 1}},
		{in: "rtx3090", want: Slot{"rt", 3090}}, // its name is rtx3090@1; Space.Slot also finds the bare name
		{in: "rtx6000", want: Slot{"rt", 6000}},
		{in: "a100-80gb", want: Slot{"a100-80gb", 1}},
		{in: "l40s", want: Slot{"l40s", 1}},
		{in: "h200", want: Slot{"h200", 1}},
		{in: "rtx-3090", want: Slot{"rtx-3090", 1}},
		{in: "v100x2", want: Slot{"v100", 2}},
		{in: "v100_unconsolidatedx4", want: Slot{"v100_unconsolidated", 4}},
		{in: "v100x2@1", want: Slot{"v100x2", 1}},
		{in: "rtx3090@2", want: Slot{"rtx3090", 2}},
		{in: "a@b@4", want: Slot{"a@b", 4}},
		{in: "", err: "empty"},
		{in: "@2", err: "<device type>@<degree>"},
		{in: "v100@0", err: "positive"},
		{in: "v100@x", err: "positive"},
	} {
		got, err := parseSlot(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseSlot(%q) error %v, want one containing %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("parseSlot(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestSpaceSlotNames(t *testing.T) {
	sp := &Space{Slots: []Slot{
		{"a100-80gb", 1}, {"h200", 1}, {"h200", 8}, {"l40s", 1}, {"rtx3090", 1}, {"rtx3090", 2},
		{"rtx6000", 1}, {"v100", 1}, {"v100", 2}, {"v100x2", 1},
	}}
	names := map[string]bool{}
	for i, s := range sp.Slots {
		// Every slot is found by its explicit name and by its name, and no
		// two slots share a name (v100 at 2 GPUs is v100x2, device type
		// v100x2 at one GPU v100x2@1).
		if got, err := sp.Slot(s.DeviceType + "@" + itoa(s.Degree)); err != nil || got != i {
			t.Errorf("Slot(%s@%d) = %d, %v; want %d", s.DeviceType, s.Degree, got, err, i)
		}
		if got, err := sp.Slot(s.String()); err != nil || got != i {
			t.Errorf("Slot(%s) = %d, %v; want %d", s, got, err, i)
		}
		if names[s.String()] {
			t.Errorf("two slots named %s", s)
		}
		names[s.String()] = true
	}
	// A type that ends in digits after an x is found by its bare name at
	// one GPU too.
	if got, err := sp.Slot("rtx3090"); err != nil || got != 4 {
		t.Errorf("Slot(rtx3090) = %d, %v; want 4 (rtx3090@1)", got, err)
	}
	if _, err := sp.Slot("k80"); err == nil || !strings.Contains(err.Error(), "unknown device") {
		t.Errorf("Slot(k80) error %v, want unknown device", err)
	}
	if _, err := sp.Slot("rtx3090@0"); err == nil || !strings.Contains(err.Error(), "positive") {
		t.Errorf("Slot(rtx3090@0) error %v, want a degree error", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
