package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/internal/version"
)

// The result file is an Arrow table named TableName at TableVersion: one
// row per (model, protocol, device, fraction, seed).
const (
	TableName    = "eval"
	TableVersion = 2
)

// Write writes every cell of r to path (atomically).
func (r *Result) Write(path string) error {
	n := len(r.Cells)
	str := func(name string, f func(c Cell) string) features.TableColumn {
		c := features.TableColumn{Name: name, Str: make([]string, n)}
		for i, x := range r.Cells {
			c.Str[i] = f(x)
		}
		return c
	}
	flt := func(name, unit string, f func(c Cell) float64) features.TableColumn {
		c := features.TableColumn{Name: name, Unit: unit, Float: make([]float64, n)}
		for i, x := range r.Cells {
			c.Float[i] = f(x)
		}
		return c
	}
	num := func(name, unit string, f func(c Cell) int) features.TableColumn {
		c := features.TableColumn{Name: name, Unit: unit, Int: make([]int64, n)}
		for i, x := range r.Cells {
			c.Int[i] = int64(f(x))
		}
		return c
	}
	t := &features.Table{Name: TableName, Version: TableVersion, Meta: map[string]string{
		"coloc.tool_version":   version.String(),
		"coloc.eval.decision":  strconv.FormatFloat(Decision, 'g', -1, 64),
		"coloc.eval.warnings":  strings.Join(r.Warnings, "\n"),
		"coloc.eval.protocols": strings.Join(Protocols, ","),
	}}
	t.Columns = []features.TableColumn{
		str("model", func(c Cell) string { return c.Model }),
		str("protocol", func(c Cell) string { return c.Protocol }),
		str("device", func(c Cell) string { return c.Device }),
		flt("fraction", "1", func(c Cell) float64 { return c.Fraction }),
		num("seed", "index", func(c Cell) int { return c.Seed }),
		num("n_test", "count", func(c Cell) int { return c.N }),
		flt("mae", "1", func(c Cell) float64 { return c.MAE }),
		flt("rmse", "1", func(c Cell) float64 { return c.RMSE }),
		flt("mape", "%", func(c Cell) float64 { return c.MAPE }),
		flt("r2", "1", func(c Cell) float64 { return c.R2 }),
		flt("spearman", "1", func(c Cell) float64 { return c.Spearman }),
		flt("agreement", "1", func(c Cell) float64 { return c.Agreement }),
		num("n_agreement", "count", func(c Cell) int { return c.NAgree }),
		flt("coverage", "1", func(c Cell) float64 { return c.Coverage }),
		flt("width", "1", func(c Cell) float64 { return c.Width }),
		flt("out_of_range", "1", func(c Cell) float64 { return c.OutOfRange }),
		num("n_unmeasured", "count", func(c Cell) int { return c.NUnmeasured }),
	}
	return features.WriteTable(path, t)
}

// jsonFloat writes NaN (no value) as null.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(float64(f), 'g', 6, 64)), nil
}

// WriteJSON prints one JSON object per summary.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, s := range r.Summaries {
		err := enc.Encode(struct {
			Model           string    `json:"model"`
			Protocol        string    `json:"protocol"`
			Device          string    `json:"device"`
			Fraction        float64   `json:"fraction"`
			Seeds           int       `json:"seeds"`
			NTest           int       `json:"n_test"`
			MAEMedian       jsonFloat `json:"mae_median"`
			RMSEMedian      jsonFloat `json:"rmse_median"`
			MAPEMedian      jsonFloat `json:"mape_median"`
			R2Median        jsonFloat `json:"r2_median"`
			SpearmanMedian  jsonFloat `json:"spearman_median"`
			AgreementMedian jsonFloat `json:"agreement_median"`
			CoverageMedian  jsonFloat `json:"coverage_median"`
			WidthMedian     jsonFloat `json:"width_median"`
			OutOfRange      jsonFloat `json:"out_of_range_median"`
		}{s.Model, s.Protocol, s.Device, s.Fraction, s.Seeds, s.NTest,
			jsonFloat(s.MAEMedian), jsonFloat(s.RMSEMedian), jsonFloat(s.MAPEMedian),
			jsonFloat(s.R2Median), jsonFloat(s.SpearmanMedian), jsonFloat(s.AgreementMedian),
			jsonFloat(s.CoverageMedian), jsonFloat(s.WidthMedian), jsonFloat(s.OutOfRangeMedian)})
		if err != nil {
			return err
		}
	}
	return nil
}

// WriteText prints the summaries as an aligned table.
func (r *Result) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%-10s %-12s %-7s %5s %6s %7s %7s %7s %7s %7s %7s %6s %6s %6s\n", "model", "protocol", "device", "frac", "n", "MAE", "RMSE", "MAPE%", "R2", "rho", "agree", "cover", "width", "oor%")
	for _, s := range r.Summaries {
		fmt.Fprintf(w, "%-10s %-12s %-7s %5.2f %6d %7.4f %7.4f %7.2f %7.3f %7.3f %7.3f %6.3f %6.3f %6.2f\n", s.Model, s.Protocol, s.Device, s.Fraction, s.NTest,
			s.MAEMedian, s.RMSEMedian, s.MAPEMedian, s.R2Median, s.SpearmanMedian, s.AgreementMedian,
			s.CoverageMedian, s.WidthMedian, 100*s.OutOfRangeMedian)
	}
	return nil
}

