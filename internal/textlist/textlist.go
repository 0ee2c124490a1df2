// Package textlist writes the lists of names that messages hold: shortened,
// so that a warning about thousands of pairs stays one readable line and
// still says how many it leaves out; quoted; and the known names nearest
// a mistyped one, for a "did you mean".
package textlist

import (
	"fmt"
	"strconv"
	"strings"
)

// Head joins the first n items (n >= 1) with sep and, when there are
// more, says how many: Head([a b c d], 2, ", ") is "a, b and 2 more".
func Head(items []string, n int, sep string) string {
	if len(items) <= n {
		return strings.Join(items, sep)
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], sep), len(items)-n)
}

// Quote joins the names, each quoted, with sep.
func Quote(names []string, sep string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, sep)
}

// Nearest returns the names within an edit distance of 2 of s, ignoring
// case, closest first: the suggestions of an error about an unknown name.
func Nearest(s string, names []string) []string {
	var out []string
	for d := 0; d <= 2; d++ {
		for _, n := range names {
			if editDistance(strings.ToLower(s), strings.ToLower(n)) == d {
				out = append(out, n)
			}
		}
	}
	return out
}

// editDistance is the Levenshtein distance of a and b in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Ints parses a comma-separated list of integers ("1,2,4,8").
func Ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not a list of integers like 1,2,4,8", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// JoinInts writes integers as Ints reads them.
func JoinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// Shares parses a comma-separated list of shares in [0, 1), the value of
// the flag named flag (which the error names).
func Shares(flag, s string) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || v < 0 || v >= 1 {
			return nil, fmt.Errorf("%s: %q is not a number in [0, 1)", flag, p)
		}
		out = append(out, v)
	}
	return out, nil
}
