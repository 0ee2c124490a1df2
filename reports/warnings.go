package reports

import (
	"fmt"
	"slices"
	"strings"
)

// warning is a problem that did not stop the report, with where it comes
// from: "data gavel", "model iapp", "simulator, msr/ed69ec on
// gavel-48 (every policy)".
type warning struct{ from, text string }

// warn records warnings of one source; the same warning of the same source
// is shown once.
func (b *builder) warn(from string, texts ...string) {
	for _, t := range texts {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		w := warning{from, t}
		dup := false
		for _, o := range b.warnings {
			dup = dup || o == w
		}
		if !dup {
			b.warnings = append(b.warnings, w)
		}
	}
}

// warnStage records the warnings a stage's file carries, leaving out those
// another source already gave: a stage repeats the warnings of the data
// it read, which the report lists once, under the data.
func (b *builder) warnStage(from string, texts ...string) {
	var fresh []string
	for _, t := range texts {
		t = strings.TrimSpace(t)
		if !slices.ContainsFunc(b.warnings, func(w warning) bool { return w.text == t }) {
			fresh = append(fresh, t)
		}
	}
	b.warn(from, fresh...)
}

// warningsSection lists every warning of the data, each model and the
// simulator, in the order the steps met them.
func (b *builder) warningsSection() section {
	sec := section{Title: "Warnings"}
	if len(b.warnings) == 0 {
		sec.Text = "None: the data, the models and the simulator raised no warning."
		return sec
	}
	what := "problems"
	if len(b.warnings) == 1 {
		what = "problem"
	}
	sec.Text = fmt.Sprintf("%d %s that did not stop the report: of the data (read and turned into model inputs), "+
		"of each model (fitted here or read from a model directory) and of the simulator (per trace, with the policies that met it).", len(b.warnings), what)
	for _, w := range b.warnings {
		sec.Items = append(sec.Items, w.from+": "+w.text)
	}
	return sec
}
