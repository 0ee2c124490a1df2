// Package textlist shortens the lists that messages name, so that a
// warning about thousands of pairs stays one readable line and still says
// how many it leaves out.
package textlist

import (
	"fmt"
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
