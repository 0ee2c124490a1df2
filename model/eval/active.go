package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/coloc-dev/coloc/model"
)

// ActiveOptions control RunActive, the simulation of active selection on a
// fully measured dataset.
type ActiveOptions struct {
	Model      string
	Devices    []string // empty: DefaultDevices
	Seeds      int
	Strategies []string
	// Start is the share of the pairs profiled before the first choice (a
	// random seed set, the same for every strategy of one seed); Step the
	// share added per round; Stop the share after which the loop ends.
	Start, Step, Stop float64
	// Reference is the share of the ordered pairs, at random, the
	// all-pairs reference fit observes (the rest scores it).
	Reference float64
	Progress  io.Writer
}

// DefaultActiveOptions are the defaults of `coloc eval --protocol active`.
var DefaultActiveOptions = ActiveOptions{Model: "iasp", Seeds: 5, Strategies: model.Strategies,
	Start: 0.05, Step: 0.05, Stop: 0.5, Reference: 0.9}

// CurvePoint is the MAE of one strategy after profiling a share of the
// pairs, scored on the measured pairs not yet profiled.
type CurvePoint struct {
	Strategy string  `json:"strategy"`
	Device   string  `json:"device"`
	Seed     int     `json:"seed"`
	Fraction float64 `json:"fraction"` // share of the unordered pairs profiled
	Pairs    int     `json:"pairs"`    // unordered pairs profiled
	MAE      float64 `json:"mae"`
}

// CurveSummary is the median over seeds of one point of a learning curve.
type CurveSummary struct {
	Strategy  string  `json:"strategy"`
	Device    string  `json:"device"`
	Fraction  float64 `json:"fraction"`
	Seeds     int     `json:"seeds"`
	MAEMedian float64 `json:"mae_median"`
}

// ActiveResult holds the learning curves and the all-pairs reference.
type ActiveResult struct {
	Model     string
	Points    []CurvePoint
	Summaries []CurveSummary
	// Reference[device] is the median over seeds of the MAE of a fit on
	// ActiveOptions.Reference of the ordered pairs, scored on the rest:
	// what profiling (almost) every pair gives.
	Reference map[string]float64
	Warnings  []string
}

