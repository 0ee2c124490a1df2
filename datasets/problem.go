package datasets

import (
	"errors"
	"fmt"
	"strings"
)

// ErrVersion is wrapped by the error of a file whose schema version this
// build does not know.
var ErrVersion = errors.New("unsupported schema version")

// Problem is one thing wrong with a table: where (file, row, column) and
// what. Row is the 1-based data row (the first data row is 1); 0 means the
// problem is about the whole file or column. For CSV input, Line gives the
// line of the text file instead (the header is line 1).
type Problem struct {
	File   string
	Row    int
	Line   int
	Column string
	Msg    string
}

func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
	}
	switch {
	case p.Line > 0:
		fmt.Fprintf(&b, ":%d", p.Line)
	case p.Row > 0:
		fmt.Fprintf(&b, ": row %d", p.Row)
	}
	if p.Column != "" {
		fmt.Fprintf(&b, ": column %s", p.Column)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// maxProblems bounds the problems collected for one file: beyond it the
// input is clearly not what it claims to be and more lines help nobody.
const maxProblems = 100

// ValidationError is returned by readers and Write when a table is invalid.
// It lists every problem found (at most maxProblems, then a count).
type ValidationError struct {
	File     string
	Problems []Problem
	More     int // problems found beyond those listed
}

func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 && e.More == 0 {
		return e.Problems[0].String()
	}
	var b strings.Builder
	name := e.File
	if name == "" {
		name = "table"
	}
	fmt.Fprintf(&b, "%s: %d problems", name, len(e.Problems)+e.More)
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n  ... and %d more", e.More)
	}
	return b.String()
}

// problems collects Problems up to maxProblems.
type problems struct {
	file string
	list []Problem
	more int
}

func (ps *problems) add(row int, col, format string, args ...any) {
	if len(ps.list) >= maxProblems {
		ps.more++
		return
	}
	ps.list = append(ps.list, Problem{File: ps.file, Row: row, Column: col, Msg: fmt.Sprintf(format, args...)})
}

func (ps *problems) addLine(line int, col, format string, args ...any) {
	if len(ps.list) >= maxProblems {
		ps.more++
		return
	}
	ps.list = append(ps.list, Problem{File: ps.file, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)})
}

func (ps *problems) err() error {
	if len(ps.list) == 0 && ps.more == 0 {
		return nil
	}
	return &ValidationError{File: ps.file, Problems: ps.list, More: ps.more}
}

// ProblemsOf returns the problems an error carries: those of a
// ValidationError, or one Problem holding the error's text.
func ProblemsOf(err error) []Problem {
	if err == nil {
		return nil
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		out := append([]Problem(nil), ve.Problems...)
		if ve.More > 0 {
			out = append(out, Problem{File: ve.File, Msg: fmt.Sprintf("... and %d more problems", ve.More)})
		}
		return out
	}
	return []Problem{{Msg: err.Error()}}
}
