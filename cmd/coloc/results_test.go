package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"go/scanner"
	"go/token"
	"hash"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// updateResults regenerates the result blocks of docs/*.md instead of
// checking them: scripts/results.sh (make results) runs
//
//	go test ./cmd/coloc -run '^TestDocResults$' -args -results
var updateResults = flag.Bool("results", false, "regenerate the result blocks of docs/*.md")

// skipResults names the blocks a -results run leaves as they are: those whose
// command matches this regular expression. Two runs with complementary sets
// (-results-skip X and -results-only X) regenerate the blocks at once.
var skipResults = flag.String("results-skip", "", "with -results, leave the blocks whose command matches this regular expression")

// onlyResults, when set, limits a -results run to the blocks whose command
// matches this regular expression.
var onlyResults = flag.String("results-only", "", "with -results, regenerate only the blocks whose command matches this regular expression")

// A result block of a document is the output of one coloc command, between
//
//	<!-- results[ code][ full]: coloc ARGS -->
//	<!-- inputs: SHA-256 -->
//	...generated: the command, indented, a blank line, its standard output...
//	<!-- end results -->
//
// "code" indents the output as a code block (for plain-text tables).
// The inputs line is the SHA-256 of what the output depends on: the
// command line, the SHA-256 of every file of its --data directory, and the
// Go tokens (comments and layout left out) of the packages that compute
// results: model, model/eval and features. A block whose inputs changed is
// stale. Hashing the inputs is how the slow blocks are checked (the new-job
// evaluation takes minutes); the blocks marked "full" are also rerun by
// the test and compared byte for byte, so the hash scheme itself is
// checked against real output on every test run (go test -short skips the
// rerun). Package datasets is left out of the hash: it reads and validates
// tables, and its round-trip tests pin the values it returns.
var (
	beginResults = regexp.MustCompile(`(?m)^<!-- results((?: [a-z]+)*): coloc ([^\n]*?) -->\n`)
	inputsLine   = regexp.MustCompile(`^<!-- inputs: ([0-9a-f]*) -->\n`)
	endResults   = "<!-- end results -->\n"
)

type resultBlock struct {
	cmd        string // the arguments after "coloc"
	code, full bool
	inputs     string // recorded hash
	body       string // generated text after the inputs line
	start, end int    // the text between the begin and end markers
}

func parseResultBlocks(text string) ([]resultBlock, error) {
	var out []resultBlock
	for _, m := range beginResults.FindAllStringSubmatchIndex(text, -1) {
		b := resultBlock{cmd: text[m[4]:m[5]], start: m[1]}
		for _, w := range strings.Fields(text[m[2]:m[3]]) {
			switch w {
			case "code":
				b.code = true
			case "full":
				b.full = true
			default:
				return nil, fmt.Errorf("results block %q: unknown word %q", b.cmd, w)
			}
		}
		n := strings.Index(text[b.start:], endResults)
		if n < 0 {
			return nil, fmt.Errorf("results block %q: no %q", b.cmd, strings.TrimSpace(endResults))
		}
		b.end = b.start + n
		region := text[b.start:b.end]
		if im := inputsLine.FindStringSubmatch(region); im != nil {
			b.inputs, b.body = im[1], region[len(im[0]):]
		} else {
			b.body = region
		}
		out = append(out, b)
	}
	return out, nil
}

// render is the generated text of a block: the command and its output.
func (b resultBlock) render(stdout string) string {
	var s strings.Builder
	fmt.Fprintf(&s, "    coloc %s\n\n", b.cmd)
	if !b.code {
		s.WriteString(stdout)
		return s.String()
	}
	for _, line := range strings.SplitAfter(stdout, "\n") {
		if strings.TrimSpace(line) != "" {
			s.WriteString("    ")
		}
		s.WriteString(line)
	}
	if !strings.HasSuffix(stdout, "\n") {
		s.WriteString("\n")
	}
	s.WriteString("\n")
	return s.String()
}

// resultInputs hashes what a block's output depends on (see above).
func resultInputs(cmd string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "coloc %s\n", cmd)
	args := strings.Fields(cmd)
	for i, a := range args {
		if a != "--data" || i+1 == len(args) {
			continue
		}
		ds, err := datasets.Open(args[i+1])
		if err != nil {
			return "", err
		}
		sums, err := ds.Files()
		if err != nil {
			return "", err
		}
		for _, f := range sums {
			fmt.Fprintf(h, "data %s %s\n", f.Name, f.SHA256)
		}
	}
	for _, dir := range []string{"model", "model/eval", "features"} {
		if err := hashGoTokens(h, dir); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashGoTokens writes the tokens of the non-test Go files of dir into h,
// without comments, so rewording a comment or reformatting leaves the hash
// alone.
func hashGoTokens(h hash.Hash, dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%s: no Go files", dir)
	}
	sort.Strings(files)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "file %s\n", filepath.ToSlash(name))
		var s scanner.Scanner
		s.Init(token.NewFileSet().AddFile(name, -1, len(src)), src, nil, 0)
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.SEMICOLON {
				lit = "" // an inserted semicolon's literal is the newline
			}
			fmt.Fprintf(h, "%d %s\n", tok, lit)
		}
	}
	return nil
}

