package reports

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/reports/plot"
)

// openData opens a dataset of the report once and records its files.
func (b *builder) openData(dir string) (*datasets.Dataset, error) {
	if b.opened == nil {
		b.opened = map[string]*datasets.Dataset{}
	}
	if ds, ok := b.opened[dir]; ok {
		return ds, nil
	}
	ds, err := datasets.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := b.inputDir(dir); err != nil {
		return nil, err
	}
	b.opened[dir] = ds
	return ds, nil
}

// interference draws one heat map per dataset and slot (device type and
// degree) of measured pairs. A slot whose matrix repeats one already drawn
// (Gavel's spread single-GPU pairs repeat the base type's) is
// named in the text instead.
func (b *builder) interference() ([]section, error) {
	var secs []section
	for _, dir := range b.cfg.Data {
		ds, err := b.openData(dir)
		if err != nil {
			return nil, err
		}
		if ds.Pairs == nil {
			continue
		}
		sec := section{
			Title: "Pairwise interference: " + label(dir),
			Text: fmt.Sprintf("Normalized throughput of each ordered pair of %s: the throughput of the workload (row) "+
				"while it shares its GPUs with the partner (column), over its solo throughput. Below 1 (red) the "+
				"partner slows it down; above 1 (blue) it ran faster than alone, which real measurements show "+
				"(noise, clocks) and coloc keeps. Only pairs of status ok are coloured; grey cells were not measured, "+
				"could not run (infeasible) or look like placeholders (suspect). Every heat map of the dataset has the same colour "+
				"scale, so a colour means the same value on every device.", b.show(dir)+"/pairs.arrow"),
		}
		tab := table{
			Caption: "Pairs per device type (" + label(dir) + ")",
			Header:  []string{"device", "workloads", "ok", "suspect", "infeasible", "min", "median", "max", "ok > 1"},
		}
		type drawn struct {
			slot string
			m    *heat
		}
		var done []drawn
		var repeats, empty []string
		// One colour scale for every heat map of the dataset: the largest
		// distance from 1 of any ok pair, on any device.
		slots := pairSlots(ds.Pairs)
		heats := make([]*heat, len(slots))
		span := 0.0
		for i, sl := range slots {
			heats[i] = heatOf(ds.Pairs, sl)
			for _, r := range heats[i].values {
				for _, v := range r {
					if !math.IsNaN(v) && !math.IsInf(v, 0) {
						span = math.Max(span, math.Abs(v-1))
					}
				}
			}
		}
		for i, sl := range slots {
			m := heats[i]
			tab.Rows = append(tab.Rows, m.row(sl.String()))
			if m.ok == 0 {
				empty = append(empty, sl.String())
				continue
			}
			same := ""
			for _, d := range done {
				if d.m.equal(m) {
					same = d.slot
					break
				}
			}
			if same != "" {
				repeats = append(repeats, fmt.Sprintf("%s repeats the values of %s", sl, same))
				continue
			}
			done = append(done, drawn{sl.String(), m})
			h := &plot.Heatmap{
				Title:  fmt.Sprintf("Normalized throughput on %s (%s)", sl, label(dir)),
				XLabel: "partner", YLabel: "workload", Label: "normalized throughput",
				Rows: m.jobs, Cols: m.jobs, Values: m.values, Center: 1, Span: span,
			}
			cap := fmt.Sprintf("Normalized throughput of each workload (row) next to each partner (column) on %s, %d GPU(s) each: "+
				"%d ordered pairs measured (ok) of %d workloads; %d suspect and %d infeasible pairs are grey. From %s.",
				sl.DeviceType, sl.Degree, m.ok, len(m.jobs), m.suspect, m.infeasible, b.show(dir)+"/pairs.arrow")
			f, err := b.figure(h, figName("pairs", label(dir), sl.String()), cap, squareFigure)
			if err != nil {
				return nil, err
			}
			sec.Figures = append(sec.Figures, f)
		}
		if len(repeats) > 0 {
			sec.Text += "\n\nNot drawn: " + strings.Join(repeats, "; ") + " (cell for cell)."
		}
		if len(empty) > 0 {
			sec.Text += "\n\nNo pair of status ok, so no heat map (see the table): " + strings.Join(empty, ", ") + "."
		}
		sec.Tables = append(sec.Tables, tab)
		secs = append(secs, sec)
	}
	return secs, nil
}

