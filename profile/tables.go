package profile

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// Tables are the dataset tables a campaign writes, built from its journal.
type Tables struct {
	Runs    *datasets.RunsTable
	Solo    *datasets.SoloTable
	Pairs   *datasets.Pairs
	Scaling *datasets.ScalingTable // nil when the plan has no scale runs
	// Warnings say what could not be tabulated (a pair without a solo
	// value) and why.
	Warnings []string
}

// list returns the tables to write, runs first.
func (t *Tables) list() []*datasets.Table {
	out := []*datasets.Table{t.Runs.Table(), t.Solo.Table(), t.Pairs.Table()}
	if t.Scaling != nil {
		out = append(out, t.Scaling.Table())
	}
	return out
}

// buildTables tabulates the records of a campaign, in plan order. Records
// of runs not in the plan are ignored. source is "coloc:<campaign>".
//
// Values are kept apart by the device type each run recorded, so the
// records of shards that ran on different GPU types (a heterogeneous fleet)
// give one solo, pairs and scaling row per device type; a pair is
// normalized by the solo value of the same device type only.
func buildTables(campaign string, s *Suite, plan *Plan, recs map[string]*RunRecord) *Tables {
	source := "coloc:" + campaign
	t := &Tables{
		Runs:  &datasets.RunsTable{ThroughputUnit: datasets.UnitSamplesPerS},
		Solo:  &datasets.SoloTable{ThroughputUnit: datasets.UnitSamplesPerS},
		Pairs: &datasets.Pairs{ThroughputUnit: datasets.UnitSamplesPerS},
	}
	type key struct {
		w, dev string
		d      int
	}
	soloRuns := map[key][]*RunRecord{}
	var soloOrder []key
	var pairOrder []pairKey
	pairRecs := map[pairKey][]*RunRecord{}
	hasScale := false
	for _, pr := range plan.Runs {
		hasScale = hasScale || pr.Mode == datasets.ModeScale
		r := recs[pr.ID]
		if r == nil {
			continue
		}
		t.Runs.Rows = append(t.Runs.Rows, runRows(campaign, r)...)
		switch r.Mode {
		case datasets.ModePair:
			k := pairKey{pr.Workloads[0], pr.Workloads[1], r.DeviceType}
			if pairRecs[k] == nil {
				pairOrder = append(pairOrder, k)
			}
			pairRecs[k] = append(pairRecs[k], r)
		default:
			side := r.Sides[0]
			if side.Status != datasets.StatusOK {
				continue
			}
			k := key{side.Workload, r.DeviceType, r.Degree}
			if soloRuns[k] == nil {
				soloOrder = append(soloOrder, k)
			}
			soloRuns[k] = append(soloRuns[k], r)
		}
	}
	solo := map[string]map[string]soloValue{} // device type -> workload -> degree-1 value
	for _, k := range soloOrder {
		w, _ := s.workloadNamed(k.w)
		var tput, step []float64
		spread, pm := 0.0, math.NaN() // the largest spread of an unsettled run; peak memory
		var loose []string
		for _, r := range soloRuns[k] { // peak memory is the workload's own: every run's counts
			if p := r.Sides[0].PeakMemory; p != nil && (math.IsNaN(pm) || *p > pm) {
				pm = *p
			}
		}
		used, shared := alone(soloRuns[k])
		for _, r := range used {
			side := r.Sides[0]
			tput = append(tput, *side.Throughput)
			step = append(step, *side.StepTime)
			if side.Unsettled() {
				spread = max(spread, val0(side.Spread))
				loose = append(loose, r.RunID)
			}
		}
		e := widen(MeanCI(tput), spread)
		if len(shared) > 0 { // the solo and scaling tables have no status to say it
			t.Warnings = append(t.Warnings, fmt.Sprintf("solo value of %s on %s at %d GPU(s) measured only beside another tenant's processes, in run %s (coloc profile run --retry-shared reruns them)",
				k.w, k.dev, k.d, strings.Join(shared, ", ")))
		}
		if k.d == 1 {
			if solo[k.dev] == nil {
				solo[k.dev] = map[string]soloValue{}
			}
			solo[k.dev][k.w] = soloValue{e, loose, shared}
		}
		t.Solo.Rows = append(t.Solo.Rows, datasets.Solo{
			Workload: k.w, DeviceType: k.dev, Degree: k.d, BatchSize: w.BatchSize,
			Throughput: e.Mean, CILow: e.Low, CIHigh: e.High, Repeats: e.N,
			PeakMemory: pm, Source: source,
		})
		if hasScale {
			if t.Scaling == nil {
				t.Scaling = &datasets.ScalingTable{ThroughputUnit: datasets.UnitSamplesPerS}
			}
			t.Scaling.Rows = append(t.Scaling.Rows, datasets.Scale{
				Workload: k.w, DeviceType: k.dev, Degree: k.d, Nodes: 1, BatchSize: w.BatchSize,
				Throughput: e.Mean, StepTime: MeanCI(step).Mean, SyncTime: math.NaN(), Source: source,
			})
		}
	}
	for _, k := range pairOrder {
		rows, warns := pairRows(k, pairRecs[k], solo[k.dev], source)
		t.Pairs.Rows = append(t.Pairs.Rows, rows...)
		t.Warnings = append(t.Warnings, warns...)
	}
	return t
}

