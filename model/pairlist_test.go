package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPairListRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "next.pairs")
	want := [][2]string{{"ResNet-50 (batch size 64)", "LM (batch size 20)"}, {"a", "a"}}
	if err := WritePairList(path, want, []string{"device v100"}, []string{"gain 1.2", ""}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPairList(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("read %q, want %q", got, want)
	}
	if err := WritePairList(path, [][2]string{{"a+b", "c"}}, nil, nil); err == nil {
		t.Error("a name with '+' was written")
	}
	for _, c := range []struct{ text, want string }{
		{"a+b\n", ":1: not a pair list"},
		{"# coloc.pairs 2\na+b\n", "version 2"},
		{"# coloc.pairs 1\nab\n", ":2: \"ab\" is not a pair"},
		{"# coloc.pairs 1\na+b+c\n", ":2:"},
		{"", "empty file"},
	} {
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadPairList(path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.text, err, c.want)
		}
	}
}