// pairSlots returns the slots of a pairs table, sorted.
func pairSlots(p *datasets.Pairs) []model.Slot {
	seen := map[model.Slot]bool{}
	var out []model.Slot
	for _, r := range p.Rows {
		s := model.Slot{DeviceType: r.DeviceType, Degree: r.Degree}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].DeviceType != out[j].DeviceType {
			return out[i].DeviceType < out[j].DeviceType
		}
		return out[i].Degree < out[j].Degree
	})
	return out
}

// heat is the pair matrix of one slot: jobs sorted, NaN where no ok value.
type heat struct {
	jobs                    []string
	values                  [][]float64
	ok, suspect, infeasible int
	measured                []float64
}

func heatOf(p *datasets.Pairs, sl model.Slot) *heat {
	idx := map[string]int{}
	for _, r := range p.Rows {
		if r.DeviceType == sl.DeviceType && r.Degree == sl.Degree {
			idx[r.Workload], idx[r.Partner] = 0, 0
		}
	}
	h := &heat{}
	for j := range idx {
		h.jobs = append(h.jobs, j)
	}
	sort.Slice(h.jobs, func(a, b int) bool { return natLess(h.jobs[a], h.jobs[b]) })
	for i, j := range h.jobs {
		idx[j] = i
	}
	h.values = make([][]float64, len(h.jobs))
	for i := range h.values {
		h.values[i] = make([]float64, len(h.jobs))
		for k := range h.values[i] {
			h.values[i][k] = math.NaN()
		}
	}
	for _, r := range p.Rows {
		if r.DeviceType != sl.DeviceType || r.Degree != sl.Degree {
			continue
		}
		switch r.Status {
		case datasets.StatusOK:
			h.ok++
			h.values[idx[r.Workload]][idx[r.Partner]] = r.Normalized
			h.measured = append(h.measured, r.Normalized)
		case datasets.StatusSuspect:
			h.suspect++
		default:
			h.infeasible++
		}
	}
	sort.Float64s(h.measured)
	return h
}

func (h *heat) equal(o *heat) bool {
	if len(h.jobs) != len(o.jobs) {
		return false
	}
	for i := range h.jobs {
		if h.jobs[i] != o.jobs[i] {
			return false
		}
		for k, v := range h.values[i] {
			w := o.values[i][k]
			if v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
				return false
			}
		}
	}
	return true
}

// row is the slot's line of the pairs table.
func (h *heat) row(slot string) []string {
	r := []string{slot, fmt.Sprint(len(h.jobs)), fmt.Sprint(h.ok), fmt.Sprint(h.suspect), fmt.Sprint(h.infeasible)}
	if len(h.measured) == 0 {
		return append(r, "", "", "", "")
	}
	above := 0
	for _, v := range h.measured {
		if v > 1 {
			above++
		}
	}
	return append(r, f3(h.measured[0]), f3(quantile(h.measured, 0.5)), f3(h.measured[len(h.measured)-1]),
		fmt.Sprintf("%.1f%%", 100*float64(above)/float64(len(h.measured))))
}

// quantile of sorted values, linear between order statistics.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}

func f3(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return fmt.Sprintf("%.3f", v)
}

func f2(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return fmt.Sprintf("%.2f", v)
}

// natLess orders names with their numbers compared as numbers, so that
// "LM (batch size 5)" comes before "LM (batch size 10)"; names equal that
// way ("05", "5") are ordered as strings.
func natLess(a, b string) bool {
	if c := natCmp(a, b); c != 0 {
		return c < 0
	}
	return a < b
}

func natCmp(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := len(na) - len(nb); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

// digits is the length of the run of ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
