package policies

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/coloc-dev/coloc/place/decide"

	"github.com/coloc-dev/coloc/sim"
)

// Durations says what a policy knows of a job's remaining work.
type Durations int

// Ways to estimate remaining work.
const (
	// Known: the trace's steps are known (a scheduler told the iteration
	// count), remaining work is Steps - Done.
	Known Durations = iota
	// Attained: the steps are unknown; a job expected to run as long again
	// as it has run (see Rule).
	Attained
)

func (d Durations) String() string {
	if d == Attained {
		return "attained"
	}
	return "known"
}

// Queue orders, in which waiting jobs choose.
const (
	OrderShortest = "shortest" // shortest predicted remaining GPU time first
	OrderArrival  = "arrival"
)

// SetOrder sets the order in which waiting jobs choose: OrderShortest
// (the default) or OrderArrival.
func (r *Rule) SetOrder(order string) error {
	switch order {
	case OrderShortest, "":
		r.shortestFirst = true
	case OrderArrival:
		r.shortestFirst = false
	default:
		return fmt.Errorf("order %q: want %s or %s", order, OrderShortest, OrderArrival)
	}
	return nil
}

// ParseDurations reads "attained" (or "", the default: durations
// unknown) or "known" (foresight) for the rule; "estimate" is the
// decision core's alone (Config.Check takes it).
func ParseDurations(s string) (Durations, error) {
	switch s {
	case "known":
		return Known, nil
	case "attained", "":
		return Attained, nil
	case decide.Estimate:
		return Attained, fmt.Errorf("durations %q: the rule (coloc-rule, oracle-rule) takes known or attained; estimate is coloc's and oracle's", s)
	}
	return Attained, fmt.Errorf("durations %q: want %s, %s or %s", s, decide.Attained, decide.Estimate, decide.Known)
}

// PairRate is a normalized-throughput estimate for a workload next to a
// partner on a placement: predicted (coloc) or measured (oracle).
type PairRate func(v *sim.View, w, partner string, sh sim.Shape) (float64, bool)

// Rule is the completion-time placement of coloc and the oracle. At every
// arrival and completion it takes the waiting jobs in arrival order and,
// for each, compares its options by the predicted change in the sum of
// the completion times of the jobs involved (the objective is the average
// JCT, so the sum is what counts):
//
//   - run now on free GPUs of type t: the job finishes after W/s_t (W its
//     remaining work in iterations, s_t its solo rate there);
//   - wait for type t: it starts when enough GPUs of type t free up, at
//     T_t (the GPUs' predicted free times, sorted, after the GPUs the jobs
//     ahead of it in the queue wait for), and then takes W/s_t;
//   - share the GPUs of a job r running alone there: both run at their
//     predicted normalized throughputs x until the first finishes, the
//     other then alone. Its cost is the job's completion time plus the
//     delay it causes r, against r running alone.
//
// It takes the option of least cost (free first, then sharing, then
// waiting on ties); a job that chooses to wait takes nothing, and the
// jobs behind it are tried next (no head-of-line blocking). Jobs choose
// shortest predicted remaining GPU time first (remaining solo time on
// their fastest type times their GPUs): for a sum of completion times the
// shortest job first is the order that follows from the objective
// (Smith's rule); SetOrder(OrderArrival) gives arrival order instead. Only the two
// jobs of a decision are counted: the delay sharing causes to jobs
// queued for the same GPUs is left out (a first-order rule).
//
// Remaining work is Steps - Done when durations are Known. When they are
// not (Attained) a job is expected to need as much solo time again as it
// has had (the mean residual life of a job whose size follows a Pareto law
// of shape 2, the heavy tail of cluster traces), and at least the mean
// solo time of the jobs that completed so far (before any completed,
// PriorS). The floor MinNormalized (0: off) refuses a pair in which a job
// is predicted below it: an SLO guard, not part of the rule.
type Rule struct {
	name      string
	solo      sim.Rates
	pair      PairRate
	durations Durations
	floor     float64
	moves     bool // re-plan running jobs (replan)
	// ShortestFirst orders the queue by predicted remaining GPU time.
	shortestFirst bool

	soloMemo map[soloKey]float64
	pairMemo map[pairKey]pairVal
	dense    denseMemo // soloMemo and pairMemo as slices (memo.go)
	wids     map[string]int32
	types    []string
	wid      []int32          // job ID -> workload index + 1 (0: not yet)
	shapeTab [][]shapeSet     // by workload index, degree (classes.go)
	pairTab  [][][]pairStatic // by workload indices, shape (classes.go)
	base     baseLists        // the first plan's lists of this call (classes.go)
	order    queueOrder       // the waiting queue, shortest first (queue.go)
	waits    []waitAt         // decide's buffer
	// plain: ask every question anew (no remembered partners, the queue
	// sorted whole), for tests of the indexes against a plain scan.
	plain    bool
	last     map[int]doneJob // running jobs at the previous call
	sumDone  float64         // solo seconds of the completed jobs
	doneJobs int
	// keep: remember the options the last call chose (chosen) and the job
	// it let choose first, -1 none (the export reads them).
	keep   bool
	chosen map[int]option
	first  int
	// allow, when set, narrows a job's degrees (by job ID) to those its
	// job list allows (the export).
	allow map[int][]int
	// fast holds each job's highest solo rate by job ID, -1 none, 0 not
	// yet known (replan.go).
	fast      []float64
	fastTypes []string
	fastOf    []string // the types slice last compared with fastTypes
	// kindSeen marks, by workload index and shape slot, the kinds of
	// lone jobs lonesOf has found in its pass numbered kindGen.
	kindSeen [][]uint64
	kindGen  uint64
	candBuf  []shareCand // sharesOf's scratch list
	// carry holds lone jobs and partner lists from call to call
	// (classes.go).
	carry carried
	// passDone, when set, sees every plan at the end of a pass (tests
	// check what the plan keeps against a scan).
	passDone func(*planState)
	runs     []runShape // by job ID (runShapeOf)
	// freeOrd holds, by type index, the type's GPUs in the order of
	// their free times at the last sort (sortFree), for freeTopo.
	freeOrd  [][]int
	freeTopo *sim.Topology
	// The searches of plans (freeFor, loneAt), by type index and
	// degree, or by degree, each for the plan stamp it holds.
	freeTab   [][]freeFound
	loneTab   []loneFound
	stamp     uint64
	callStamp uint64
	stampView *sim.View
	// Buffers for sorted free times, the first sortUsed in use in this
	// call (sortBuf).
	sortPool [][]float64
	sortUsed int
	least    []leastAt // by job ID (leastWork)
	// newPlan's free times, from the running jobs and given.
	freeBuf, freeBuf2 []float64
}