// TestDocResults checks every result block of docs/*.md: its inputs hash
// must be current, and the blocks marked full must be exactly what their
// command prints now. With -results it regenerates every block instead.
func TestDocResults(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	seen, full := 0, 0
	for _, doc := range docs {
		raw, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		blocks, err := parseResultBlocks(text)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		// Replace from the last block up, so earlier offsets stay valid.
		for i := len(blocks) - 1; i >= 0; i-- {
			b := blocks[i]
			seen++
			inputs, err := resultInputs(b.cmd)
			if err != nil {
				t.Fatalf("%s: coloc %s: %v", doc, b.cmd, err)
			}
			if *updateResults {
				sel, err := selectedBlock(*skipResults, *onlyResults, b.cmd)
				if err != nil {
					t.Fatal(err)
				}
				if !sel {
					continue
				}
			}
			if *updateResults {
				start := time.Now()
				out, _ := mustRun(t, strings.Fields(b.cmd)...)
				text = text[:b.start] + "<!-- inputs: " + inputs + " -->\n" + b.render(out) + text[b.end:]
				t.Logf("%s: coloc %s: %.0fs", doc, b.cmd, time.Since(start).Seconds())
				continue
			}
			if b.inputs != inputs {
				t.Errorf("%s: the result of `coloc %s` is stale (its data, settings or the model code changed): run make results", doc, b.cmd)
			}
			if b.full {
				full++
				if testing.Short() {
					continue
				}
				out, _ := mustRun(t, strings.Fields(b.cmd)...)
				if got := b.render(out); got != b.body {
					t.Errorf("%s: `coloc %s` now prints another result than the document shows: run make results\n got:\n%s\nwant:\n%s", doc, b.cmd, got, b.body)
				}
			}
		}
		if *updateResults && text != string(raw) {
			if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no result blocks in docs/*.md")
	}
	if !*updateResults && full == 0 {
		t.Error("no result block is marked full: the hashes are never checked against real output")
	}
}

// selectedBlock says whether a -results run regenerates the block of cmd:
// not when cmd matches skip, and only when it matches only (an empty
// expression sets no condition).
func selectedBlock(skip, only, cmd string) (bool, error) {
	for _, f := range []struct {
		expr string
		want bool
	}{{skip, false}, {only, true}} {
		if f.expr == "" {
			continue
		}
		re, err := regexp.Compile(f.expr)
		if err != nil {
			return false, fmt.Errorf("results flag %q: %v", f.expr, err)
		}
		if re.MatchString(cmd) != f.want {
			return false, nil
		}
	}
	return true, nil
}

// TestSelectedBlock: -results-skip and -results-only split the blocks
// between two runs, each block to exactly one of them.
func TestSelectedBlock(t *testing.T) {
	cmds := []string{"eval --protocol new-job --seeds 3", "eval --protocol cross-device", "eval --seeds 5"}
	for _, c := range cmds {
		a, err := selectedBlock("new-job", "", c)
		if err != nil {
			t.Fatal(err)
		}
		b, err := selectedBlock("", "new-job", c)
		if err != nil {
			t.Fatal(err)
		}
		if a == b {
			t.Errorf("%q: skip run %v, only run %v: want exactly one", c, a, b)
		}
		if all, _ := selectedBlock("", "", c); !all {
			t.Errorf("%q: not selected without flags", c)
		}
	}
	if sel, _ := selectedBlock("seeds", "new-job", cmds[0]); sel {
		t.Error("a block matching both flags is selected")
	}
	if _, err := selectedBlock("(", "", cmds[0]); err == nil {
		t.Error("a bad expression is accepted")
	}
}

// TestResultBlocksParse: markers, flags, the inputs line and the rendered
// form of a code block.
func TestResultBlocksParse(t *testing.T) {
	doc := "text\n<!-- results code full: coloc eval --data d -q -->\n<!-- inputs: ab12 -->\n    coloc eval --data d -q\n\n    x  y\n\n<!-- end results -->\nmore\n" +
		"<!-- results: coloc eval --markdown -->\n<!-- end results -->\n"
	bs, err := parseResultBlocks(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 || bs[0].cmd != "eval --data d -q" || !bs[0].code || !bs[0].full || bs[0].inputs != "ab12" ||
		bs[1].cmd != "eval --markdown" || bs[1].code || bs[1].full || bs[1].inputs != "" || bs[1].body != "" {
		t.Fatalf("parsed %+v", bs)
	}
	if got := bs[0].render("x  y\n"); got != bs[0].body {
		t.Errorf("render %q, want the body %q", got, bs[0].body)
	}
	if _, err := parseResultBlocks("<!-- results: coloc eval -->\nno end\n"); err == nil {
		t.Error("a block without its end marker is accepted")
	}
	if _, err := parseResultBlocks("<!-- results fast: coloc eval -->\n<!-- end results -->\n"); err == nil {
		t.Error("an unknown flag is accepted")
	}
}
