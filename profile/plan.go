package profile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// PlanOptions chooses the runs of a campaign.
type PlanOptions struct {
	// Pairs selects the pair runs: "all", "none", "fraction:F" (a seeded
	// random subset of about F of all pairs, 0 < F <= 1) or a comma-separated
	// list of "a+b" names.
	Pairs string
	// Degrees lists the parallel degrees to measure; 1 is the solo run,
	// degrees above GPUs are skipped.
	Degrees []int
	// Repeats is the number of runs of each solo, pair and scale
	// measurement.
	Repeats int
	// Duration is how long a protocol workload trains, warm-up included.
	Duration time.Duration
	// GPUs is the number of devices present (0 on a CPU-only machine).
	GPUs int
	// Seed drives the random subset of fraction:F.
	Seed uint64
	// Overhead estimates a process's start-up and tear-down time (Python,
	// torch import, device init); torchrun runs count it twice. The
	// default guesses a GPU's (CUDA initialisation); CPUOverhead suits a
	// CPU campaign.
	Overhead time.Duration
}

// DefaultPlanOptions are the defaults of `coloc profile run`.
var DefaultPlanOptions = PlanOptions{
	Pairs:    "all",
	Degrees:  []int{1, 2, 4, 8},
	Repeats:  3,
	Duration: 60 * time.Second,
	Seed:     1,
	Overhead: 5 * time.Second,
}

// CPUOverhead is the start-up estimate of a CPU campaign: with Debian's
// torch 1.13 on a 2-core machine, a tiny-suite run exited 0.6 s after its
// --duration when the machine was idle, up to 2.7 s when it was loaded.
const CPUOverhead = time.Second

// PlannedRun is one run of a plan. Its ID is derived from its content, so
// the same suite and options always give the same IDs and a rerun finds the
// runs it already did.
type PlannedRun struct {
	ID        string        `json:"id"`
	Mode      string        `json:"mode"` // datasets.ModeSolo, ModePair or ModeScale
	Workloads []string      `json:"workloads"`
	Degree    int           `json:"degree"`
	Repeat    int           `json:"repeat"`
	Est       time.Duration `json:"-"`
}

// Plan is the ordered list of runs of a campaign. Runs are ordered by
// repeat, and within a repeat solo runs come first (a pair's memory check and
// normalization need them), then scale runs, then pairs.
type Plan struct {
	Runs []PlannedRun
	// Notes say what was left out and why (a degree above the GPUs present,
	// a workload that cannot run under torchrun).
	Notes []string
}

// NewPlan builds the plan of suite s.
func NewPlan(s *Suite, o PlanOptions) (*Plan, error) {
	if o.Repeats <= 0 {
		return nil, fmt.Errorf("repeats must be positive, got %d", o.Repeats)
	}
	pairs, err := selectPairs(s, o.Pairs, o.Seed)
	if err != nil {
		return nil, err
	}
	degrees, notes, err := fitDegrees(o.Degrees, o.GPUs)
	if err != nil {
		return nil, err
	}
	scalable := map[string]bool{}
	for _, w := range s.Workloads {
		switch {
		case len(degrees) == 0:
		case w.Protocol != protocolColoc:
			notes = append(notes, fmt.Sprintf("no scale runs for %s: protocol none", w.Name))
		case len(w.Command) < 2 || w.Command[0] != placeholderPython:
			notes = append(notes, fmt.Sprintf("no scale runs for %s: torchrun needs a command starting with %s and the script", w.Name, placeholderPython))
		default:
			scalable[w.Name] = true
		}
	}
	p := &Plan{Notes: notes}
	for r := 0; r < o.Repeats; r++ {
		for _, w := range s.Workloads {
			p.Runs = append(p.Runs, PlannedRun{
				ID: fmt.Sprintf("solo.%s.r%d", w.Name, r), Mode: datasets.ModeSolo,
				Workloads: []string{w.Name}, Degree: 1, Repeat: r, Est: estimate(w, o, 1),
			})
		}
		for _, d := range degrees {
			for _, w := range s.Workloads {
				if !scalable[w.Name] {
					continue
				}
				p.Runs = append(p.Runs, PlannedRun{
					ID: fmt.Sprintf("scale.%s.d%d.r%d", w.Name, d, r), Mode: datasets.ModeScale,
					Workloads: []string{w.Name}, Degree: d, Repeat: r, Est: estimate(w, o, d),
				})
			}
		}
		for _, pr := range pairs {
			a, _ := s.workloadNamed(pr[0])
			b, _ := s.workloadNamed(pr[1])
			p.Runs = append(p.Runs, PlannedRun{
				ID: fmt.Sprintf("pair.%s+%s.r%d", a.Name, b.Name, r), Mode: datasets.ModePair,
				Workloads: []string{a.Name, b.Name}, Degree: 1, Repeat: r,
				Est: max(estimate(a, o, 1), estimate(b, o, 1)),
			})
		}
	}
	return p, nil
}

