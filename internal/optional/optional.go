// Package optional is how a test says that an optional part of the
// suite cannot run here: a tool it needs (PyTorch, node, Chromium, a
// Slurm cluster, etcd) is missing. The test is skipped, or failed where
// the part's COLOC_REQUIRE_* variable is 1 (CI sets them all), and the
// skip is appended to the file that COLOC_SKIP_LOG names, so that `make
// test` lists the parts the tests themselves skipped rather than guessing
// from what is installed.
package optional

import (
	"fmt"
	"os"
	"testing"
)

// Missing skips t, which needs the optional part (e.g. "torch"), because
// of why (what is missing and how to get it); with the environment
// variable require set to 1 it fails t instead.
func Missing(t testing.TB, part, require, why string) {
	t.Helper()
	if os.Getenv(require) == "1" {
		t.Fatalf("%s=1 but %s", require, why)
	}
	Record(part, t.Name(), why)
	t.Skipf("skipping: %s (%s=1 makes this a failure)", why, require)
}

// Record appends one skip to the COLOC_SKIP_LOG file, if set: a line
// "part: test: why". A failure to write is ignored: the skip still shows
// in the test's own output.
func Record(part, test, why string) {
	path := os.Getenv("COLOC_SKIP_LOG")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s: %s: %s\n", part, test, oneLine(why))
}

func oneLine(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}
