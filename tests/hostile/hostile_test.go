package hostile

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/internal/strictnum"
)

var update = flag.Bool("update", false, "rewrite the generated table of docs/safety.md")

// A case is one hostile input of one reader.
type hcase struct {
	kind string // the class of case, a row of the table in docs/safety.md
	name string
	data []byte
	// special: "pipe", "device", "directory": the input is not a file.
	special string
	// refuse: the docs call the input invalid; it must be refused.
	refuse bool
}

// Kinds of cases, in the order of the table.
var kinds = []string{"not a file", "empty", "number no format allows", "invalid value", "cut short", "bits flipped", "bytes appended", "joined to itself"}

// hostileNumbers are written in place of a number: no reader of coloc
// accepts any of them (not finite, digit separators, another base, past
// float64).
var hostileNumbers = []string{"NaN", "Inf", "1_000", "0x10", "1e999"}

// cases generates the hostile inputs of r.
func (r *reader) cases() []hcase {
	var out []hcase
	for _, sp := range []string{"pipe", "device", "directory"} {
		out = append(out, hcase{kind: "not a file", name: sp, special: sp, refuse: true})
	}
	out = append(out, hcase{kind: "empty", name: "empty", data: nil, refuse: true})
	if r.numbers {
		toks := numberTokens(r.valid)
		// At most 24 numbers of the input, spread over it.
		if len(toks) > 24 {
			var pick [][2]int
			for i := range 24 {
				pick = append(pick, toks[i*len(toks)/24])
			}
			toks = pick
		}
		for _, tk := range toks {
			for _, h := range hostileNumbers {
				d := slices.Concat(r.valid[:tk[0]], []byte(h), r.valid[tk[1]:])
				out = append(out, hcase{kind: "number no format allows", name: fmt.Sprintf("%s for %s at byte %d", h, r.valid[tk[0]:tk[1]], tk[0]), data: d, refuse: true})
			}
		}
	}
	for _, e := range r.invalid {
		out = append(out, hcase{kind: "invalid value", name: e.what, data: bytes.Replace(r.valid, []byte(e.old), []byte(e.new), 1), refuse: true})
	}
	n := len(r.valid)
	for i := 1; i <= 12; i++ {
		at := i * n / 13
		out = append(out, hcase{kind: "cut short", name: fmt.Sprintf("at byte %d of %d", at, n), data: r.valid[:at]})
	}
	flips := 12
	if r.binary {
		flips = 48
	}
	for i := 0; i < flips; i++ {
		at := (2*i + 1) * n / (2 * flips)
		d := bytes.Clone(r.valid)
		d[at] ^= 1 << (i % 8)
		out = append(out, hcase{kind: "bits flipped", name: fmt.Sprintf("bit %d of byte %d", i%8, at), data: d})
	}
	out = append(out,
		hcase{kind: "bytes appended", name: "text after the end", data: append(bytes.Clone(r.valid), "\x00trailing\n"...), refuse: r.binary},
		hcase{kind: "joined to itself", name: "twice", data: slices.Concat(r.valid, r.valid), refuse: r.binary})
	return out
}

