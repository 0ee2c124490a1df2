package eval

import (
	"errors"
	"fmt"
	"math"

	"github.com/coloc-dev/coloc/model"
)

// fitted is what one fit of a task gives: its scored test pairs and the
// count of its raw predictions outside the plausible range over the
// unmeasured pairs of the test slots.
type fitted struct {
	xs                  []scored
	outside, unmeasured int
}

// fitTask fits the model called name on tk's training pairs, calibrates
// its intervals with trust (when trust.Folds >= 2) and scores tk's test
// pairs with bounded predictions.
func fitTask(sp *model.Space, name string, tk task, seed int, trust model.TrustOptions) (fitted, error) {
	if len(tk.test) == 0 {
		return fitted{}, nil
	}
	m, err := model.New(name)
	if err != nil {
		return fitted{}, err
	}
	tr, err := model.NewTrain(sp, tk.train, uint64(seed))
	if err != nil {
		return fitted{}, err
	}
	if err := m.Fit(tr); err != nil {
		return fitted{}, err
	}
	tu := model.UncalibratedTrust(tr)
	calibrated := trust.Folds >= 2
	if calibrated {
		if tu, _, err = model.Calibrate(name, tr, trust); err != nil {
			return fitted{}, err
		}
	}
	out := fitted{xs: make([]scored, len(tk.test))}
	for i, o := range tk.test {
		e := tu.Estimate(m, sp.Jobs, o.A, o.B, o.S)
		if math.IsNaN(e.Raw) || math.IsInf(e.Raw, 0) {
			return fitted{}, fmt.Errorf("prediction for %s|%s is %v", sp.Jobs[o.A], sp.Jobs[o.B], e.Raw)
		}
		x := scored{a: o.A, b: o.B, s: o.S, y: o.Y, p: e.Value, lo: e.Lo, hi: e.Hi}
		if !calibrated {
			x.lo, x.hi = math.NaN(), math.NaN()
		}
		out.xs[i] = x
	}
	out.outside, out.unmeasured = outOfRange(sp, m, tu, tk)
	return out, nil
}

// outOfRange counts the raw predictions outside the plausible range over
// every ordered pair of jobs with solo features on a test slot of tk that
// tk does not train on.
func outOfRange(sp *model.Space, m model.Model, tu *model.Trust, tk task) (outside, n int) {
	type key struct{ a, b, s int }
	trained := map[key]bool{}
	for _, o := range tk.train {
		trained[key{o.A, o.B, o.S}] = true
	}
	slots := map[int]bool{}
	for _, o := range tk.test {
		slots[o.S] = true
	}
	nj := len(sp.Jobs)
	for s := range slots {
		for a := 0; a < nj; a++ {
			if sp.Row(a, s) == nil {
				continue
			}
			for b := 0; b < nj; b++ {
				if sp.Row(b, s) == nil || trained[key{a, b, s}] {
					continue
				}
				n++
				if !tu.Range.Contains(m.Predict(a, b, s)) {
					outside++
				}
			}
		}
	}
	return outside, n
}

// scoreTasks fits every task of one cell and returns its metrics and the
// number of fits.
func scoreTasks(sp *model.Space, name string, tasks []task, seed int, trust model.TrustOptions) (Cell, int, error) {
	var xs []scored
	outside, unmeasured, fits := 0, 0, 0
	for _, tk := range tasks {
		got, err := fitTask(sp, name, tk, seed, trust)
		if err != nil {
			return Cell{}, 0, err
		}
		if len(tk.test) > 0 {
			fits++
		}
		xs = append(xs, got.xs...)
		outside += got.outside
		unmeasured += got.unmeasured
	}
	c := Cell{Metrics: score(xs)}
	c.NUnmeasured = unmeasured
	c.OutOfRange = math.NaN()
	if unmeasured > 0 {
		c.OutOfRange = float64(outside) / float64(unmeasured)
	}
	return c, fits, nil
}

// hint says what to change when a cell cannot be fit.
func hint(err error) string {
	if errors.Is(err, model.ErrTooFewPairs) {
		return " (use larger --fractions or measure more pairs)"
	}
	return ""
}

// fitAndScore fits one task without intervals and returns its scored test
// pairs.
func fitAndScore(sp *model.Space, name string, tk task, seed int) ([]scored, error) {
	f, err := fitTask(sp, name, tk, seed, model.TrustOptions{Coverage: model.DefaultTrustOptions.Coverage})
	return f.xs, err
}
