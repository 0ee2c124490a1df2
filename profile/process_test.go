package profile

import (
	"strings"
	"testing"
)

func TestTailBuffer(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		tail   string
		oom    bool
	}{
		{"short", []string{"a\n", "b\n"}, "a\nb", false},
		{"cut at a line", []string{strings.Repeat("x", 30) + "\n", "line two\n", "line three\n"}, "line two\nline three", false},
		{"marker split across writes", []string{"RuntimeError: CUDA out of me", "mory. Tried\n"}, "DA out of memory. Tried", true},
		{"marker in an endless line", []string{strings.Repeat("\r50%", 2000), "\rCUDA out of memory"}, "", true},
	}
	for _, tc := range tests {
		tb := &tailBuffer{max: 24} // keeps the last 24 bytes, from a line start when it can
		for _, w := range tc.writes {
			if n, err := tb.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("%s: Write = %d, %v", tc.name, n, err)
			}
		}
		if tc.tail != "" && tb.String() != tc.tail {
			t.Errorf("%s: tail %q, want %q", tc.name, tb.String(), tc.tail)
		}
		if tb.oom != tc.oom {
			t.Errorf("%s: oom %v, want %v", tc.name, tb.oom, tc.oom)
		}
		if tb.partial.Len() > 4096+len(oomMarker) {
			t.Errorf("%s: partial line grew to %d bytes", tc.name, tb.partial.Len())
		}
	}
}