// RunActive simulates the loop profile -> fit -> choose -> profile on the
// measured pairs of each device: the pool is every unordered pair with a
// measured order; a strategy reveals the pairs it chooses (both orders);
// after each round the model is refit on the revealed pairs and scored on
// the measured pairs not yet revealed.
func RunActive(d *model.Data, o ActiveOptions) (*ActiveResult, error) {
	if o.Seeds < 1 || !(o.Start > 0 && o.Step > 0 && o.Stop <= 1 && o.Start <= o.Stop) {
		return nil, fmt.Errorf("active: seeds %d, start %v, step %v, stop %v: want seeds >= 1 and 0 < start <= stop <= 1, step > 0", o.Seeds, o.Start, o.Step, o.Stop)
	}
	devices := o.Devices
	if len(devices) == 0 {
		devices = defaultSlots(d)
	}
	res := &ActiveResult{Model: o.Model, Reference: map[string]float64{}, Warnings: d.Warnings}
	for _, dev := range devices {
		s, err := d.Space.Slot(dev)
		if err != nil {
			return nil, err
		}
		pool := map[[3]int][]model.Obs{}
		var target []model.Obs
		for _, ob := range d.Obs {
			if ob.S == s {
				k := [3]int{min(ob.A, ob.B), max(ob.A, ob.B), s}
				pool[k] = append(pool[k], ob)
				target = append(target, ob)
			}
		}
		if len(pool) < 4 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("active on %s: %d measured pairs are too few to simulate; skipped", dev, len(pool)))
			continue
		}
		keys := make([][3]int, 0, len(pool))
		for k := range pool {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return lessKey(keys[i], keys[j]) })
		var refs []float64
		for seed := 1; seed <= o.Seeds; seed++ {
			tk := split("pairs", target, nil, dev, o.Reference, seed, len(d.Space.Jobs))[0]
			if f, err := fitTask(d.Space, o.Model, tk, seed, model.TrustOptions{Coverage: model.DefaultTrustOptions.Coverage}); err == nil {
				refs = append(refs, score(f.xs).MAE)
			}
			order := rand.New(rand.NewPCG(uint64(seed), 0x5eed)).Perm(len(keys))
			nStart := max(1, int(math.Round(o.Start*float64(len(keys)))))
			for _, strat := range o.Strategies {
				revealed := map[[3]int]bool{}
				for _, i := range order[:nStart] {
					revealed[keys[i]] = true
				}
				for f := o.Start; ; f += o.Step {
					want := min(len(keys), int(math.Round(f*float64(len(keys)))))
					if want > len(revealed) {
						skip := skipSet(d.Space, s, pool, revealed)
						picks, err := pickNext(d, s, pool, revealed, skip, strat, want-len(revealed), uint64(seed)*1000+uint64(len(revealed)))
						if err != nil {
							return nil, err
						}
						for _, c := range picks {
							revealed[[3]int{c.A, c.B, c.S}] = true
						}
					}
					var tr, te []model.Obs
					for _, k := range keys {
						if revealed[k] {
							tr = append(tr, pool[k]...)
						} else {
							te = append(te, pool[k]...)
						}
					}
					if len(te) == 0 {
						break
					}
					got, err := fitTask(d.Space, o.Model, task{train: tr, test: te}, seed, model.TrustOptions{Coverage: model.DefaultTrustOptions.Coverage})
					if err != nil {
						res.Warnings = append(res.Warnings, fmt.Sprintf("active %s on %s, seed %d, %d pairs: skipped: %v%s", strat, dev, seed, len(revealed), err, hint(err)))
					} else {
						res.Points = append(res.Points, CurvePoint{Strategy: strat, Device: dev, Seed: seed,
							Fraction: math.Round(f*1000) / 1000, Pairs: len(revealed), MAE: score(got.xs).MAE})
					}
					if f+o.Step > o.Stop+1e-9 {
						break
					}
				}
				if o.Progress != nil {
					fmt.Fprintf(o.Progress, "active: %-11s %-6s seed %d done\n", strat, dev, seed)
				}
			}
		}
		res.Reference[dev] = median(refs)
	}
	res.Summaries = summariseCurves(res.Points)
	return res, nil
}

// skipSet returns the unordered pairs of slot s a strategy may not pick:
// those revealed and those outside the pool (never measured: they could
// not be scored).
func skipSet(sp *model.Space, s int, pool map[[3]int][]model.Obs, revealed map[[3]int]bool) map[[3]int]bool {
	skip := map[[3]int]bool{}
	nj := len(sp.Jobs)
	for a := 0; a < nj; a++ {
		for b := a; b < nj; b++ {
			k := [3]int{a, b, s}
			if _, in := pool[k]; !in || revealed[k] {
				skip[k] = true
			}
		}
	}
	return skip
}

func pickNext(d *model.Data, s int, pool map[[3]int][]model.Obs, revealed, skip map[[3]int]bool, strategy string, n int, seed uint64) ([]model.Candidate, error) {
	// The revealed pairs in key order: iterating the map would change the
	// order of the training set from run to run, and with it the last bits
	// of every sum in the fit, enough to flip near-tied choices.
	keys := make([][3]int, 0, len(revealed))
	for k := range revealed {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return lessKey(keys[i], keys[j]) })
	var measured []model.Obs
	for _, k := range keys {
		measured = append(measured, pool[k]...)
	}
	return model.SelectPairs(d.Space, measured, skip, []int{s}, model.SelectOptions{Strategy: strategy, Budget: n, Seed: seed})
}