// degreesOf returns the degrees j may run on: its own, narrowed by
// r.allow.
func (r *Rule) degreesOf(j *sim.Job) []int {
	a, ok := r.allow[j.ID]
	if !ok {
		return j.Degrees
	}
	var out []int
	for _, d := range j.Degrees {
		if slices.Contains(a, d) {
			out = append(out, d)
		}
	}
	return out
}

// PriorS is the expected solo run time, in seconds, of a job before any
// has completed when durations are unknown: one hour, the order of the
// median job of the Philly and Gavel traces. It matters only until the
// first completion.
const PriorS = 3600.0

type doneJob struct {
	steps float64
	rate  float64
}

// NewRule returns the rule called name, estimating solo rates with solo
// and pair rates with pair.
func NewRule(name string, solo sim.Rates, pair PairRate, d Durations, minNormalized float64) *Rule {
	return &Rule{name: name, solo: solo, pair: pair, durations: d, floor: minNormalized, moves: true, shortestFirst: true, soloMemo: map[soloKey]float64{}, pairMemo: map[pairKey]pairVal{}, wids: map[string]int32{}, last: map[int]doneJob{}}
}

// Name returns the policy's name.
func (r *Rule) Name() string { return r.name }

// planState is the plan of one call and the predicted time each GPU
// frees up under it. Per-type state is indexed by the position of the
// type in Topology.Types.
type planState struct {
	v      *sim.View
	p      *sim.Plan
	types  []string
	freeAt []float64   // by GPU
	byType [][]float64 // the free times of each type's GPUs, sorted
	// sortedShared: by type, byType is also the first plan's copy
	// (baseLists), to be copied before it is changed.
	sortedShared []bool
	dirty        []bool
	ahead        []int // GPUs of each type the jobs ahead wait for
	free         []int // GPUs of each type the plan leaves free
	// stamp names the plan's occupancy for the searches Rule remembers
	// (stampPlan).
	stamp uint64
	// shares remembers the partners a workload may share with at a
	// degree, revised as the plan changes (classes.go).
	shares   byKey[*shareList]
	loneInfo map[int][]loneInfo // by degree, revised as the plan changes
	// loneShared: by degree, loneInfo is also the first plan's copy
	// (baseLists), to be copied before it is changed.
	loneShared map[int]bool
	// loneKinds holds one job of each workload and shape of loneInfo.
	loneKinds map[int][]loneInfo
	// The makespan guard (critical.go).
	horizon float64 // lower bound of the makespan
	// latest is the latest of now and the GPUs' free times, kept as
	// they change (freeUntil); latest0 as the plan started.
	latest, latest0 float64
	chosen          map[int]option // by job ID, when the rule keeps its choices
	held            []float64      // by type: when a critical job waiting for it starts
	isHeld          []bool
	plain           bool // Rule.plain
	rule            *Rule
	placed          bool // the plan has changed the placement
	// log lists the plan's placements in order: for partner lists found
	// after some (carried.plan), and the jobs it moved (replan).
	log []placement
	// base, when set, keeps a copy of the partner lists found before
	// any change, for the next plan of the same call (startFrom).
	base *baseLists
}

