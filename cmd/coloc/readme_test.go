package main

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeSchemaInSync keeps README's table columns equal to what
// `coloc datasets schema` prints, so the docs match the code.
func TestReadmeSchemaInSync(t *testing.T) {
	b, err := os.ReadFile("../../docs/datasets.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i := strings.Index(readme, "<!-- schema:begin -->\n```\n")
	j := strings.Index(readme, "```\n<!-- schema:end -->")
	if i < 0 || j < i {
		t.Fatal("README has no schema:begin/end block")
	}
	got := readme[i+len("<!-- schema:begin -->\n```\n") : j]
	out, _, err := runCmd(t, "datasets", "schema")
	if err != nil {
		t.Fatal(err)
	}
	if got != out {
		t.Errorf("README schema block differs from `coloc datasets schema`; paste its output between the markers")
	}
}