// soloValue is a degree-1 solo value, the unsettled runs behind it and
// those measured beside another tenant.
type soloValue struct {
	meanCI
	unsettled, shared []string
}

// alone returns the runs of recs to take a value from: those measured
// alone on their GPUs when there are any (a run beside another tenant's
// processes measured that load too, and is dropped), else all of them,
// with the IDs of those that were shared (shared is then not empty).
func alone(recs []*RunRecord) (used []*RunRecord, shared []string) {
	for _, r := range recs {
		if len(r.Shared) == 0 {
			used = append(used, r)
		}
	}
	if len(used) > 0 {
		return used, nil
	}
	for _, r := range recs {
		shared = append(shared, r.RunID)
	}
	return recs, shared
}

// widen widens e's interval to at least ±u·mean, the uncertainty of its
// unsettled runs (u = 0: none). The low end is clamped at 0.
func widen(e meanCI, u float64) meanCI {
	if u <= 0 {
		return e
	}
	lo, hi := max(e.Mean*(1-u), 0), e.Mean*(1+u)
	if !math.IsNaN(e.Low) {
		lo, hi = min(lo, e.Low), max(hi, e.High)
	}
	e.Low, e.High = lo, hi
	return e
}

// pairKey is an unordered pair (names in suite order) on one device type.
type pairKey struct {
	a, b, dev string
}

// runRows is a run's rows of the runs table: one, or one per side of a
// pair, whose run_id is "<run>/<label>".
func runRows(campaign string, r *RunRecord) []datasets.Run {
	var out []datasets.Run
	for i, s := range r.Sides {
		row := datasets.Run{
			Campaign: campaign, RunID: r.RunID, Mode: r.Mode, Workload: s.Workload,
			DeviceType: r.DeviceType, DeviceIDs: r.DeviceIDs, Degree: r.Degree, ShareMode: r.Share,
			Repeat: r.Repeat, Start: r.Start, End: r.End, Steps: s.Steps,
			Throughput: val(s.Throughput), WindowS: val(s.WindowS), PeakMemory: val(s.PeakMemory),
			Status: s.Status, Error: s.Error, Shared: strings.Join(r.Shared, "; "),
		}
		if s.Settled != nil {
			row.Settled = datasets.SettledNo
			if *s.Settled {
				row.Settled = datasets.SettledYes
			}
		}
		if s.WindowFrom != nil && s.WindowTo != nil {
			row.WindowStart = r.Start.Add(seconds(*s.WindowFrom))
			row.WindowEnd = r.Start.Add(seconds(*s.WindowTo))
		}
		if r.Mode == datasets.ModePair {
			row.RunID = r.RunID + "/" + s.Label
			row.Partner = r.Sides[1-i].Workload
		}
		out = append(out, row)
	}
	return out
}