// Schedule places the waiting jobs by the rule.
func (r *Rule) Schedule(v *sim.View) (*sim.Plan, error) {
	r.observe(v)
	arrivedOrFinished := v.Events&(sim.Arrived|sim.Finished) != 0
	if !arrivedOrFinished && (!r.moves || !anyFree(v)) {
		return nil, nil // a round tick with no free GPU changes nothing
	}
	ps := r.newPlan(v, nil)
	first := -1
	if arrivedOrFinished {
		q := r.queue(v)
		r.horizon(ps)
		freeAt := slices.Clone(ps.freeAt)
		r.base = baseLists{}
		ps.base = &r.base
		r.carryOver(ps)
		m1, s1, last := r.pass(ps, q, -1)
		if last >= 0 {
			// The job predicted to end last waits: plan again with it
			// first, keep that plan if the makespan ends sooner
			// (critical.go).
			ps2 := r.newPlan(v, freeAt)
			ps2.horizon, ps2.latest = ps.horizon, ps.latest0
			ps2.startFrom(r.base)
			if m2, s2, _ := r.pass(ps2, q, last); m2 < m1 && s2+m2 < s1+m1 {
				ps, first = ps2, last
			}
		}
	}
	if r.keep {
		r.chosen, r.first = ps.chosen, first
	}
	if r.moves {
		r.replan(ps)
	}
	return ps.p, nil
}

// newPlan starts a plan from the current placement, with the predicted
// time each GPU frees up: freeAt when given (a copy is kept), else found
// from the running jobs.
func (r *Rule) newPlan(v *sim.View, freeAt []float64) *planState {
	types := v.Topology.Types()
	nt := len(types)
	ps := &planState{v: v, p: v.Plan(), types: types, byType: make([][]float64, nt), sortedShared: make([]bool, nt), dirty: make([]bool, nt), ahead: make([]int, nt), free: make([]int, nt),
		held: make([]float64, nt), isHeld: make([]bool, nt), plain: r.plain, rule: r}
	r.stampPlan(ps)
	if r.keep {
		ps.chosen = map[int]option{}
	}
	for i, t := range types {
		ps.dirty[i] = true
		ps.free[i] = ps.p.FreeOf(t)
	}
	// The plans of one call are done with when it returns: one buffer
	// serves the plan a call starts from the running jobs, the other
	// the one it starts from given free times.
	if freeAt != nil {
		r.freeBuf2 = append(r.freeBuf2[:0], freeAt...)
		ps.freeAt = r.freeBuf2
		return ps
	}
	r.freeBuf = slices.Grow(r.freeBuf[:0], len(v.Topology.GPUs))[:len(v.Topology.GPUs)]
	ps.freeAt = r.freeBuf
	for i := range ps.freeAt {
		ps.freeAt[i] = v.Now
	}
	for _, j := range v.Running {
		end := v.Now + r.runTime(v, j, ps.p)
		for _, g := range j.GPUs {
			ps.freeAt[g] = max(ps.freeAt[g], end)
		}
	}
	return ps
}

// runShape is the shape of a running job's GPUs (type index in
// Rule.types, spread) and its solo rate there, remembered by job ID for
// the placement the job had at its start number starts: the simulator
// counts a job's starts (Job.Starts) and gives it its GPUs only when it
// starts or moves, which counts as a start. The first GPU and the count
// are checked too. It holds no pointer, so the collector skips it and it
// keeps no GPU list alive.
type runShape struct {
	starts, first, n int
	ti               int16
	spread           bool
	s                float64
}

// runShapeOf returns the shape of j's GPUs and its solo rate there (0:
// none), ok false when it holds no GPU: shapeOf and soloOn of j.GPUs,
// remembered (Rule.plain: asked anew).
func (r *Rule) runShapeOf(v *sim.View, j *sim.Job) (sim.Shape, float64, bool) {
	if len(j.GPUs) == 0 {
		return sim.Shape{}, 0, false
	}
	if r.plain || j.ID < 0 || j.Starts <= 0 {
		sh, _ := shapeOf(v, j.GPUs)
		return sh, r.soloOn(j, sh), true
	}
	if j.ID >= len(r.runs) {
		r.runs = append(r.runs, make([]runShape, j.ID+1-len(r.runs))...)
	}
	m := &r.runs[j.ID]
	if m.starts != j.Starts || m.first != j.GPUs[0] || m.n != len(j.GPUs) {
		sh, _ := shapeOf(v, j.GPUs)
		*m = runShape{starts: j.Starts, first: j.GPUs[0], n: len(j.GPUs), ti: r.typeIndex(sh.GPUType), spread: sh.Spread, s: r.soloOn(j, sh)}
		return sh, m.s, true
	}
	return sim.Shape{GPUType: r.types[m.ti], GPUs: m.n, Spread: m.spread}, m.s, true
}

