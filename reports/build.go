package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/internal/version"
	"github.com/coloc-dev/coloc/reports/plot"
)

// Summary says what Build wrote.
type Summary struct {
	Index    string   // path of index.html
	Figures  int      // figures drawn
	Sections []string // "name N" per step that made sections, N its figures
	Warnings int      // warnings shown in the warnings section
	Elapsed  time.Duration
}

// Build validates cfg, builds the report in a temporary directory beside
// cfg.Out and moves its files into cfg.Out (install): files an earlier
// report listed in its manifest are replaced or removed, any other file
// is left alone.
func Build(cfg Config) (*Summary, error) {
	start := time.Now()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	out := filepath.Clean(cfg.Out)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	stage, err := atomicfile.MkdirTemp(out)
	if err != nil {
		return nil, atomicfile.Explain(err)
	}
	defer atomicfile.Discard(stage) // empty after install; cleans up on error
	if cfg.Stages != nil {
		if err := cfg.Stages(stage, &cfg); err != nil {
			return nil, err
		}
		cfg.Stages = nil
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
	}
	b := &builder{cfg: cfg, dir: stage, progress: cfg.Progress, inputs: map[string]bool{}}
	if err := b.build(); err != nil {
		return nil, err
	}
	// The install is one commit: a process told to stop finishes it or
	// never starts it (atomicfile.Stop).
	if err := atomicfile.Section(func() error { return install(stage, out) }); err != nil {
		return nil, atomicfile.Explain(err)
	}
	sum := &Summary{Index: filepath.Join(out, "index.html"), Figures: b.figures, Sections: b.made,
		Warnings: len(b.warnings), Elapsed: time.Since(start)}
	b.logf("done in %.1fs", sum.Elapsed.Seconds())
	return sum, nil
}

// generator marks the index.html of a coloc report (its meta generator).
const generator = "coloc report"

// builder writes the figures of one report into dir and collects
// the page.
type builder struct {
	cfg      Config
	dir      string
	progress io.Writer
	page     indexPage
	figures  int
	made     []string // section titles, for the summary line
	inputs   map[string]bool
	sums     [][]string // input, bytes, SHA-256
	opened   map[string]*datasets.Dataset
	models   *modelData // the first dataset with pairs, loaded once
	warnings []warning  // every warning of the inputs and steps, in order
	// The summary's rows, added by the steps (summary.go).
	sumPolicies, sumModels [][]string
}

func (b *builder) build() error {
	b.page.Title = b.cfg.Title
	b.page.Intro = b.cfg.Intro
	steps := []struct {
		name string
		on   bool
		run  func() ([]section, error)
	}{
		{"interference", len(b.cfg.Data) > 0, b.interference},
		{"scaling", len(b.cfg.Data) > 0, b.scaling},
		{"models", b.cfg.EvalFile != "" || b.cfg.PredictionsFile != "" || b.cfg.Models != "", b.accuracy},
		{"active", b.cfg.ActiveFile != "", b.activeSection},
		{"policies", len(b.cfg.SimFiles) > 0, b.policies},
		{"campaign", b.cfg.Campaign != "", b.campaign},
	}
	if len(b.cfg.Data) > 0 {
		// The data's own warnings come first, under the data, whatever
		// the stages' files repeat of them.
		if _, err := b.pairsData(); err != nil {
			return err
		}
	}
	for _, st := range steps {
		if !st.on {
			continue
		}
		t0, n0 := time.Now(), b.figures
		secs, err := st.run()
		if err != nil {
			return err
		}
		b.page.Sections = append(b.page.Sections, secs...)
		if len(secs) > 0 {
			b.made = append(b.made, fmt.Sprintf("%s %d", st.name, b.figures-n0))
		}
		b.logf("%-12s %3d figures %6.1fs", st.name, b.figures-n0, time.Since(t0).Seconds())
	}
	if sec, ok := b.summary(); ok {
		b.page.Sections = append([]section{sec}, b.page.Sections...)
	}
	if len(b.page.Sections) == 0 {
		return fmt.Errorf("nothing to report: the inputs hold no pairs, scaling, evaluation, trace or campaign")
	}
	b.page.Sections = append(b.page.Sections, b.warningsSection())
	b.page.Footer = fmt.Sprintf("Written by coloc %s (coloc report). The same inputs give the same files. Inputs:", version.String())
	b.page.FooterTable = &table{Header: []string{"input", "bytes", "SHA-256"}, Rows: b.sums}
	b.page.Generator = generator
	return writeIndex(b.dir, b.page)
}

func (b *builder) logf(format string, args ...any) {
	if b.progress != nil {
		fmt.Fprintf(b.progress, "report: "+format+"\n", args...)
	}
}

// show returns how a path appears in the page: a file inside the report
// directory (or the directory it is built in) relative to it, else
// relative to Root when one is set, else as given.
func (b *builder) show(path string) string {
	for _, dir := range []string{b.dir, b.cfg.Out} {
		if rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path)); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	if b.cfg.Root != "" {
		if rel, err := filepath.Rel(b.cfg.Root, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(filepath.Clean(path))
}

// input records an input file for the footer: its name, size and SHA-256.
func (b *builder) input(path string) error {
	name := b.show(path)
	if b.inputs[name] {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	b.inputs[name] = true
	b.sums = append(b.sums, []string{name, fmt.Sprint(n), hex.EncodeToString(h.Sum(nil))})
	return nil
}

// inputDir records the tables (and workloads.json) of a dataset
// directory, sorted by name.
func (b *builder) inputDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && !strings.HasPrefix(n, ".") && (strings.HasSuffix(n, ".arrow") || n == "workloads.json") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if err := b.input(filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}

// figure writes a figure with its caption and counts it.
func (b *builder) figure(w interface {
	Write(dir, name string, opt plot.Options) (plot.Figure, error)
}, name, caption string, opt plot.Options) (plot.Figure, error) {
	f, err := w.Write(b.dir, name, opt)
	if err != nil {
		return f, err
	}
	f.Caption = caption
	b.figures++
	return f, nil
}

// figName makes a figure name from parts: letters, digits, '.', '_' and
// '-' only, lower case.
func figName(parts ...string) string {
	var sb strings.Builder
	for i, p := range parts {
		if i > 0 {
			sb.WriteByte('-')
		}
		for _, r := range strings.ToLower(p) {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_':
				sb.WriteRune(r)
			default:
				sb.WriteByte('-')
			}
		}
	}
	s := strings.Trim(sb.String(), "-.")
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	if s == "" {
		s = "figure"
	}
	return s
}

// label is a short name of a dataset directory: its base name.
func label(dir string) string { return filepath.Base(filepath.Clean(dir)) }

// sizes of the figures.
var (
	wideFigure   = plot.Options{Width: 20, Height: 11, DPI: 150}
	squareFigure = plot.Options{Width: 20, Height: 18, DPI: 150}
)