// pairRows gives the ordered rows of one unordered pair from its runs: both
// orders (one for a workload with itself), with the mean over repeats and a
// propagated CI. A pair none of whose runs succeeded is infeasible when one
// was refused by the memory check or ran out of memory, and absent (its
// runs say why) otherwise. A row measured from an unsettled pair run, or
// normalized by a solo value with an unsettled run, is suspect; so is one
// measured, or normalized by a solo value measured, only in runs that
// shared the GPU with another tenant (alone); the warnings say which runs
// made it so.
func pairRows(pk pairKey, recs []*RunRecord, solo map[string]soloValue, source string) ([]datasets.Pair, []string) {
	k, devType := [2]string{pk.a, pk.b}, pk.dev
	self := k[0] == k[1]
	var co [2][]float64
	var coSpread [2]float64
	var loose []string
	infeasible := false
	var ok []*RunRecord
	for _, r := range recs {
		if r.Status != datasets.StatusOK {
			infeasible = infeasible || r.Status == datasets.StatusInfeasible || ranOutOfMemory(r)
			continue
		}
		ok = append(ok, r)
	}
	ok, shared := alone(ok)
	for _, r := range ok {
		a, b := *r.Sides[0].Throughput, *r.Sides[1].Throughput
		sa, sb := val0(r.Sides[0].Spread), val0(r.Sides[1].Spread)
		if self {
			a = (a + b) / 2
			b = a
			sa = max(sa, sb)
			sb = sa
		}
		if r.unsettled() {
			loose = append(loose, r.RunID)
		}
		co[0] = append(co[0], a)
		co[1] = append(co[1], b)
		coSpread[0], coSpread[1] = max(coSpread[0], sa), max(coSpread[1], sb)
	}
	order := [][2]int{{0, 1}, {1, 0}}
	if self {
		order = order[:1]
	}
	var rows []datasets.Pair
	var warns []string
	for _, o := range order {
		w, p := k[o[0]], k[o[1]]
		row := datasets.Pair{Workload: w, Partner: p, DeviceType: devType, Degree: 1, Source: source,
			Solo: math.NaN(), Colocated: math.NaN(), Normalized: math.NaN(), NormLow: math.NaN(), NormHigh: math.NaN()}
		se, haveSolo := solo[w]
		if haveSolo {
			row.Solo = se.Mean
		}
		switch {
		case len(co[o[0]]) == 0 && infeasible:
			row.Status = datasets.StatusInfeasible
		case len(co[o[0]]) == 0:
			return nil, nil
		case !haveSolo:
			return nil, []string{fmt.Sprintf("pair %s+%s: left out of pairs: no solo value of %s on %s to normalize by", k[0], k[1], w, devType)}
		default:
			ce := widen(MeanCI(co[o[0]]), coSpread[o[0]])
			n := ratio(ce, se.meanCI)
			row.Colocated, row.Normalized = ce.Mean, ce.Mean/se.Mean
			row.NormLow, row.NormHigh, row.Repeats = n.Low, n.High, ce.N
			row.Status = datasets.StatusOK
			var why, retry []string
			for _, c := range []struct {
				pair, solo           []string // the pair runs, the solo runs behind it
				inPair, inSolo, flag string
			}{
				{loose, se.unsettled, "step time never settled in pair run", "whose step time never settled in run", "--retry-unsettled"},
				{shared, se.shared, "another tenant's processes shared the GPU in pair run", "measured beside another tenant's processes in run", "--retry-shared"},
			} {
				if len(c.pair) > 0 {
					why = append(why, c.inPair+" "+strings.Join(c.pair, ", "))
				}
				if len(c.solo) > 0 {
					why = append(why, fmt.Sprintf("normalized by the solo value of %s, %s %s", w, c.inSolo, strings.Join(c.solo, ", ")))
				}
				if len(c.pair)+len(c.solo) > 0 {
					retry = append(retry, c.flag)
				}
			}
			if len(why) > 0 {
				row.Status = datasets.StatusSuspect
				warns = append(warns, fmt.Sprintf("pair %s|%s on %s is suspect: %s (coloc profile run %s reruns them)", w, p, devType, strings.Join(why, "; "), strings.Join(retry, " ")))
			}
		}
		rows = append(rows, row)
	}
	return rows, warns
}

// ranOutOfMemory reports whether a side of r failed for lack of memory.
func ranOutOfMemory(r *RunRecord) bool {
	for _, s := range r.Sides {
		if strings.HasPrefix(s.Error, "out of memory") {
			return true
		}
	}
	return false
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// val0 is *p, 0 when p is nil.
func val0(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