// pass lets the waiting jobs of q choose in turn, job first (when >= 0)
// before the others. It returns the predicted makespan of the plan, the
// sum of the costs of the options taken (the predicted completion times
// and partners' delays) and the job predicted to end last when that job
// waits (else -1).
func (r *Rule) pass(ps *planState, q []*sim.Job, first int) (float64, float64, int) {
	// The latest predicted end of a waiting job, and the lowest ID of
	// the waiting jobs that end then.
	endMax, endID := math.Inf(-1), -1
	sum := 0.0
	try := func(j *sim.Job) {
		o := r.decide(ps, j, j.ID == first)
		if math.IsInf(o.cost, 1) {
			return
		}
		sum += o.cost
		if o.gpus == nil {
			if e := ps.v.Now + o.cost; e > endMax || (e == endMax && j.ID < endID) {
				endMax, endID = e, j.ID
			}
		}
	}
	if first >= 0 {
		if j := ps.v.Job(first); j != nil {
			try(j)
		}
	}
	for _, j := range q {
		if j.ID == first {
			continue
		}
		if !ps.p.Room() {
			break // no GPU free or shareable: every later job waits
		}
		try(j)
	}
	if r.passDone != nil {
		r.passDone(ps)
	}
	latest := ps.latest
	if ps.plain {
		latest = ps.v.Now
		for _, t := range ps.freeAt {
			latest = max(latest, t)
		}
	}
	m := max(latest, endMax)
	if endID >= 0 && endMax > latest {
		return m, sum, endID
	}
	return m, sum, -1
}

// observe learns the solo time of the jobs that completed since the last
// call, for the Attained estimate.
func (r *Rule) observe(v *sim.View) {
	if r.durations != Attained {
		return
	}
	now := map[int]doneJob{}
	for _, j := range v.Running {
		if sh, ok := shapeOf(v, j.GPUs); ok {
			if s, ok := r.solo.Solo(j.Workload, sh); ok && s > 0 {
				now[j.ID] = doneJob{float64(j.Steps), s}
			}
		}
	}
	// In the order of job IDs: a sum of floats in a map's order would
	// differ in its last bits from run to run when several jobs complete
	// between two calls (rounds), and so could the decisions.
	for _, id := range slices.Sorted(maps.Keys(r.last)) {
		if _, still := now[id]; still {
			continue
		}
		if v.Job(id) == nil { // gone: completed
			d := r.last[id]
			r.sumDone += d.steps / d.rate
			r.doneJobs++
		}
	}
	r.last = now
}

// remaining is the estimated remaining work of j in iterations, given its
// solo rate s on its reference placement.
func (r *Rule) remaining(j *sim.Job, s float64) float64 {
	if r.durations == Known {
		return max(float64(j.Steps)-j.Done, 0)
	}
	attained := j.Done / s
	prior := PriorS
	if r.doneJobs > 0 {
		prior = r.sumDone / float64(r.doneJobs)
	}
	return max(attained, prior) * s
}

// rates returns the solo rate of j on sh and, when it shares with q, its
// estimated rate there.
// Rates are remembered by job ID, GPU type, degree and spread: the
// estimators are keyed by strings, and the rule asks the same rates at
// every scheduling point.
func (r *Rule) soloOn(j *sim.Job, sh sim.Shape) float64 {
	if s, ok := r.dense.solo(r, j, sh); ok {
		return s
	}
	k := soloKey{int32(j.ID), r.typeIndex(sh.GPUType), int16(sh.GPUs), sh.Spread}
	if s, ok := r.soloMemo[k]; ok {
		return s
	}
	s, ok := r.solo.Solo(j.Workload, sh)
	if !ok || !(s > 0) {
		s = 0
	}
	r.soloMemo[k] = s
	return s
}

// pairOf is r.pair remembered by workload indices and shape.
func (r *Rule) pairOf(v *sim.View, j, q *sim.Job, sh sim.Shape) (float64, bool) {
	if x, ok := r.dense.pair(r, v, j, q, sh); ok {
		return x.v, x.ok
	}
	k := pairKey{r.widOf(j), r.widOf(q), r.typeIndex(sh.GPUType), int16(sh.GPUs), sh.Spread}
	if x, ok := r.pairMemo[k]; ok {
		return x.v, x.ok
	}
	x, ok := r.pair(v, j.Workload, q.Workload, sh)
	r.pairMemo[k] = pairVal{x, ok, true}
	return x, ok
}

// widOf returns a small integer for j's workload.
func (r *Rule) widOf(j *sim.Job) int32 {
	if int(j.ID) < len(r.wid) && r.wid[j.ID] > 0 {
		return r.wid[j.ID] - 1
	}
	w, ok := r.wids[j.Workload]
	if !ok {
		w = int32(len(r.wids))
		r.wids[j.Workload] = w
	}
	for len(r.wid) <= j.ID {
		r.wid = append(r.wid, 0)
	}
	r.wid[j.ID] = w + 1
	return w
}