// estimate is the expected wall time of one run of w at degree d.
func estimate(w workload, o PlanOptions, d int) time.Duration {
	train := o.Duration
	if w.Protocol == protocolNone && w.EstStepS > 0 {
		train = time.Duration(float64(w.Steps) * w.EstStepS * float64(time.Second))
	}
	if d > 1 {
		return 2*o.Overhead + train
	}
	return o.Overhead + train
}

// selectPairs returns the unordered pairs (names in suite order, a workload
// with itself included) that spec selects, in suite order.
func selectPairs(s *Suite, spec string, seed uint64) ([][2]string, error) {
	var all [][2]string
	for i, a := range s.Workloads {
		for _, b := range s.Workloads[i:] {
			all = append(all, [2]string{a.Name, b.Name})
		}
	}
	switch {
	case spec == "" || spec == "all":
		return all, nil
	case spec == "none":
		return nil, nil
	case strings.HasPrefix(spec, "fraction:"):
		f, err := strconv.ParseFloat(strings.TrimPrefix(spec, "fraction:"), 64)
		if err != nil || !(f > 0 && f <= 1) {
			return nil, fmt.Errorf("--pairs %s: want fraction:F with 0 < F <= 1", spec)
		}
		n := max(1, int(math.Round(f*float64(len(all)))))
		rng := rand.New(rand.NewPCG(seed, 0x636f6c6f63)) // "coloc"
		idx := rng.Perm(len(all))[:n]
		slices.Sort(idx)
		out := make([][2]string, n)
		for i, j := range idx {
			out[i] = all[j]
		}
		return out, nil
	}
	order := map[string]int{}
	for i, w := range s.Workloads {
		order[w.Name] = i
	}
	seen := map[[2]string]bool{}
	for _, item := range strings.Split(spec, ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(item), "+")
		ia, oka := order[a]
		ib, okb := order[b]
		switch {
		case !ok:
			return nil, fmt.Errorf("--pairs: %q is not a pair (want a+b; or all, none, fraction:F)", item)
		case !oka:
			return nil, fmt.Errorf("--pairs: %q: no workload %q in suite %s", item, a, s.Name)
		case !okb:
			return nil, fmt.Errorf("--pairs: %q: no workload %q in suite %s", item, b, s.Name)
		}
		if ia > ib {
			a, b = b, a
		}
		seen[[2]string{a, b}] = true
	}
	var out [][2]string
	for _, pr := range all {
		if seen[pr] {
			out = append(out, pr)
		}
	}
	return out, nil
}

// fitDegrees returns the degrees above 1 that fit gpus, sorted, and notes on
// those that do not.
func fitDegrees(degrees []int, gpus int) ([]int, []string, error) {
	var out, skipped []int
	for _, d := range degrees {
		switch {
		case d <= 0:
			return nil, nil, fmt.Errorf("--degrees: %d is not a positive degree", d)
		case d == 1 || slices.Contains(out, d) || slices.Contains(skipped, d):
		case d > gpus:
			skipped = append(skipped, d)
		default:
			out = append(out, d)
		}
	}
	slices.Sort(out)
	var notes []string
	if len(skipped) > 0 {
		slices.Sort(skipped)
		notes = append(notes, fmt.Sprintf("degrees %s skipped: %d GPUs present", joinInts(skipped), gpus))
	}
	return out, notes, nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// Total is the estimated wall time of the whole plan.
func (p *Plan) Total() time.Duration {
	var t time.Duration
	for _, r := range p.Runs {
		t += r.Est
	}
	return t
}

// Hash identifies the runs of the plan (their IDs, in order); estimates do
// not enter it.
func (p *Plan) Hash() string {
	h := sha256.New()
	for _, r := range p.Runs {
		h.Write([]byte(r.ID))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// MarshalJSON writes a planned run with its estimate in seconds.
func (r PlannedRun) MarshalJSON() ([]byte, error) {
	type plain PlannedRun
	return json.Marshal(struct {
		plain
		EstS float64 `json:"est_s"`
	}{plain(r), r.Est.Seconds()})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (r *PlannedRun) UnmarshalJSON(b []byte) error {
	type plain PlannedRun
	var v struct {
		plain
		EstS float64 `json:"est_s"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = PlannedRun(v.plain)
	r.Est = time.Duration(v.EstS * float64(time.Second))
	return nil
}