// lessKey orders unordered-pair keys {a, b, slot} by slot, then a, then b.
func lessKey(x, y [3]int) bool {
	if x[2] != y[2] {
		return x[2] < y[2]
	}
	if x[0] != y[0] {
		return x[0] < y[0]
	}
	return x[1] < y[1]
}

func summariseCurves(pts []CurvePoint) []CurveSummary {
	type key struct {
		strat, dev string
		f          float64
	}
	groups := map[key][]float64{}
	var order []key
	for _, p := range pts {
		k := key{p.Strategy, p.Device, p.Fraction}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], p.MAE)
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].dev != order[j].dev {
			return order[i].dev < order[j].dev
		}
		if order[i].strat != order[j].strat {
			return order[i].strat < order[j].strat
		}
		return order[i].f < order[j].f
	})
	var out []CurveSummary
	for _, k := range order {
		out = append(out, CurveSummary{Strategy: k.strat, Device: k.dev, Fraction: k.f, Seeds: len(groups[k]), MAEMedian: median(groups[k])})
	}
	return out
}

// At returns the median MAE of a strategy on a device at a fraction, NaN
// when the curve has no such point.
func (r *ActiveResult) At(strategy, device string, fraction float64) float64 {
	for _, s := range r.Summaries {
		if s.Strategy == strategy && s.Device == device && math.Abs(s.Fraction-fraction) < 1e-9 {
			return s.MAEMedian
		}
	}
	return math.NaN()
}

// WriteText prints, per device, one row per strategy with its median MAE
// at each fraction, the all-pairs reference and the two checks of the
// chosen strategy (StrategyWidth): the smallest fraction at which its MAE
// is within 1.1x the reference, and its MAE at 0.2 over random's.
func (r *ActiveResult) WriteText(w io.Writer) error {
	devs := map[string]bool{}
	var devices []string
	var fracs []float64
	seenF := map[float64]bool{}
	for _, s := range r.Summaries {
		if !devs[s.Device] {
			devs[s.Device] = true
			devices = append(devices, s.Device)
		}
		if !seenF[s.Fraction] {
			seenF[s.Fraction] = true
			fracs = append(fracs, s.Fraction)
		}
	}
	sort.Float64s(fracs)
	for _, dev := range devices {
		fmt.Fprintf(w, "%s (%s): median MAE on the pairs not yet profiled, by share of pairs profiled; all-pairs reference %.4f\n", dev, r.Model, r.Reference[dev])
		fmt.Fprintf(w, "%-12s", "strategy")
		for _, f := range fracs {
			fmt.Fprintf(w, " %7.2f", f)
		}
		fmt.Fprintln(w)
		for _, st := range model.Strategies {
			fmt.Fprintf(w, "%-12s", st)
			for _, f := range fracs {
				fmt.Fprintf(w, " %7.4f", r.At(st, dev, f))
			}
			fmt.Fprintln(w)
		}
		within := math.NaN()
		for _, f := range fracs {
			if r.At(model.StrategyWidth, dev, f) <= 1.1*r.Reference[dev] {
				within = f
				break
			}
		}
		reached := fmt.Sprintf("first within 1.1x of all pairs at %.2f of the pairs", within)
		if math.IsNaN(within) && len(fracs) > 0 {
			reached = fmt.Sprintf("not within 1.1x of all pairs by %.2f of the pairs", fracs[len(fracs)-1])
		}
		fmt.Fprintf(w, "%s: %s; at 0.20, %.2fx random's MAE\n\n", model.StrategyWidth, reached,
			r.At(model.StrategyWidth, dev, 0.2)/r.At(model.StrategyRandom, dev, 0.2))
	}
	return nil
}

// WriteJSON prints one JSON object per curve summary.
func (r *ActiveResult) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, s := range r.Summaries {
		if err := enc.Encode(struct {
			CurveSummary
			Reference float64 `json:"all_pairs_mae"`
		}{s, r.Reference[s.Device]}); err != nil {
			return err
		}
	}
	return nil
}