type pairKey struct {
	a, b   int32
	typ    int16
	gpus   int16
	spread bool
}

type pairVal struct {
	v   float64
	ok  bool
	set bool // remembered (memo.go)
}

type soloKey struct {
	job    int32
	typ    int16
	gpus   int16
	spread bool
}

// typeIndex returns a small integer for a GPU type name.
func (r *Rule) typeIndex(t string) int16 {
	for i, x := range r.types {
		if x == t {
			return int16(i)
		}
	}
	r.types = append(r.types, t)
	return int16(len(r.types) - 1)
}

// runTime is the predicted time until running job j finishes, from the
// plan's occupancy.
func (r *Rule) runTime(v *sim.View, j *sim.Job, p *sim.Plan) float64 {
	sh, s, ok := r.runShapeOf(v, j)
	if !ok || s == 0 {
		return 0
	}
	w := r.remaining(j, s)
	for _, q := range p.JobsOn(j.GPUs[0]) {
		if q == j.ID {
			continue
		}
		qj := v.Job(q)
		if qj == nil {
			continue
		}
		sq := r.soloOn(qj, sh)
		xj, ok1 := r.pairOf(v, j, qj, sh)
		xq, ok2 := r.pairOf(v, qj, j, sh)
		if sq == 0 || !ok1 || !ok2 {
			break
		}
		tj, _ := overlap(w, s, xj, r.remaining(qj, sq), sq, xq)
		return tj
	}
	return w / s
}

// overlap returns the run times of two jobs that share from now: a with
// wa iterations left at solo rate sa and normalized throughput xa, b
// likewise. Both run shared until the first finishes, the other then
// alone.
func overlap(wa, sa, xa, wb, sb, xb float64) (ta, tb float64) {
	da, db := wa/(sa*xa), wb/(sb*xb)
	if da <= db {
		left := wb - sb*xb*da
		return da, da + left/sb
	}
	left := wa - sa*xa*db
	return db + left/sa, db
}

// option is one choice for a waiting job.
type option struct {
	cost    float64
	gpus    []int   // nil: wait
	waitFor string  // the GPU type it waits for
	wti     int     // its index in Topology.Types
	degree  int     // GPUs it waits for
	start   float64 // when it is predicted to start, when it waits
	endJ    float64 // predicted completion of the job
	endR    float64 // of its partner, when it shares
	// What the export records of it (policy.RuleRecord).
	solo    float64 // the job's solo rate there
	norm    float64 // its predicted normalized throughput (1 alone)
	partner int     // the job it shares with, -1: none
	pnorm   float64 // the partner's predicted normalized throughput
	pdelay  float64 // the delay it causes the partner
}

// decide takes j's option of least cost and returns it; a job that holds
// (the first of a second pass, critical.go) holds the GPUs it waits for.
func (r *Rule) decide(ps *planState, j *sim.Job, holds bool) option {
	v := ps.v
	best := option{cost: math.Inf(1)}
	consider := func(o option) {
		if o.cost < best.cost {
			best = o
		}
	}
	degrees := r.degreesOf(j)
	// Each allowed degree and shape: j's remaining work at its solo rate
	// there and when GPUs of that type free up for it (in the order the
	// loop below takes them).
	waits := r.waits[:0]
	for _, d := range degrees {
		for _, so := range r.shapes(v, j, d).opts {
			tw, ok := ps.waitUntil(so.ti, d)
			w := r.remaining(j, so.s)
			waits = append(waits, waitAt{t: tw, ok: ok, w: w, left: w / so.s})
		}
	}
	r.waits = waits
	pen := v.RestartPenalty()
	// Run now on free GPUs, or wait, at each allowed degree and type.
	k := 0
	for _, d := range degrees {
		for _, so := range r.shapes(v, j, d).opts {
			wt := waits[k]
			k++
			w := wt.w
			if ps.free[so.ti] >= d {
				if gpus, ok := ps.freeFor(so.ti, d, so.onNode, so.spread); ok {
					gs, _ := shapeOf(v, gpus)
					if sg := r.soloOn(j, gs); sg > 0 && ps.fitsHold(so.ti, v.Now+w/sg) {
						consider(option{cost: runNowCost(v.Now, w/sg, pen, waits), gpus: gpus, endJ: v.Now + w/sg, solo: sg, norm: 1, partner: -1})
					}
				}
			}
			if wt.ok {
				// The cost first: most options lose, and need not be built.
				if cost := wt.t - v.Now + w/so.s + tieWait; cost < best.cost {
					consider(option{cost: cost, waitFor: so.t, wti: so.ti, degree: d, start: wt.t, endJ: wt.t + w/so.s, solo: so.s, norm: 1, partner: -1})
				}
			}
		}
	}
	// Share with a job running alone on as many GPUs.
	for _, d := range degrees {
		if v.MaxPerGPU() < 2 {
			break
		}
		lastS, wj := math.NaN(), 0.0 // j's remaining work at rate lastS
		for _, c := range ps.sharesOf(r, j, d) {
			if c.q == j.ID {
				continue
			}
			if c.sj != lastS {
				lastS, wj = c.sj, r.remaining(j, c.sj)
			}
			tj, tq := overlap(wj, c.sj, c.xj, c.wq, c.sq, c.xq)
			if end := v.Now + max(tj, tq); end > ps.horizon || !ps.fitsHold(c.ti, end) {
				continue // it would delay the makespan, or a critical job's GPUs
			}
			alone := c.wq / c.sq
			if cost := tj + (tq - alone) + tieShare; cost < best.cost {
				// The GPUs are the partner's, asked of the plan once chosen.
				consider(option{cost: cost, endJ: v.Now + tj, endR: v.Now + tq,
					solo: c.sj, norm: c.xj, partner: c.q, pnorm: c.xq, pdelay: tq - alone})
			}
		}
	}
	if math.IsInf(best.cost, 1) {
		return best
	}
	if best.partner >= 0 {
		best.gpus = ps.p.GPUsOf(best.partner)
	}
	if ps.chosen != nil {
		ps.chosen[j.ID] = best
	}
	if best.gpus == nil {
		ps.ahead[best.wti] += best.degree
		if holds {
			ps.holdFor(best.wti, best.start)
		}
		return best
	}
	ps.place(r, j.ID, best.gpus, best.partner)
	ps.freeUntil(best.gpus, max(best.endJ, best.endR))
	return best
}