// numberTokens finds the numbers written in text: plain decimals between
// delimiters (not inside names such as v100 or ResNet-50).
func numberTokens(text []byte) [][2]int {
	delim := func(c byte, before bool) bool {
		switch c {
		case ' ', '\t', '\n', '\r', ',', ':':
			return true
		case '[', '{':
			return before
		case ']', '}':
			return !before
		}
		return false
	}
	isNum := func(c byte) bool { return c >= '0' && c <= '9' || strings.IndexByte(".eE+-", c) >= 0 }
	var out [][2]int
	for i := 0; i < len(text); {
		if !isNum(text[i]) || i > 0 && !delim(text[i-1], true) {
			i++
			continue
		}
		j := i
		for j < len(text) && isNum(text[j]) {
			j++
		}
		if (j == len(text) || delim(text[j], false)) && strictnum.IsDecimal(string(text[i:j])) {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

// outcome is how a reader took a case.
type outcome struct {
	err      error
	panicked string
	hung     bool
	changed  error // accepted, but read as other values than the valid input's
}

// readerTimeout bounds one read: a reader that takes longer hangs.
const readerTimeout = 10 * time.Second

// run reads the case's input in a fresh directory, within readerTimeout.
func (r *reader) run(t *testing.T, c hcase) outcome {
	dir := t.TempDir()
	path := filepath.Join(dir, r.file)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if r.setup != nil {
		if err := r.setup(dir); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(path)
	var err error
	switch c.special {
	case "pipe":
		err = syscall.Mkfifo(path, 0o644)
	case "device":
		err = os.Symlink("/dev/zero", path)
	case "directory":
		err = os.Mkdir(path, 0o755)
	default:
		err = os.WriteFile(path, c.data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{panicked: fmt.Sprintf("%v\n%s", p, debug.Stack())}
			}
		}()
		err := r.read(path)
		if err == nil && r.same != nil && c.data != nil && !bytes.Equal(c.data, r.valid) {
			done <- outcome{changed: r.same(path)}
			return
		}
		done <- outcome{err: err}
	}()
	select {
	case o := <-done:
		return o
	case <-time.After(readerTimeout):
		return outcome{hung: true}
	}
}

// tally counts the cases of one reader by kind.
type tally struct {
	reader  string
	cases   map[string]int
	refused map[string]int
}

// TestHostileInputs runs every case of every reader: no panic, no read
// longer than 10 seconds, every invalid input refused, no changed Arrow
// table read as anything but the table written. Then it checks (or with
// -update writes) the table of docs/safety.md that says what ran.
func TestHostileInputs(t *testing.T) {
	var tallies []tally
	total := 0
	for _, r := range readers(t) {
		tl := tally{reader: r.name, cases: map[string]int{}, refused: map[string]int{}}
		for _, c := range r.cases() {
			o := r.run(t, c)
			total++
			tl.cases[c.kind]++
			where := fmt.Sprintf("%s: %s: %s", r.name, c.kind, c.name)
			switch {
			case o.hung:
				t.Errorf("%s: still reading after %s", where, readerTimeout)
			case o.panicked != "":
				t.Errorf("%s: %s", where, o.panicked)
			case o.changed != nil:
				t.Errorf("%s: accepted, and %v", where, o.changed)
			case o.err != nil:
				tl.refused[c.kind]++
				if msg := o.err.Error(); strings.Contains(msg, "runtime error") || strings.Contains(msg, "goroutine ") {
					t.Errorf("%s: a Go runtime message: %v", where, o.err)
				}
			case c.refuse:
				t.Errorf("%s: accepted, but the input is invalid", where)
			}
		}
		tallies = append(tallies, tl)
	}
	if total < 500 {
		t.Errorf("%d cases, want at least 500", total)
	}
	t.Logf("%d hostile inputs over %d readers", total, len(tallies))
	checkSection(t, docBegin, docEnd, renderTable(tallies, total))
}

// renderTable is the table of docs/safety.md: per reader, the cases of
// each kind and how many were refused.
func renderTable(ts []tally, total int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d hostile inputs over %d readers (cases refused / cases; the kinds marked * must all be refused, the others must not crash, hang or read as other values):\n\n", total, len(ts))
	b.WriteString("| reader |")
	for _, k := range kinds {
		star := ""
		if k != "cut short" && k != "bits flipped" && k != "bytes appended" && k != "joined to itself" {
			star = " *"
		}
		b.WriteString(" " + k + star + " |")
	}
	b.WriteString("\n|---|")
	for range kinds {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, t := range ts {
		b.WriteString("| " + t.reader + " |")
		for _, k := range kinds {
			if t.cases[k] == 0 {
				b.WriteString(" - |")
				continue
			}
			fmt.Fprintf(&b, " %d / %d |", t.refused[k], t.cases[k])
		}
		b.WriteString("\n")
	}
	return b.String()
}

const (
	docPath  = repo + "/docs/safety.md"
	docBegin = "<!-- hostile inputs: generated by go test ./tests/hostile -update -->\n"
	docEnd   = "<!-- end of hostile inputs -->\n"
)

// checkSection compares text with the section of docs/safety.md between
// the lines begin and end, or writes it there under -update.
func checkSection(t *testing.T, begin, end, text string) {
	t.Helper()
	raw, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no section between %q and %q", docPath, begin, end)
	}
	if doc[i+len(begin):j] == text {
		return
	}
	if *update {
		if err := os.WriteFile(docPath, []byte(doc[:i+len(begin)]+text+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("a generated table of %s is stale (go test ./tests/hostile -update rewrites it); now:\n%s", docPath, text)
}
