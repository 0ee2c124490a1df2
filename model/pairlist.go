package model

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// A pair list is what `coloc profile next` writes and `coloc profile run
// --pairs-from` reads: a text file whose first line is the header
// "# coloc.pairs <version>", then one unordered pair a line, "a+b", each
// optionally followed by a comment after '#'. Blank lines and comment
// lines are ignored. Workload names may not contain '+', ',' or '#'.
const (
	PairListFormat  = "coloc.pairs"
	pairListVersion = 1
)

// WritePairList writes pairs (a, b names) to path atomically, with
// comments: header lines (notes) and one per pair (may be nil).
func WritePairList(path string, pairs [][2]string, notes []string, comments []string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s %d\n", PairListFormat, pairListVersion)
	for _, n := range notes {
		fmt.Fprintf(&b, "# %s\n", strings.ReplaceAll(n, "\n", " "))
	}
	for i, p := range pairs {
		for _, w := range p {
			if w == "" || strings.ContainsAny(w, "+,#\n") {
				return fmt.Errorf("pair list %s: workload name %q cannot be written (empty, or holds '+', ',', '#' or a newline)", path, w)
			}
		}
		fmt.Fprintf(&b, "%s+%s", p[0], p[1])
		if i < len(comments) && comments[i] != "" {
			fmt.Fprintf(&b, "\t# %s", comments[i])
		}
		b.WriteByte('\n')
	}
	return writeFile(path, b.Bytes())
}

// ReadPairList reads a pair list; errors name the file and line.
func ReadPairList(path string) ([][2]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var out [][2]string
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if line == 1 {
			var format string
			var version int
			if _, err := fmt.Sscanf(text, "# %s %d", &format, &version); err != nil || format != PairListFormat {
				return nil, fmt.Errorf("%s:1: not a pair list (want the header %q)", path, fmt.Sprintf("# %s %d", PairListFormat, pairListVersion))
			}
			if version != pairListVersion {
				return nil, fmt.Errorf("%s:1: pair list version %d; this coloc reads version %d", path, version, pairListVersion)
			}
			continue
		}
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
		if text == "" {
			continue
		}
		a, b, ok := strings.Cut(text, "+")
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		if !ok || a == "" || b == "" || strings.ContainsAny(b, "+,") || strings.Contains(a, ",") {
			return nil, fmt.Errorf("%s:%d: %q is not a pair (want a+b)", path, line, text)
		}
		out = append(out, [2]string{a, b})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: empty file, not a pair list", path)
	}
	return out, nil
}