// waitAt is, for a job and one of its shapes, when GPUs of that shape's
// type free up for it (ok: they do), its remaining work w at its solo
// rate there and the time that work takes there (left).
type waitAt struct {
	t, w, left float64
	ok         bool
}

// runNowCost is the cost of running now for alone seconds: at most, for
// each shape whose GPUs free up later, running until then, the restart
// penalty and the rest of the work there, since the rule moves a running
// job when that saves more than the penalty (replan).
func runNowCost(now, alone, pen float64, waits []waitAt) float64 {
	cost := alone
	for _, wa := range waits {
		if ran := wa.t - now; wa.ok && ran > 0 && ran < alone {
			cost = min(cost, ran+pen+(1-ran/alone)*wa.left)
		}
	}
	return cost
}

// Ties: free beats sharing beats waiting at equal cost (a microsecond
// apart, far below any cost the rule compares).
const (
	tieShare = 1e-6
	tieWait  = 2e-6
)

// waitUntil is the predicted time n GPUs of type ti are free for a job
// behind the GPUs the jobs ahead of it wait for.
func (ps *planState) waitUntil(ti, n int) (float64, bool) {
	if ps.dirty[ti] {
		ts := ps.byType[ti][:0]
		if ps.sortedShared[ti] {
			ts, ps.sortedShared[ti] = nil, false // the base's: not to be overwritten
		}
		if ts == nil {
			ts = ps.rule.sortBuf(ps.v.Topology, ps.types[ti])
		}
		if ps.plain {
			for _, ni := range ps.v.Topology.NodesOf(ps.types[ti]) {
				for _, g := range ps.v.Topology.Nodes[ni].GPUs {
					ts = append(ts, ps.freeAt[g])
				}
			}
			slices.Sort(ts)
		} else {
			ts = ps.rule.sortFree(ps.v.Topology, ti, ps.types[ti], ps.freeAt, ts)
		}
		ps.byType[ti] = ts
		ps.dirty[ti] = false
		if ps.base != nil && !ps.placed {
			if ps.base.sorted == nil {
				ps.base.sorted = make([][]float64, len(ps.types))
			}
			ps.base.sorted[ti] = slices.Clip(ts)
			ps.byType[ti], ps.sortedShared[ti] = ps.base.sorted[ti], true
		}
	}
	ts := ps.byType[ti]
	k := ps.ahead[ti] + n
	if n > len(ts) {
		return 0, false
	}
	if k > len(ts) {
		// More is queued than the type holds: each further turn of the
		// type's GPUs is taken to last as long as the current one.
		turns := float64((k - 1) / len(ts))
		return ts[(k-1)%len(ts)] + turns*(ts[len(ts)-1]-ps.v.Now), true
	}
	return ts[k-1], true
}

