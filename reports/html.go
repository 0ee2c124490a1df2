package reports

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/reports/plot"
)

// indexPage is an HTML report: a title, an introduction and sections of
// figures and tables. Nothing varies between runs unless the caller puts
// it in (a time, a version) through the text fields.
type indexPage struct {
	Title    string
	Intro    string // paragraphs separated by blank lines
	Sections []section
	Footer   string // e.g. provenance: tool version, data hashes
	// FooterTable, when set, is shown in the footer after Footer: e.g.
	// each input file with its SHA-256.
	FooterTable *table
	// Generator, when set, is the page's <meta name="generator"> content:
	// the tool that wrote it.
	Generator string
}

// section is a titled part of a page: text, a bulleted list, figures,
// then tables.
type section struct {
	Title   string
	Text    string   // paragraphs separated by blank lines
	Items   []string // a bulleted list after the text, e.g. warnings
	Figures []plot.Figure
	Tables  []table
}

// table is a captioned table of text cells.
type table struct {
	Caption string
	Header  []string
	Rows    [][]string
}

// writeIndex writes dir/index.html for the page. Every figure's SVG, PNG
// and CSV must be in dir already.
func writeIndex(dir string, p indexPage) error {
	for _, s := range p.Sections {
		for _, f := range s.Figures {
			if !nameRE.MatchString(f.Name) {
				return fmt.Errorf("section %q: figure name %q is not a plain file name", s.Title, f.Name)
			}
			for _, file := range []string{f.SVG(), f.PNG(), f.CSV()} {
				if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
					return fmt.Errorf("section %q: figure %s: %w", s.Title, f.Name, err)
				}
			}
		}
	}
	var buf bytes.Buffer
	if err := renderIndex(&buf, p); err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, "index.html"), buf.Bytes())
}

// nameRE is what a figure name may hold: a plain file name.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// renderIndex writes the page's HTML to w. Every string is escaped.
func renderIndex(w io.Writer, p indexPage) error {
	if t := p.FooterTable; t != nil {
		for j, r := range t.Rows {
			if len(r) != len(t.Header) {
				return fmt.Errorf("footer table: row %d has %d cells for %d columns", j+1, len(r), len(t.Header))
			}
		}
	}
	for _, s := range p.Sections {
		for i, t := range s.Tables {
			for j, r := range t.Rows {
				if len(r) != len(t.Header) {
					return fmt.Errorf("section %q: table %d: row %d has %d cells for %d columns", s.Title, i+1, j+1, len(r), len(t.Header))
				}
			}
		}
	}
	return page.Execute(w, p)
}

// numeric reports whether a table cell is a number, possibly signed and
// followed by a percent sign: such cells are right-aligned.
func numeric(cell string) bool {
	c := strings.TrimSuffix(strings.TrimSpace(cell), "%")
	_, err := strconv.ParseFloat(c, 64)
	return err == nil
}

// paragraphs splits text at blank lines.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

var page = template.Must(template.New("index").Funcs(template.FuncMap{
	"paragraphs": paragraphs,
	"numeric":    numeric,
	"inc":        func(i int) int { return i + 1 },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
{{with .Generator}}<meta name="generator" content="{{.}}">
{{end}}<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.45; }
figure { margin: 1.5rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.92rem; color: #444; }
.files { white-space: nowrap; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.92rem; display: block; max-width: 100%; overflow-x: auto; }
caption { text-align: left; font-weight: bold; padding-bottom: 0.3rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: left; }
td { white-space: nowrap; }
td.num { text-align: right; }
footer { margin-top: 3rem; font-size: 0.85rem; color: #666; }
footer table.inputs td { text-align: left; font-family: "Liberation Mono", monospace; font-size: 0.75rem; }
footer table.inputs td:last-child { word-break: break-all; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range paragraphs .Intro}}<p>{{.}}</p>
{{end}}{{if .Sections}}<nav>
<ol>
{{range $i, $s := .Sections}}<li><a href="#section-{{inc $i}}">{{$s.Title}}</a></li>
{{end}}</ol>
</nav>
{{end}}{{range $i, $s := .Sections}}
<section id="section-{{inc $i}}">
<h2>{{$s.Title}}</h2>
{{range paragraphs $s.Text}}<p>{{.}}</p>
{{end}}{{with $s.Items}}<ul>
{{range .}}<li>{{.}}</li>
{{end}}</ul>
{{end}}{{range $s.Figures}}<figure id="figure-{{.Name}}">
<img src="{{.SVG}}" alt="{{.Title}}">
<figcaption>{{.Caption}} <span class="files">(<a href="{{.PNG}}">PNG</a>, <a href="{{.CSV}}">data as CSV</a>)</span></figcaption>
</figure>
{{end}}{{range $s.Tables}}<table>
{{template "rows" .}}{{end}}</section>
{{end}}{{if or .Footer .FooterTable}}<footer>
{{range paragraphs .Footer}}<p>{{.}}</p>
{{end}}{{with .FooterTable}}<table class="inputs">
{{template "rows" .}}{{end}}</footer>
{{end}}</body>
</html>
{{define "rows"}}{{with .Caption}}<caption>{{.}}</caption>
{{end}}<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}{{if numeric .}}<td class="num">{{.}}</td>{{else}}<td>{{.}}</td>{{end}}{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}`))