// CheckVersus returns an error unless every versus model is one of
// models and at least one model is in no group: each ratio row of
// WriteMarkdown compares the best of the others with the best of one
// group.
func CheckVersus(models []string, groups [][]string) error {
	_, err := versusSet(models, groups)
	return err
}

// versusSet checks groups against models (see CheckVersus) and returns
// the set of models named in some group.
func versusSet(models []string, groups [][]string) (map[string]bool, error) {
	named := map[string]bool{}
	for _, g := range groups {
		if len(g) == 0 {
			return nil, errors.New("an empty group of versus models")
		}
		for _, v := range g {
			if !slices.Contains(models, v) {
				return nil, fmt.Errorf("versus model %q is not among the models evaluated (%s)", v, strings.Join(models, ", "))
			}
			named[v] = true
		}
	}
	for _, m := range models {
		if !named[m] {
			return named, nil
		}
	}
	if len(groups) > 0 {
		return nil, errors.New("every model evaluated is a versus model: nothing is left to compare with them")
	}
	return named, nil
}

// WriteMarkdown prints, for each protocol, a table of median MAE with one
// row per model and one column per (device, fraction); the lowest MAE of a
// column is bold. Each group of versus models (names of models in the
// result) adds a last row that gives, per column, the lowest MAE of the
// models in no group over the lowest of the group's, and which other
// model it is: "best other / best baseline", the ratio an accuracy target
// is read from. Several groups give several rows over the same "other"
// models, e.g. generic tree ensembles, then trees given coloc's inputs.
func (r *Result) WriteMarkdown(w io.Writer, groups ...[]string) error {
	type col struct {
		dev  string
		frac float64
	}
	var protos []string
	cols := map[string][]col{}
	var models []string
	val := map[string]float64{}
	for _, s := range r.Summaries {
		if _, ok := cols[s.Protocol]; !ok {
			protos = append(protos, s.Protocol)
			cols[s.Protocol] = nil
		}
		c := col{s.Device, s.Fraction}
		seen := false
		for _, x := range cols[s.Protocol] {
			seen = seen || x == c
		}
		if !seen {
			cols[s.Protocol] = append(cols[s.Protocol], c)
		}
		known := false
		for _, m := range models {
			known = known || m == s.Model
		}
		if !known {
			models = append(models, s.Model)
		}
		val[fmt.Sprint(s.Protocol, "|", s.Model, "|", s.Device, "|", s.Fraction)] = s.MAEMedian
	}
	isVersus, err := versusSet(models, groups)
	if err != nil {
		return err
	}
	for _, p := range protos {
		fmt.Fprintf(w, "Protocol `%s`: median MAE of normalized throughput over seeds\n\n| model |", p)
		for _, c := range cols[p] {
			fmt.Fprintf(w, " %s %.1f |", c.dev, c.frac)
		}
		fmt.Fprint(w, "\n|---|")
		for range cols[p] {
			fmt.Fprint(w, "---:|")
		}
		fmt.Fprintln(w)
		best := make([]float64, len(cols[p]))
		for i, c := range cols[p] {
			best[i] = math.Inf(1)
			for _, m := range models {
				if v, ok := val[fmt.Sprint(p, "|", m, "|", c.dev, "|", c.frac)]; ok && v < best[i] {
					best[i] = v
				}
			}
		}
		for _, m := range models {
			fmt.Fprintf(w, "| %s |", m)
			for i, c := range cols[p] {
				v, ok := val[fmt.Sprint(p, "|", m, "|", c.dev, "|", c.frac)]
				switch {
				case !ok:
					fmt.Fprint(w, " |")
				case v == best[i]:
					fmt.Fprintf(w, " **%.4f** |", v)
				default:
					fmt.Fprintf(w, " %.4f |", v)
				}
			}
			fmt.Fprintln(w)
		}
		for _, g := range groups {
			fmt.Fprintf(w, "| best / best of %s |", strings.Join(g, ", "))
			for _, c := range cols[p] {
				bestOf := func(in func(string) bool) (string, float64) {
					name, low := "", math.Inf(1)
					for _, m := range models {
						if v, ok := val[fmt.Sprint(p, "|", m, "|", c.dev, "|", c.frac)]; ok && in(m) && v < low {
							name, low = m, v
						}
					}
					return name, low
				}
				name, num := bestOf(func(m string) bool { return !isVersus[m] })
				_, den := bestOf(func(m string) bool { return slices.Contains(g, m) })
				if name == "" || math.IsInf(den, 1) || den == 0 {
					fmt.Fprint(w, " |")
					continue
				}
				fmt.Fprintf(w, " %.3f (%s) |", num/den, name)
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
	return nil
}