// sortFree puts the free times of the GPUs of type t (index ti) in ts's
// array, sorted, and returns them. The predicted free times keep mostly the same order
// from one call to the next (the GPUs a change touched move), so they
// are taken in the order the last sort left them (Rule.freeOrd) and put
// in order by insertion: the cost is the GPUs' count and the distance
// the moved ones travel, not a full sort's. Sorted floats are the same
// whatever the sort when no two of them compare equal with different
// bits (+0 and -0) and none is NaN: a list that holds a zero or a NaN is
// taken in topology order and sorted by slices.Sort, as a plain sort
// does.
func (r *Rule) sortFree(topo *sim.Topology, ti int, t string, freeAt, ts []float64) []float64 {
	if r.freeTopo != topo || len(r.freeOrd) != len(topo.Types()) {
		r.freeTopo, r.freeOrd = topo, make([][]int, len(topo.Types()))
	}
	ord := r.freeOrd[ti]
	if ord == nil {
		for _, ni := range topo.NodesOf(t) {
			ord = append(ord, topo.Nodes[ni].GPUs...)
		}
		r.freeOrd[ti] = ord
	}
	ts = ts[:0]
	odd := false // a zero or a NaN
	for _, g := range ord {
		x := freeAt[g]
		odd = odd || x == 0 || x != x
		ts = append(ts, x)
	}
	if odd {
		// As the GPUs come in the topology, as a plain sort takes them.
		ts = ts[:0]
		for _, ni := range topo.NodesOf(t) {
			for _, g := range topo.Nodes[ni].GPUs {
				ts = append(ts, freeAt[g])
			}
		}
		slices.Sort(ts)
		return ts
	}
	for i := 1; i < len(ts); i++ {
		x := ts[i]
		if !(x < ts[i-1]) {
			continue
		}
		// Its place among the sorted ts[:i]: after the last that is not
		// above it, looked for near i first.
		k := i - 1
		for k > 0 && i-k < 8 && x < ts[k-1] {
			k--
		}
		if k > 0 && x < ts[k-1] {
			k = sort.Search(k, func(m int) bool { return x < ts[m] })
		}
		g := ord[i]
		copy(ts[k+1:i+1], ts[k:i])
		copy(ord[k+1:i+1], ord[k:i])
		ts[k], ord[k] = x, g
	}
	return ts
}

// freeGPUs returns free GPUs of type ti for j: on one node when one has
// room (and j may run on one node), else spread when j may spread; d of
// them. The searches are remembered until the plan changes (placed).
func (ps *planState) freeGPUs(j *sim.Job, ti, d int) ([]int, bool) {
	v := ps.v
	if ps.free[ti] < d {
		return nil, false
	}
	if ps.plain {
		t := ps.types[ti]
		onNode := v.CanRun(j.Workload, sim.Shape{GPUType: t, GPUs: d})
		spread := d > 1 && v.CanRun(j.Workload, sim.Shape{GPUType: t, GPUs: d, Spread: true})
		return ps.freeFor(ti, d, onNode, spread)
	}
	ss := ps.rule.shapes(v, j, d)
	return ps.freeFor(ti, d, ss.onNode[ti], ss.spread[ti])
}

// freeFor is freeGPUs for a workload that may run on one node of type ti
// at degree d (onNode) or spread over nodes (spread). The searches are
// remembered by the plan's stamp (Rule.freeTab); Rule.plain searches
// anew.
func (ps *planState) freeFor(ti, d int, onNode, spread bool) ([]int, bool) {
	p := ps.p
	if ps.free[ti] < d {
		return nil, false
	}
	t := ps.types[ti]
	if ps.plain {
		if gpus, ok := sim.FreeOnNode(p, t, d); ok && onNode {
			return gpus, true
		}
		if spread {
			return sim.FreeSpread(p, t, d)
		}
		return nil, false
	}
	f := ps.rule.freeFound(ti, d)
	if f.onAt != ps.stamp {
		f.on.gpus, f.on.ok = sim.FreeOnNode(p, t, d)
		f.onAt = ps.stamp
	}
	if f.on.ok && onNode {
		return f.on.gpus, true
	}
	if spread {
		if f.spAt != ps.stamp {
			f.sp.gpus, f.sp.ok = sim.FreeSpread(p, t, d)
			f.spAt = ps.stamp
		}
		return f.sp.gpus, f.sp.ok
	}
	return nil, false
}

// freeFound is what freeFor found for a GPU type and degree: free GPUs on
// one node (on) for the plan stamped onAt, spread over nodes (sp) for the
// one stamped spAt.
type freeFound struct {
	onAt, spAt uint64
	on, sp     found
}

// freeFound returns the entry of Rule.freeTab for type index ti and
// degree d.
func (r *Rule) freeFound(ti, d int) *freeFound {
	for len(r.freeTab) <= ti {
		r.freeTab = append(r.freeTab, nil)
	}
	if len(r.freeTab[ti]) <= d {
		r.freeTab[ti] = append(r.freeTab[ti], make([]freeFound, d+1-len(r.freeTab[ti]))...)
	}
	return &r.freeTab[ti][d]
}

// stampPlan gives a new plan of view v its stamp: the searches of freeFor
// and loneAt depend on the plan's occupancy only, so every plan of one
// call that has changed nothing (the simulator's occupancy) shares one
// stamp, and a plan gets a stamp of its own at each change (place).
// Holding v keeps it from being collected, so a later view cannot have
// its address.
func (r *Rule) stampPlan(ps *planState) {
	if r.stampView != ps.v {
		r.stampView = ps.v
		r.stamp++
		r.callStamp = r.stamp
		r.sortUsed = 0 // the last call's plans are gone (sortBuf)
	}
	ps.stamp = r.callStamp
}

// sortBuf returns an empty buffer for the sorted free times of the GPUs
// of type t, with room for all of them. The buffers serve the plans of
// one call, each its own, and are handed out again from the first at the
// next call (stampPlan): a plan and its lists live during one call.
func (r *Rule) sortBuf(topo *sim.Topology, t string) []float64 {
	n := topo.Count(t)
	if r.sortUsed == len(r.sortPool) {
		r.sortPool = append(r.sortPool, nil)
	}
	b := r.sortPool[r.sortUsed]
	if cap(b) < n {
		b = make([]float64, 0, n)
		r.sortPool[r.sortUsed] = b
	}
	r.sortUsed++
	return b[:0]
}

// loneAt returns the jobs running alone on d GPUs, remembered by the
// plan's stamp (Rule.loneTab).
func (ps *planState) loneAt(d int) []int {
	r := ps.rule
	if len(r.loneTab) <= d {
		r.loneTab = append(r.loneTab, make([]loneFound, d+1-len(r.loneTab))...)
	}
	l := &r.loneTab[d]
	if l.at != ps.stamp || ps.plain {
		l.jobs, l.at = sim.Lone(ps.p, d), ps.stamp
	}
	return l.jobs
}

// loneFound is the answer of loneAt for the plan stamped at.
type loneFound struct {
	at   uint64
	jobs []int
}

// place puts job id on gpus in the plan, sharing them with partner (-1:
// none, the GPUs were free), and forgets the searches that the change
// may answer differently.
func (ps *planState) place(r *Rule, id int, gpus []int, partner int) {
	moved := len(ps.p.GPUsOf(id)) > 0
	ps.p.Place(id, gpus...)
	ps.placed = true
	ps.log = append(ps.log, placement{id, gpus, partner, moved})
	for i, t := range ps.types {
		ps.free[i] = ps.p.FreeOf(t)
	}
	ps.rule.stamp++
	ps.stamp = ps.rule.stamp
	ps.reviseLones(r, id, gpus, partner, moved)
	ps.reviseShares(r, id, gpus, partner, moved)
}

// freeUntil records that gpus are busy until at least end, keeping the
// sorted free times of their type in order.
func (ps *planState) freeUntil(gpus []int, end float64) {
	if len(gpus) > 0 {
		// A GPU's free time becomes max(its time, end): the latest of
		// all becomes max(latest, end).
		ps.latest = max(ps.latest, end)
	}
	for _, g := range gpus {
		was := ps.freeAt[g]
		now := max(was, end)
		if now == was {
			continue
		}
		ps.freeAt[g] = now
		ti := ps.typeOf(g)
		if ps.dirty[ti] || ps.plain {
			ps.dirty[ti] = true
			continue
		}
		ts := ps.byType[ti]
		if ps.sortedShared[ti] {
			ts, ps.sortedShared[ti] = append(ps.rule.sortBuf(ps.v.Topology, ps.types[ti]), ts...), false
		}
		i, found := slices.BinarySearch(ts, was)
		if !found {
			ps.dirty[ti] = true // not the list it should be: sort it again
			continue
		}
		ts = slices.Delete(ts, i, i+1)
		k, _ := slices.BinarySearch(ts, now)
		ps.byType[ti] = slices.Insert(ts, k, now)
	}
}

// typeOf returns the index of GPU g's type.
func (ps *planState) typeOf(g int) int {
	t := ps.v.Topology.GPUs[g].Type
	for i, x := range ps.types {
		if x == t {
			return i
		}
	}
	return -1
}

type found struct {
	gpus []int
	ok   bool
}

// shapeOf returns the shape of GPUs the simulator or the plan hold, so
// known to be distinct, existing and of one type.
func shapeOf(v *sim.View, gpus []int) (sim.Shape, bool) {
	if len(gpus) == 0 {
		return sim.Shape{}, false
	}
	all := v.Topology.GPUs
	first := all[gpus[0]]
	sh := sim.Shape{GPUType: first.Type, GPUs: len(gpus)}
	for _, g := range gpus[1:] {
		if all[g].Node != first.Node {
			sh.Spread = true
			break
		}
	}
	return sh, true
}

// anyFree reports whether some GPU holds no job.
func anyFree(v *sim.View) bool {
	for g := range v.Topology.GPUs {
		if len(v.JobsOn(g)) == 0 {
			return true
		}
	}
	return false
}
