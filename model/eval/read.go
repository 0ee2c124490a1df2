package eval

import (
	"fmt"
	"math"
	"strings"

	"github.com/coloc-dev/coloc/features"
)

// Read reads a result file written by Result.Write (table TableName,
// version TableVersion; another table or version is refused) and
// recomputes the summaries from its cells, grouped by (model, protocol,
// device, fraction) in the order the file first names each group, which is
// the order Run produces. Every problem names the file, row and column.
func Read(path string) (*Result, error) {
	t, err := features.ReadTable(path, TableName, TableVersion)
	if err != nil {
		return nil, err
	}
	col := func(name string, kind byte) (*features.TableColumn, error) {
		c := t.Column(name)
		ok := c != nil
		if ok {
			switch kind {
			case 's':
				ok = c.Str != nil
			case 'i':
				ok = c.Int != nil
			default:
				ok = c.Float != nil
			}
		}
		if !ok {
			want := map[byte]string{'s': "string", 'i': "integer", 'f': "float"}[kind]
			return nil, fmt.Errorf("%s: column %s: missing or not of type %s", path, name, want)
		}
		return c, nil
	}
	var cols struct {
		model, protocol, device                   *features.TableColumn
		fraction, mae, rmse, mape, r2, rho, agree *features.TableColumn
		seed, n, nAgree                           *features.TableColumn
		cover, width, oor, nUnmeasured            *features.TableColumn
	}
	for _, c := range []struct {
		dst  **features.TableColumn
		name string
		kind byte
	}{
		{&cols.model, "model", 's'}, {&cols.protocol, "protocol", 's'}, {&cols.device, "device", 's'},
		{&cols.fraction, "fraction", 'f'}, {&cols.seed, "seed", 'i'}, {&cols.n, "n_test", 'i'},
		{&cols.mae, "mae", 'f'}, {&cols.rmse, "rmse", 'f'}, {&cols.mape, "mape", 'f'},
		{&cols.r2, "r2", 'f'}, {&cols.rho, "spearman", 'f'}, {&cols.agree, "agreement", 'f'},
		{&cols.nAgree, "n_agreement", 'i'},
		{&cols.cover, "coverage", 'f'}, {&cols.width, "width", 'f'}, {&cols.oor, "out_of_range", 'f'},
		{&cols.nUnmeasured, "n_unmeasured", 'i'},
	} {
		if *c.dst, err = col(c.name, c.kind); err != nil {
			return nil, err
		}
	}
	n := len(cols.model.Str)
	res := &Result{}
	if w := t.Meta["coloc.eval.warnings"]; w != "" {
		res.Warnings = strings.Split(w, "\n")
	}
	type key struct {
		model, protocol, device string
		fraction                float64
	}
	groups := map[key][]Cell{}
	var order []key
	for i := 0; i < n; i++ {
		c := Cell{
			Model: cols.model.Str[i], Protocol: cols.protocol.Str[i], Device: cols.device.Str[i],
			Fraction: cols.fraction.Float[i], Seed: int(cols.seed.Int[i]),
			Metrics: Metrics{
				N: int(cols.n.Int[i]), MAE: cols.mae.Float[i], RMSE: cols.rmse.Float[i], MAPE: cols.mape.Float[i],
				R2: cols.r2.Float[i], Spearman: cols.rho.Float[i], Agreement: cols.agree.Float[i], NAgree: int(cols.nAgree.Int[i]),
				Coverage: cols.cover.Float[i], Width: cols.width.Float[i], OutOfRange: cols.oor.Float[i], NUnmeasured: int(cols.nUnmeasured.Int[i]),
			},
		}
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", path, i+1, err)
		}
		k := key{c.Model, c.Protocol, c.Device, c.Fraction}
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c)
		res.Cells = append(res.Cells, c)
	}
	for _, k := range order {
		res.Summaries = append(res.Summaries, summarise(groups[k]))
	}
	return res, nil
}

// check reports the first column of a cell read from a file whose value
// Run could not have written.
func (c Cell) check() error {
	switch {
	case c.Model == "":
		return fmt.Errorf("column model: empty")
	case c.Device == "":
		return fmt.Errorf("column device: empty")
	case !known(c.Protocol):
		return fmt.Errorf("column protocol: %q is not one of %s", c.Protocol, strings.Join(Protocols, ", "))
	case !(c.Fraction >= 0 && c.Fraction < 1):
		return fmt.Errorf("column fraction: %v is not in [0, 1)", c.Fraction)
	case c.Seed < 1:
		return fmt.Errorf("column seed: %d is not at least 1", c.Seed)
	case c.N < 0 || c.NAgree < 0 || c.NAgree > c.N:
		return fmt.Errorf("column n_test or n_agreement: %d and %d are not counts with n_agreement <= n_test", c.N, c.NAgree)
	}
	for _, m := range []struct {
		name string
		v    float64
	}{{"coverage", c.Coverage}, {"out_of_range", c.OutOfRange}} {
		if m.v < 0 || m.v > 1 {
			return fmt.Errorf("column %s: %v is not a share in [0, 1]", m.name, m.v)
		}
	}
	if c.Width < 0 || math.IsInf(c.Width, 0) {
		return fmt.Errorf("column width: %v is not a non-negative width", c.Width)
	}
	if c.NUnmeasured < 0 {
		return fmt.Errorf("column n_unmeasured: %d is not a count", c.NUnmeasured)
	}
	for _, m := range []struct {
		name string
		v    float64
	}{{"mae", c.MAE}, {"rmse", c.RMSE}, {"mape", c.MAPE}} {
		if m.v < 0 || math.IsInf(m.v, 0) || (c.N > 0 && math.IsNaN(m.v)) {
			return fmt.Errorf("column %s: %v is not a non-negative error", m.name, m.v)
		}
	}
	return nil
}

func known(protocol string) bool {
	for _, p := range Protocols {
		if p == protocol {
			return true
		}
	}
	return false
}
