package policy

import (
	"errors"
	"fmt"
	"strings"
)

// ErrFormat and ErrVersion are wrapped by the error of a file that is not
// a policy file or is one of a version this reader does not know: such a
// file is refused by name, before its content is looked at.
var (
	ErrFormat  = errors.New("not a coloc policy file")
	ErrVersion = errors.New("unsupported policy file version")
)

// Problem is one thing wrong with a policy file: the file, the JSON path
// of the value (e.g. "decisions[3].placement[0].gpus[1]"; array indices
// count from 0; "" is the whole file) and what is wrong. Line is the line
// of a JSON syntax error, 0 otherwise.
type Problem struct {
	File string
	Line int
	Path string
	Msg  string
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	if p.Path != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(p.Path)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// maxProblems bounds the problems listed for one file; beyond it only a
// count is kept.
const maxProblems = 100

// ValidationError is the error of a policy file that cannot be read: every
// problem found (at most maxProblems, then a count). Err is ErrFormat or
// ErrVersion when the file was refused by name, nil otherwise.
type ValidationError struct {
	File     string
	Problems []Problem
	More     int // problems found beyond those listed
	Err      error
}

func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 && e.More == 0 {
		return e.Problems[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d problems", e.File, len(e.Problems)+e.More)
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n  ... and %d more", e.More)
	}
	return b.String()
}

// Unwrap returns ErrFormat or ErrVersion for a file refused by name.
func (e *ValidationError) Unwrap() error { return e.Err }

// ProblemsOf returns the problems an error carries: those of a
// ValidationError (with a last line counting those not listed), or one
// Problem holding the error's text.
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

// problems collects the Problems of one file.
type problems struct {
	file string
	list []Problem
	more int
	err  error
}

func (ps *problems) add(path, format string, args ...any) {
	if len(ps.list) >= maxProblems {
		ps.more++
		return
	}
	ps.list = append(ps.list, Problem{File: ps.file, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// merge lists the problems of o after those of ps, as if they had been
// added to ps.
func (ps *problems) merge(o *problems) {
	for _, p := range o.list {
		if len(ps.list) < maxProblems {
			ps.list = append(ps.list, p)
		} else {
			ps.more++
		}
	}
	ps.more += o.more
}

func (ps *problems) failed() bool { return len(ps.list) > 0 || ps.more > 0 }

func (ps *problems) error() error {
	if !ps.failed() {
		return nil
	}
	return &ValidationError{File: ps.file, Problems: ps.list, More: ps.more, Err: ps.err}
}

// at joins a JSON path and a member name.
func at(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// elem joins a JSON path and an array index.
func elem(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }
