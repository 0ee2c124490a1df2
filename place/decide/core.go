package decide

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
)

// GPU is one GPU of the cluster.
type GPU struct {
	Node int
	Type string
}

// Job is a job in the system: waiting, or running on GPUs.
type Job struct {
	ID       int
	Workload string
	Arrival  float64
	// Degrees are the numbers of GPUs it may run on, ascending; the
	// largest is its reference degree (the size unit below).
	Degrees []int
	// GPUs are where it runs now (nil while it waits); two jobs share when
	// they hold the same GPUs.
	GPUs []int
	// Done is the iterations it has done.
	Done float64
	// Work is what the scheduler knows of its total iterations: 0 when
	// nothing (Options.Durations attained); an estimate with Durations
	// estimate; the truth with Durations known (foresight).
	Work float64
}

// State is the cluster and its jobs at one instant.
type State struct {
	Now  float64
	GPUs []GPU
	Jobs []Job
}

// Rates are what the core knows of speeds: a job's iterations/s alone on
// gpus GPUs of a type (spread over nodes or on one), and its normalized
// throughput (rate next to partner over rate alone) when it shares the
// same gpus GPUs of a type with partner. ok is false where the job cannot
// run, or the pair may not share.
type Rates interface {
	Solo(workload, gpuType string, gpus int, spread bool) (float64, bool)
	Pair(workload, partner, gpuType string, gpus int) (float64, bool)
}

// Durations modes.
const (
	Attained = "attained" // sizes unknown: learned from completed jobs
	Estimate = "estimate" // a user's estimate, its error learned from completed jobs
	Known    = "known"    // the truth: foresight, a reference only
)

// Options control the core.
type Options struct {
	// RestartPenalty is the time, in seconds, a job makes no progress after
	// it is moved or resumed.
	RestartPenalty float64
	// Round is the time, in seconds, after which the core is asked again
	// at the latest; with RestartPenalty it sets how much better a change
	// must be than keeping a running job where it is.
	Round float64
	// MaxPerGPU is the most jobs on one GPU: 1 (no sharing) or 2.
	MaxPerGPU int
	// Durations is what the core knows of job sizes (Attained when "").
	Durations string
}

// Core decides where jobs run. It learns the distribution of job sizes
// from the completions it is told of (Observe), so one Core serves one
// cluster's stream of jobs. It is not safe for concurrent use: a decision
// reuses the buffers of the last.
type Core struct {
	opt   Options
	rates Rates
	hist  history // sizes in reference seconds
	est   Sizes   // with Durations Estimate: true size over the estimate, times resUnit
	// observed: a completion was recorded since the last decision;
	// started: a decision was made.
	observed, started bool
	refs              map[int]ref
	arrivals          int // jobs seen so far (ref.seq)
	// estDone are, with Durations Estimate, the completed jobs' true
	// size over estimate, times resUnit, with their ref.seq (windowed as
	// the history is).
	estDone    []sized
	estScratch []float64 // the active jobs' ratios, reused
	topo       *topology
	// pairMemo remembers the predicted normalized throughputs of pairs:
	// by the first workload's number, the second's, then one entry per
	// placement asked (pair).
	pairMemo [][][]pairVal
	wid      map[string]int32
	// The last full decision: its jobs' IDs in the order given, and
	// where it put the jobs it placed (a few words a waiting job).
	lastIDs []int
	lastRun []Placed
	// runs holds, per running job, when its current run began and the
	// iterations it had done then.
	runs   map[int]*run
	tracks int // calls of track
	// running are the runs of the state's running jobs, in its order
	// (track), and runIDs their jobs' IDs, for rank to read without a
	// lookup; the *Last fields are the last call's arrays, reused.
	runIDs, runIDsLast []int
	running, runsLast  []*run
	// placed is the answer (Assign); skipped the places in the state's
	// jobs of those rank leaves out (posOf).
	placed  []Placed
	skipped []int
	// classes are the ways to run alone shared by the jobs of one
	// workload and degrees (soloOf; keyed by classKey's encoding), and
	// classPairs the options two classes share (pairsOf), by their ids;
	// both are cleared with the topology.
	classes    map[string]*soloOpts
	classKey   []byte
	classPairs [][][]pairOpt
	// soloMemo remembers solo rates by workload, type, degree and spread
	// (keyed as solo packs them); it is cleared with the topology.
	soloMemo map[uint64]soloVal
	// scratch reused by every decision, so that a decision allocates
	// little: every job's rank, the candidates' infos and options, the
	// options and pairs weighed and their order, the picks, the jobs by
	// first GPU, and settled's.
	rankedBuf []ranked // every job of a decision (rank)
	// The last decision's, read beside the state for its references
	// (rank), with their jobs' IDs; and the arrays of the one before,
	// reused.
	rankedLast           []ranked
	rankIDs, rankIDsLast []int
	gone                 []int   // the IDs of jobs completed since the last rank (Observe)
	activeBuf            []sized // the window's active jobs' service (rank)
	keepBuf              []int   // the candidates' places in rankedBuf
	waitIdx              []int   // the waiting jobs' places in rankedBuf
	infoBuf              []info  // the candidates'
	ptrBuf               []*info
	optBuf               []option
	candBuf              []cand
	order                candOrder // the pairs'
	singles              jobOrder  // the jobs' options alone
	picks                []pick    // the decisions' picks (decideJob)
	fit                  fits
	waitBuf              []waitKey
	rankBuf              []uint64 // waitBuf's places in order (sortWait)
	orderBuf             []*info
	byGPU                [][]int // job IDs by first GPU
	leftBuf              []int   // GPUs left by type (choose)
	usedBuf              []bool  // GPUs taken (placeAll)
	nodesBuf             []nodeFree
	freeBuf              []int
	// settled's
	growBuf    []growRef
	firstBuf   []float64
	blockedBuf []int32
	keptBuf    []int32
	zeroBuf    []chooser
	waitsBuf   []chooser
	// makeRoom's, join's and worthRevising's lists of jobs
	listA, listB []*info
	// makeRoom's GPUs left, moves weighed and moves of its best option
	roomBuf                    []int
	moveBuf, movesBuf, bestBuf []move
	// fullOnly turns settled off (tests hold the two ways together);
	// settledN counts the decisions it took, settledZeros the jobs of
	// index 0 it weighed.
	fullOnly     bool
	settledN     int
	settledZeros int
	// allPairs keeps the pairs a job alone outbids (pairs drops them;
	// tests hold the two ways together); prunedN counts those pairs.
	allPairs bool
	prunedN  int
}

type soloVal struct {
	r  float64
	ok bool
}

// solo returns the solo rate of workload w (numbered wid) on d GPUs of
// type t (the topology's tid-th), spread or not, remembered: it depends
// only on those.
func (c *Core) solo(w string, wid int32, t string, tid, d int, spread bool) (float64, bool) {
	key := uint64(wid)<<32 | uint64(tid)<<24 | uint64(d)<<1 | uint64(b2i(spread))
	if v, ok := c.soloMemo[key]; ok {
		return v.r, v.ok
	}
	r, ok := c.rates.Solo(w, t, d, spread)
	if c.soloMemo == nil {
		c.soloMemo = map[uint64]soloVal{}
	}
	c.soloMemo[key] = soloVal{r, ok}
	return r, ok
}

// ref is a job's unit of size: its rate at its reference degree on its
// fastest type.
type ref struct {
	rate   float64
	seq    int   // its place in the order of arrival (history's window)
	degree int32 // int32s: a queue of a million jobs holds a ref each
	wid    int32 // its workload's number (widOf)
	// solo is the ways it may run alone (soloOf), nil until it was a
	// candidate.
	solo *soloOpts
}

// soloOpts are the ways a job may run alone on a topology with its
// degrees, values unset: they depend on nothing else, so a job's are
// found once rather than at every decision.
type soloOpts struct {
	topo    *topology
	degrees []int
	opts    []option
	id      int32 // its place among the topology's (Core.classes)
	// What settled reads, also independent of the index (rank): order
	// is the options by progress per GPU, highest first; keeps[i] whether
	// option i, kept (times the least keep factor, keep), clearly beats
	// every other; grows[i] whether an option it may grow to is faster
	// (growDegrees: a larger degree of its type, or any of another type).
	order []int
	keeps []bool
	grows []bool
}

// New returns a core deciding with rates.
func New(rates Rates, opt Options) (*Core, error) {
	switch opt.Durations {
	case "":
		opt.Durations = Attained
	case Attained, Estimate, Known:
	default:
		return nil, fmt.Errorf("durations %q: want %s, %s or %s", opt.Durations, Attained, Estimate, Known)
	}
	if opt.MaxPerGPU != 1 && opt.MaxPerGPU != 2 {
		return nil, fmt.Errorf("max jobs per GPU %d: want 1 or 2", opt.MaxPerGPU)
	}
	if !(opt.RestartPenalty >= 0) || !(opt.Round >= 0) {
		return nil, fmt.Errorf("restart penalty %v s and round %v s: want values >= 0", opt.RestartPenalty, opt.Round)
	}
	return &Core{opt: opt, rates: rates, refs: map[int]ref{}}, nil
}

// Observe tells the core that job j completed after iterations in all.
func (c *Core) Observe(j Job, iterations float64) {
	c.gone = append(c.gone, j.ID)
	r, ok := c.refs[j.ID]
	delete(c.refs, j.ID)
	if !ok || !(r.rate > 0) {
		return
	}
	size := iterations / r.rate * float64(r.degree)
	c.observed = true
	if c.opt.Durations == Estimate && j.Work > 0 {
		c.estDone = append(c.estDone, sized{size: resUnit * iterations / j.Work, seq: r.seq})
		return
	}
	c.hist.completed(j.Workload, r.wid, size/float64(r.degree), r.seq)
}

// run is the start of a job's current run, and the track call that last
// saw it running.
type run struct {
	since, done float64
	gpus        []int
	seen        int
	bin         int32 // its service's bin at the last rank (Sizes.indexRemainingNear); -1 none
}

// nearby returns the place of id among ids[p], ids[p+1] and ids[p+2]
// (-1 none): the next job of a last call's list, or one of the two after
// it, as jobs gone since leave gaps. A state usually lists its jobs in
// the order of the last one, so a job is found there without a lookup.
func nearby(ids []int, p, id int) int {
	for q := p; q < min(p+3, len(ids)); q++ {
		if ids[q] == id {
			return q
		}
	}
	return -1
}

// track records the runs that began since the last call and forgets the
// jobs that stopped.
func (c *Core) track(st *State) {
	if c.runs == nil {
		c.runs = map[int]*run{}
	}
	c.tracks++
	// The last call's list is read beside the new one (nearby).
	lastIDs, last := c.runIDs, c.running
	c.runIDs, c.runIDsLast = c.runIDsLast[:0], lastIDs
	c.running, c.runsLast = c.runsLast[:0], last
	p := 0
	for _, j := range st.Jobs {
		if len(j.GPUs) == 0 {
			continue
		}
		var x *run
		if q := nearby(lastIDs, p, j.ID); q >= 0 {
			x, p = last[q], q+1 // seen at the last call: runs still holds it
		} else {
			x = c.runs[j.ID]
		}
		switch {
		case x == nil:
			x = &run{since: st.Now, done: j.Done, gpus: j.GPUs, seen: c.tracks, bin: -1}
			c.runs[j.ID] = x
		case !SameGPUs(x.gpus, j.GPUs):
			*x = run{since: st.Now, done: j.Done, gpus: j.GPUs, seen: c.tracks, bin: -1}
		default:
			x.seen = c.tracks
		}
		c.runIDs, c.running = append(c.runIDs, j.ID), append(c.running, x)
	}
	if len(c.runs) == len(c.running) {
		return // every run is one seen now
	}
	for id, x := range c.runs {
		if x.seen != c.tracks {
			delete(c.runs, id)
		}
	}
}

// topology is what the core derives from the GPUs once.
type topology struct {
	gpus    []GPU
	types   []string
	count   map[string]int
	largest map[string]int // GPUs of the largest node of a type
	nodes   [][]int        // GPU indices by node
	tid     []int          // each GPU's type's index in types
	byType  [][][]int      // the nodes of each type (by tid), in node order
}

func newTopology(gpus []GPU) *topology {
	t := &topology{gpus: gpus, count: map[string]int{}, largest: map[string]int{}}
	for g, x := range gpus {
		if x.Node >= len(t.nodes) {
			t.nodes = append(t.nodes, make([][]int, x.Node+1-len(t.nodes))...)
		}
		t.nodes[x.Node] = append(t.nodes[x.Node], g)
		if t.count[x.Type] == 0 {
			t.types = append(t.types, x.Type)
		}
		t.count[x.Type]++
	}
	sort.Strings(t.types)
	t.tid = make([]int, len(gpus))
	for g, x := range gpus {
		t.tid[g] = slices.Index(t.types, x.Type)
	}
	t.byType = make([][][]int, len(t.types))
	for _, ns := range t.nodes {
		if len(ns) > 0 {
			typ := gpus[ns[0]].Type
			t.largest[typ] = max(t.largest[typ], len(ns))
			t.byType[t.tid[ns[0]]] = append(t.byType[t.tid[ns[0]]], ns)
		}
	}
	return t
}

// option is one way to run a job alone: d GPUs of a type. The type is
// its index in topology.types, whose names are sorted, so that types
// compare as their names do; a decision copies options by the thousand.
type option struct {
	d      int
	tid    int32 // the type's index in topology.types (int32: 32 bytes an option)
	spread bool
	rate   float64
	value  float64 // index x progress per GPU
}

// info is what one decision knows of a job.
type info struct {
	j        *Job
	at       int   // its place in the state's jobs
	gpus     []int // the answer (placeAll); nil: it waits
	ref      ref
	index    float64 // Gittins index, per reference GPU-second
	remain   float64 // expected remaining size, reference GPU-seconds
	critical bool
	opts     []option
	cur      *option // the running job's current placement (curOpt); nil while it waits
	curOpt   option
	partner  int     // the job it shares with now, -1 none
	keep     float64 // a running job's factor on its current placement (keepOf)
	pick     *pick   // the decision; nil: it waits
	wid      int32   // its workload's number (Core.widOf)
}

func (c *Core) refOf(j *Job) ref {
	if r, ok := c.refs[j.ID]; ok {
		return r
	}
	d := j.Degrees[len(j.Degrees)-1]
	best := 0.0
	for _, t := range c.topo.types {
		if c.topo.count[t] < d {
			continue
		}
		if r, ok := c.rates.Solo(j.Workload, t, d, c.topo.largest[t] < d); ok {
			best = max(best, r)
		}
	}
	if best == 0 {
		// No rate at the reference degree: measure sizes at the fastest
		// allowed degree instead.
		for _, dd := range j.Degrees {
			for _, t := range c.topo.types {
				if c.topo.count[t] < dd {
					continue
				}
				if r, ok := c.rates.Solo(j.Workload, t, dd, c.topo.largest[t] < dd); ok && r > best {
					best, d = r, dd
				}
			}
		}
	}
	r := ref{degree: int32(d), rate: best, seq: c.arrivals, wid: c.widOf(j.Workload)}
	c.arrivals++
	c.refs[j.ID] = r
	return r
}

// Decide returns where each job runs: job ID to GPUs, jobs left out wait.
func (c *Core) Decide(st *State) map[int][]int {
	placed := c.Assign(st)
	out := make(map[int][]int, len(placed))
	for _, p := range placed {
		out[st.Jobs[p.Job].ID] = p.GPUs
	}
	return out
}

// Placed is where one job runs: its place in State.Jobs and its GPUs.
type Placed struct {
	Job  int
	GPUs []int
}

// Assign is Decide answered by the state's order: the jobs that run, in
// the order of st.Jobs, each with its GPUs; the others wait. The slice is
// the core's own and the next call reuses it. A simulator that asks at
// every event saves building and reading a map each time, and a queue of
// a million jobs costs nothing in the answer.
func (c *Core) Assign(st *State) []Placed {
	if c.topo == nil || len(c.topo.gpus) != len(st.GPUs) {
		c.topo = newTopology(st.GPUs)
		// The memos are keyed by the types' places in the topology.
		clear(c.soloMemo)
		c.pairMemo = nil
		clear(c.classes)
		c.classPairs = nil
	}
	c.track(st)
	quiet := c.quiet(st)
	c.placed = c.placed[:0]
	all, top := c.rank(st)
	cands := c.candidates(all, top, len(st.GPUs))
	if !quiet && !c.fullOnly {
		if out, ok := c.settled(st, all, top, cands); ok {
			c.settledN++
			c.remember(st, out)
			return out
		}
	}
	infos := c.infos(all, top, cands)
	if quiet && !c.worthRevising(infos) {
		for i, j := range st.Jobs {
			if len(j.GPUs) > 0 {
				c.placed = append(c.placed, Placed{i, j.GPUs})
			}
		}
		return c.placed
	}
	out := c.placeAll(st, infos, c.choose(infos))
	c.remember(st, out)
	return out
}

// remember keeps what a full decision decided (out, in the state's
// order), for quiet.
func (c *Core) remember(st *State, out []Placed) {
	c.lastIDs = slices.Grow(c.lastIDs[:0], len(st.Jobs))
	for _, j := range st.Jobs {
		c.lastIDs = append(c.lastIDs, j.ID)
	}
	c.lastRun = append(c.lastRun[:0], out...)
}

// SameGPUs reports whether a and b hold the same GPUs in the same order
// (slices.Equal), at once when they are one slice: a running job's GPUs,
// and the answer that keeps it there, are the slice it was placed with,
// call after call, and a decision compares every running job's.
func SameGPUs(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return slices.Equal(a, b)
}

// quiet reports whether only time has passed since the last full
// decision: the same jobs, each where that decision put it, and no
// completion learned from since.
func (c *Core) quiet(st *State) bool {
	if c.observed || len(st.Jobs) != len(c.lastIDs) {
		return false
	}
	r := 0
	for i, j := range st.Jobs {
		var gpus []int
		if r < len(c.lastRun) && c.lastRun[r].Job == i {
			gpus = c.lastRun[r].GPUs
			r++
		}
		if c.lastIDs[i] != j.ID || !SameGPUs(gpus, j.GPUs) {
			return false
		}
	}
	return true
}

// worthRevising reports whether, when only time has passed, a new
// decision could change anything: a critical job waits, or a waiting
// job's best value per GPU exceeds a running job's (its current one times
// keep). Aging changes indices slowly, so most round ticks end here; a
// pair that could form is left to the next arrival or completion.
func (c *Core) worthRevising(infos []*info) bool {
	minRun := math.Inf(1)
	for _, in := range infos {
		if in.cur != nil {
			minRun = min(minRun, in.cur.value*in.keep)
		}
	}
	hosts := c.listB[:0]
	defer func() { c.listB = hosts }()
	for _, in := range infos {
		if in.cur != nil {
			if in.partner < 0 && !in.critical {
				hosts = append(hosts, in)
			}
			continue
		}
		if in.critical {
			return true
		}
		for _, o := range in.opts {
			if o.value > minRun {
				return true
			}
		}
	}
	if c.opt.MaxPerGPU < 2 || len(hosts) == 0 {
		return false
	}
	// A waiting job next to a running one: worth it when both together
	// are worth more than the host alone, kept (the waiting jobs of
	// highest index, as join weighs them).
	waiting := c.topByIndex(infos, func(in *info) bool { return in.cur == nil }, pairOpts)
	for _, w := range waiting {
		for _, h := range hosts {
			o := w.opt(h.cur.tid, h.cur.d, h.cur.spread)
			if o == nil {
				continue
			}
			nw, ok1 := c.pair(w, h, o)
			nh, ok2 := c.pair(h, w, o)
			if ok1 && ok2 && o.value*min(nw, 1)+h.cur.value*min(nh, 1) > h.cur.value*h.keep {
				return true
			}
		}
	}
	return false
}

// rank computes each job's index and expected remaining size, and which
// job is critical for the makespan (its place in all; -1 none).
func (c *Core) rank(st *State) (all []ranked, top int) {
	// The last decision's jobs, with their references (soloOf kept
	// theirs current), and their IDs: a job is usually the next one
	// they hold, its reference found without a lookup.
	last, lastIDs := c.rankedBuf, c.rankIDs
	c.rankedBuf, c.rankedLast = slices.Grow(c.rankedLast[:0], len(st.Jobs)), last
	c.rankIDs, c.rankIDsLast = slices.Grow(c.rankIDsLast[:0], len(st.Jobs)), lastIDs
	if len(c.byGPU) != len(st.GPUs) {
		c.byGPU = make([][]int, len(st.GPUs))
	}
	byGPU := c.byGPU
	for g, ids := range byGPU {
		byGPU[g] = ids[:0]
	}
	for i := range st.Jobs {
		for _, g := range st.Jobs[i].GPUs[:min(1, len(st.Jobs[i].GPUs))] {
			byGPU[g] = append(byGPU[g], st.Jobs[i].ID)
		}
	}
	c.skipped = c.skipped[:0]
	p := 0
	if len(c.gone) > 16 {
		// Many jobs completed since (a caller that observes in bulk):
		// checking each job against them would cost more than the map.
		lastIDs = nil
	}
	for i := range st.Jobs {
		j := &st.Jobs[i]
		var r ref
		q := nearby(lastIDs, p, j.ID)
		if q >= 0 {
			r, p = last[q].ref, q+1
		}
		if q < 0 || (len(c.gone) > 0 && slices.Contains(c.gone, j.ID)) {
			// (A job that completed since may have passed its ID on.)
			r = c.refOf(j)
		}
		if r.rate > 0 {
			c.rankedBuf = append(c.rankedBuf, ranked{j: j, ref: r})
			c.rankIDs = append(c.rankIDs, j.ID)
		} else {
			c.skipped = append(c.skipped, i)
		}
	}
	c.gone = c.gone[:0]
	all = c.rankedBuf
	// The sizes learned are revised when a completion changed them (each
	// revision costs a pass over the window's jobs), with the active
	// jobs' service as lower bounds of theirs: those of the window's jobs
	// (arrived from the since-th on), the only ones history and the
	// estimates keep.
	if c.opt.Durations != Known && (c.observed || !c.started) {
		since := c.arrivals - window
		active := c.activeBuf[:0]
		var ratios []sized
		for i := range all {
			j, r := all[i].j, all[i].ref
			if r.seq < since {
				continue
			}
			a := j.Done / r.rate * float64(r.degree)
			if c.opt.Durations == Estimate && j.Work > 0 {
				ratios = append(ratios, sized{size: resUnit * j.Done / j.Work, seq: r.seq})
				continue
			}
			active = append(active, sized{workload: j.Workload, wid: r.wid, size: a / float64(r.degree), seq: r.seq})
		}
		c.hist.update(active, since)
		c.activeBuf = active
		c.updateEstimates(ratios, since)
		c.observed, c.started = false, true
	}
	total := 0.0
	top, longest := -1, math.Inf(-1)
	next := 0 // the next of track's runs
	for i := range all {
		in := &all[i]
		j, r := in.j, in.ref
		unit := float64(r.degree) / r.rate // reference GPU-seconds per iteration
		a := j.Done * unit
		var x *run // its run; nil while it waits
		if len(j.GPUs) > 0 {
			// track listed the running jobs in the state's order, which
			// all keeps (less the jobs without a rate).
			for c.runIDs[next] != j.ID {
				next++
			}
			if x = c.running[next]; st.Now-x.since < c.opt.Round {
				// Within its first round of running, a job is ranked at
				// the service it had when it started: it was started for
				// a round, and ageing does not undo that before the round
				// ends.
				a = x.done * unit
			}
		}
		switch {
		case c.opt.Durations == Known && j.Work > 0:
			in.remain = max(0, j.Work-j.Done) * unit
			in.index = 1 / max(in.remain, 1)
		case c.opt.Durations == Estimate && j.Work > 0:
			// Ratios of true size to estimate are counted in units
			// of resUnit, as sizes over scales are: around 1 they
			// would all fall in the grid's first bin.
			e := j.Work * unit / resUnit
			index, remain := c.est.indexRemaining(a / e)
			in.index, in.remain = index/e, e*remain
		default:
			// Sizes over scales are counted in units of the
			// grid's typical size (resUnit), so that the grid's
			// resolution spans them.
			scale := c.hist.scaleAt(r.wid) * float64(r.degree) / resUnit
			var index, remain float64
			if x != nil {
				// A running job's service moves little from one call
				// to the next: its bin is found from the last one.
				index, remain, x.bin = c.hist.res.indexRemainingNear(a/scale, x.bin)
			} else {
				index, remain = c.hist.res.indexRemaining(a / scale)
			}
			in.index, in.remain = index/scale, scale*remain
		}
		total += in.remain
		// The longest alone so far (the first of equals; NaN never).
		if t := in.remain / float64(r.degree); t > longest {
			top, longest = i, t
		}
	}
	// With sizes known, the job that needs longest alone is critical when
	// it needs at least the time the whole backlog needs on the whole
	// cluster: then the makespan waits for it. Only with sizes known (see
	// the package doc: learned or estimated, a remaining size is an
	// expectation the guard cannot act on), and one job only.
	if horizon := total / float64(len(st.GPUs)); c.opt.Durations != Known || top < 0 || !(longest >= horizon) || len(all) < 2 {
		top = -1
	}
	return all, top
}

// infos builds the candidates' infos (cands: their places in all), each
// with its options and current placement. Only the candidates get an
// info, in a buffer grown to hold them all first so that the pointers to
// them stay valid (the options likewise: options).
func (c *Core) infos(all []ranked, top int, cands []int) []*info {
	c.optBuf = c.optBuf[:0]
	infos := c.ptrBuf[:0]
	byGPU := c.byGPU
	c.infoBuf = slices.Grow(c.infoBuf[:0], len(cands))
	for _, i := range cands {
		x := &all[i]
		c.soloOf(x)
		c.infoBuf = append(c.infoBuf, info{j: x.j, at: c.posOf(i), ref: x.ref, index: x.index, remain: x.remain, critical: i == top, partner: -1, wid: x.ref.wid})
		in := &c.infoBuf[len(c.infoBuf)-1]
		if j := x.j; len(j.GPUs) > 0 {
			for _, o := range byGPU[j.GPUs[0]] {
				if o != j.ID {
					in.partner = o
				}
			}
		}
		c.options(in)
		infos = append(infos, in)
	}
	c.ptrBuf = infos
	return infos
}

// ranked is what a decision computes of every job: its reference, index
// and expected remaining size. Only the candidates among them get an
// info (a queue of a million jobs costs a few words a job).
type ranked struct {
	j             *Job
	ref           ref
	index, remain float64
}

// posOf returns the place in the state's jobs of the k-th job rank kept:
// k plus the jobs left out before it (each left-out place s_m, the m-th,
// has s_m - m kept jobs before it). Not a field of ranked: a queue of a
// million jobs holds a ranked each.
func (c *Core) posOf(k int) int {
	if len(c.skipped) == 0 {
		return k
	}
	n := sort.Search(len(c.skipped), func(m int) bool { return c.skipped[m]-m > k })
	return k + n
}

// updateEstimates rebuilds the distribution of true size over estimate
// from the jobs that arrived from the since-th on (history's window): the
// completed ones' ratios, and the active ones' (ratios) censored.
func (c *Core) updateEstimates(ratios []sized, since int) {
	kept := c.estDone[:0]
	for _, x := range c.estDone {
		if x.seq >= since {
			kept = append(kept, x)
		}
	}
	c.estDone = kept
	est := &c.est
	est.reset()
	for _, x := range kept {
		est.Done(x.size)
	}
	censored := c.estScratch[:0]
	for _, x := range ratios {
		if x.seq >= since {
			censored = append(censored, x.size)
		}
	}
	c.estScratch = censored
	est.Censor(censored)
}

// candidates returns the places in all of the jobs that may get GPUs in
// this decision: the running ones and the critical one (top; -1 none), in
// the order given, then the waiting ones of highest index, as many as
// could take every GPU twice over (alone, or next to a running job) and a
// few more. A waiting job below them cannot outbid them for a GPU: its
// value per GPU is its index times a speed at most its best, and at least
// as many jobs of higher index want GPUs.
func (c *Core) candidates(all []ranked, top, gpus int) []int {
	keep, wait := c.keepBuf[:0], c.waitIdx[:0]
	for i := range all {
		if len(all[i].j.GPUs) > 0 || i == top {
			keep = append(keep, i)
		} else {
			wait = append(wait, i)
		}
	}
	c.waitIdx = wait
	if n := 2*gpus + 16; len(wait) > n {
		// Highest index first, then earliest arrival, then in the
		// order given: the first n in compareWait's order, found with a
		// heap of n whose root is the last of them (a queue of a million
		// jobs is not sorted, nor held twice), then sorted.
		h := lastFirst(c.waitBuf[:0])
		for k, i := range wait {
			h.offer(waitKey{all[i].index, all[i].j.Arrival, int32(k)}, n)
		}
		slices.SortFunc(h, compareWait)
		for _, x := range h {
			keep = append(keep, wait[x.i])
		}
		c.waitBuf = h
	} else {
		keep = append(keep, wait...)
	}
	c.keepBuf = keep
	return keep
}

// options lists the ways job in may run alone, and its current one.
func (c *Core) options(in *info) {
	j := in.j
	prog := float64(in.ref.degree) / in.ref.rate // reference GPU-seconds per iteration
	start := len(c.optBuf)
	// Copied whole, then valued in place.
	c.optBuf = append(c.optBuf, in.ref.solo.opts...)
	// A slice of the buffer, capped: it is never appended to, and the
	// buffer's growth leaves earlier slices on their own arrays.
	in.opts = c.optBuf[start:len(c.optBuf):len(c.optBuf)]
	for i := range in.opts {
		o := &in.opts[i]
		o.value = in.index * o.rate * prog / float64(o.d)
	}
	if len(j.GPUs) == 0 {
		return
	}
	t := c.topo.gpus[j.GPUs[0]].Type
	spread := false
	for _, g := range j.GPUs {
		if c.topo.gpus[g].Node != c.topo.gpus[j.GPUs[0]].Node {
			spread = true
		}
	}
	tid := c.topo.tid[j.GPUs[0]]
	if i := in.optIndex(int32(tid), len(j.GPUs), spread); i >= 0 {
		// One of its options (the usual case): the same solo rate and
		// the same value as worked out below.
		in.curOpt = in.opts[i]
		in.cur = &in.curOpt
		in.keep = c.keepOf(in.remain, in.ref, in.cur.rate)
		return
	}
	r, ok := c.solo(j.Workload, in.wid, t, tid, len(j.GPUs), spread)
	if !ok {
		return
	}
	in.curOpt = option{tid: int32(tid), d: len(j.GPUs), spread: spread, rate: r, value: in.index * r * prog / float64(len(j.GPUs))}
	in.cur = &in.curOpt
	in.keep = c.keepOf(in.remain, in.ref, r)
}

// keepOf is the factor by which a running job's current placement is
// preferred (keep) when the job is expected to end within the round: a
// change costs it the restart penalty P, and what a change to a faster
// option saves, or what a pause of it lets another job gain, is bounded
// by the time it has left. With t the time it is expected to need where
// it is, its expected remaining size at rate (the truth with durations
// known, the mean of what its distribution leaves beyond its service
// otherwise), the factor is 1 + P/min(t, round): keep's 1 + P/round for
// a job expected to outlast the round, more for one near its end, which
// a move would delay by P of the little it has left. remain is the job's
// expected remaining size in reference GPU-seconds (rank), r its
// reference.
func (c *Core) keepOf(remain float64, r ref, rate float64) float64 {
	k := c.keep()
	if k == 1 || !(rate > 0) {
		return k
	}
	// Reference GPU-seconds over reference GPU-seconds per iteration:
	// iterations, at rate.
	t := remain / (float64(r.degree) / r.rate) / rate
	if !(t < c.opt.Round) {
		return k
	}
	return 1 + c.opt.RestartPenalty/max(t, 1)
}

// soloOf returns the ways job x may run alone, found once for its
// degrees on the topology and kept with its reference (x.ref.solo) until
// it completes.
func (c *Core) soloOf(x *ranked) *soloOpts {
	j, wid := x.j, x.ref.wid
	if a := x.ref.solo; a != nil && a.topo == c.topo && slices.Equal(a.degrees, j.Degrees) {
		return a
	}
	// Jobs of one workload and degrees share their options: found once,
	// and their pairs weighed once (pairsOf).
	key := c.classKey[:0]
	key = binary.AppendUvarint(key, uint64(wid))
	for _, d := range j.Degrees {
		key = binary.AppendUvarint(key, uint64(d))
	}
	c.classKey = key
	a, ok := c.classes[string(key)]
	if ok {
		x.ref.solo = a
		c.refs[j.ID] = x.ref
		return a
	}
	a = &soloOpts{topo: c.topo, degrees: slices.Clone(j.Degrees), id: int32(len(c.classes))}
	if c.classes == nil {
		c.classes = map[string]*soloOpts{}
	}
	c.classes[string(key)] = a
	x.ref.solo = a
	c.refs[j.ID] = x.ref
	for ti, t := range c.topo.types {
		for _, d := range j.Degrees {
			if d > c.topo.count[t] {
				continue
			}
			spread := c.topo.largest[t] < d
			r, ok := c.solo(j.Workload, wid, t, ti, d, spread)
			if !ok || !(r > 0) {
				continue
			}
			a.opts = append(a.opts, option{tid: int32(ti), d: d, spread: spread, rate: r})
		}
	}
	a.rank(c.keep())
	return a
}

// keep is the least factor by which a running job's current placement
// is preferred, that of a job expected to outlast the round (keepOf): a
// change costs the restart penalty, and the next chance to revise it
// comes a round later.
func (c *Core) keep() float64 {
	if c.opt.Round <= 0 {
		return 1
	}
	return 1 + c.opt.RestartPenalty/c.opt.Round
}

// decideJob sets the job's decision to p, held in the core's slab of
// picks while it has room (a decision allocates few picks).
func (c *Core) decideJob(in *info, p pick) {
	if len(c.picks) < cap(c.picks) {
		c.picks = append(c.picks, p)
		in.pick = &c.picks[len(c.picks)-1]
		return
	}
	q := new(pick) // p itself stays off the heap on the path above
	*q = p
	in.pick = q
}

// pick is a decision for one job: where it runs, alone or next to its
// partner on the same GPUs.
type pick struct {
	o       option
	partner *info // nil: alone
	// was is the option the job had before growDegrees gave it o
	// (grown); placeAll falls back on it where o finds no GPUs.
	was   option
	grown bool
}

// cand is an option for one job (b nil) or two jobs sharing GPUs, with
// its value per GPU: the sum over its jobs of index times progress.
type cand struct {
	a, b *info
	o    option
	v    float64
}

// choose picks each job's placement: critical jobs first, each on its
// fastest option; then, while GPUs last, the option of highest value per
// GPU among every job's options alone and every pair's options together
// (a pair's value is both jobs' index times progress at their predicted
// normalized throughputs, so two jobs share exactly when that completes
// more work, weighted by the indices, than giving the GPUs to one);
// then larger degrees for jobs running alone that can use GPUs left
// free. A job's current placement (and a running pair) counts its value
// times its keep factor (keepOf): changing it costs a restart. It returns the picked jobs,
// highest index first, the order in which placeAll claims GPUs.
func (c *Core) choose(infos []*info) []*info {
	// Room for each job's pick and as many again (makeRoom and join may
	// pick anew); the picks of the last decision are no longer held.
	c.picks = slices.Grow(c.picks[:0], 2*len(infos))
	// The GPUs left of each type, by its place in topology.types.
	left := c.leftBuf[:0]
	for _, t := range c.topo.types {
		left = append(left, c.topo.count[t])
	}
	c.leftBuf = left
	crit := make([]*info, 0)
	for _, in := range infos {
		if in.critical {
			crit = append(crit, in)
		}
	}
	slices.SortStableFunc(crit, func(a, b *info) int { return cmp.Compare(b.remain, a.remain) })
	for _, in := range crit {
		var best *option
		for i := range in.opts {
			o := &in.opts[i]
			if left[o.tid] < o.d {
				continue
			}
			if best == nil || o.rate > best.rate || (o.rate == best.rate && in.cur != nil && sameOpt(o, in.cur)) {
				best = o
			}
		}
		if best != nil {
			c.decideJob(in, pick{o: *best})
			left[best.tid] -= best.d
		}
	}
	// Sharing is for when GPUs are scarce: pairs compete with single jobs
	// for GPUs only while the jobs need more GPUs (each at its smallest
	// degree) than the cluster has. Otherwise every job that can have
	// GPUs of its own gets them, and a job left waiting may still join a
	// host (join). Weighing pairs on a cluster with GPUs to spare put two
	// jobs on one GPU beside idle ones: per GPU, two jobs at 0.7 of their
	// speed do more than one, but each ends later.
	demand := 0
	for _, in := range infos {
		demand += in.j.Degrees[0]
	}
	cands := c.candBuf[:0]
	if c.opt.MaxPerGPU >= 2 && demand > len(c.topo.gpus) {
		cands = c.pairs(cands, infos)
	}
	c.candBuf = cands
	// Taken in compareCands' order while a candidate can still be taken:
	// the jobs' options alone and the pairs come from two orders, merged,
	// each drawn as far as it is needed (on a full cluster a small part).
	singles := &c.singles
	singles.reset(infos)
	pairs := &c.order
	pairs.reset(cands, func(x *cand) bool {
		return x.a.pick == nil && x.b.pick == nil && left[x.o.tid] >= x.o.d
	})
	next, more := pairs.next()
	fit := &c.fit
	fit.reset(len(c.topo.types))
	for _, in := range infos {
		if in.pick == nil {
			fit.add(in.opts, 1)
		}
	}
	for fit.any(left) {
		a, o, v, ok := singles.top()
		if more && (!ok || compareCands(cands[next], cand{a: a, o: *o, v: v}) < 0) {
			x := &cands[next]
			next, more = pairs.next()
			if x.a.pick != nil || x.b.pick != nil || left[x.o.tid] < x.o.d {
				continue
			}
			left[x.o.tid] -= x.o.d
			c.decideJob(x.a, pick{o: x.o, partner: x.b})
			c.decideJob(x.b, pick{o: x.o, partner: x.a})
			fit.add(x.a.opts, -1)
			fit.add(x.b.opts, -1)
			continue
		}
		if !ok {
			break
		}
		if left[o.tid] < o.d {
			singles.pass(left)
			continue
		}
		left[o.tid] -= o.d
		c.decideJob(a, pick{o: *o})
		fit.add(a.opts, -1)
		singles.drop()
	}
	c.makeRoom(infos, left)
	if c.opt.MaxPerGPU >= 2 {
		c.join(infos)
	}
	// The picked jobs, highest index first: growDegrees and placeAll go
	// through them in that order (growDegrees skips the pairs).
	picked := c.byIndex(infos, func(in *info) bool { return in.pick != nil })
	c.growDegrees(picked, left)
	return picked
}

// makeRoom gives GPUs to jobs the greedy left waiting although GPUs are
// free, because the free ones are spread over types (a job of d GPUs
// needs d of one type): for each such job, highest index first, it moves
// jobs running alone on the type it wants to other types with room,
// those that lose least first, when what the job gains exceeds what they
// lose (a running job's loss counts keep, as moving restarts it).
func (c *Core) makeRoom(infos []*info, left []int) {
	spare := 0 // free GPUs of every type
	for _, n := range left {
		spare += n
	}
	if spare == 0 {
		return // on a full cluster, before listing anything
	}
	waiting, alone := c.listA[:0], c.listB[:0]
	defer func() { c.listA, c.listB = waiting, alone }()
	for _, in := range infos {
		switch {
		case in.pick == nil:
			waiting = append(waiting, in)
		case in.pick.partner == nil && !in.critical:
			alone = append(alone, in)
		}
	}
	slices.SortStableFunc(waiting, func(a, b *info) int { return cmp.Compare(b.index, a.index) })
	room, cands, moves, bestMoves := c.roomBuf, c.moveBuf, c.movesBuf, c.bestBuf
	defer func() { c.roomBuf, c.moveBuf, c.movesBuf, c.bestBuf = room, cands, moves, bestMoves }()
	for _, in := range waiting {
		if spare == 0 {
			return
		}
		bestMoves = bestMoves[:0]
		var bestOpt *option
		bestGain := 0.0
		for i := range in.opts {
			o := &in.opts[i]
			need := o.d - left[o.tid]
			if need <= 0 {
				continue // the greedy took it or passed it over for a better use
			}
			// A move frees a job's GPUs of o's type for as many of
			// another type: more than the other types' room never frees.
			if need > spare-left[o.tid] {
				continue
			}
			room = append(room[:0], left...)
			cands = cands[:0]
			for _, x := range alone {
				if x.pick.o.tid != o.tid {
					continue
				}
				var to *option
				for j := range x.opts {
					y := &x.opts[j]
					if y.tid == o.tid || y.d != x.pick.o.d || room[y.tid] < y.d {
						continue
					}
					if to == nil || y.value > to.value {
						to = y
					}
				}
				if to != nil {
					cands = append(cands, move{x, *to, x.alone(&x.pick.o) - to.value})
				}
			}
			slices.SortStableFunc(cands, func(a, b move) int { return cmp.Compare(a.loss, b.loss) })
			moves = moves[:0]
			loss, freed := 0.0, 0
			for _, m := range cands {
				if freed >= need {
					break
				}
				if room[m.to.tid] < m.to.d {
					continue
				}
				room[m.to.tid] -= m.to.d
				moves = append(moves, m)
				loss += m.loss
				freed += m.in.pick.o.d
			}
			if freed < need {
				continue
			}
			if g := o.value - loss; g > bestGain {
				bestGain, bestOpt, bestMoves = g, o, append(bestMoves[:0], moves...)
			}
		}
		if bestOpt == nil {
			continue
		}
		for _, m := range bestMoves {
			left[m.in.pick.o.tid] += m.in.pick.o.d
			left[m.to.tid] -= m.to.d
			m.in.pick.o = m.to
		}
		left[bestOpt.tid] -= bestOpt.d
		spare -= bestOpt.d
		c.decideJob(in, pick{o: *bestOpt})
		alone = append(alone, in)
	}
}

// move is one of makeRoom's: a job running alone moved to another
// option, and what it loses.
type move struct {
	in   *info
	to   option
	loss float64
}

// join lets jobs the greedy left waiting share the GPUs of jobs it placed
// alone: sharing is for when GPUs are scarce, so it is weighed only once
// every job that could have GPUs of its own has them. Highest index
// first, each waiting job joins the host where the pair's value (both
// jobs' index times progress at their predicted normalized throughputs)
// exceeds the host's alone by most; a pair running now counts each job's
// value times its keep factor, as a change would restart it. Only the waiting jobs of
// highest index are weighed (pairOpts).
func (c *Core) join(infos []*info) {
	hosts := c.listA[:0]
	for _, in := range infos {
		if in.pick != nil && in.pick.partner == nil && !in.critical {
			hosts = append(hosts, in)
		}
	}
	c.listA = hosts
	if len(hosts) == 0 {
		return
	}
	waiting := c.topByIndex(infos, func(in *info) bool { return in.pick == nil && !in.critical }, pairOpts)
	for _, w := range waiting {
		var best *info
		var bestOpt *option
		bestGain := 0.0
		for _, h := range hosts {
			if h.pick.partner != nil {
				continue
			}
			ho := &h.pick.o
			o := w.opt(ho.tid, ho.d, ho.spread)
			if o == nil {
				continue
			}
			nw, ok1 := c.pair(w, h, o)
			nh, ok2 := c.pair(h, w, o)
			if !ok1 || !ok2 {
				continue
			}
			alone := h.alone(ho)
			together := o.value*min(nw, 1) + ho.value*min(nh, 1)
			if w.sharing(h, o) {
				together = o.value*min(nw, 1)*w.keep + ho.value*min(nh, 1)*h.keep
			}
			if g := together - alone; g > bestGain {
				best, bestOpt, bestGain = h, o, g
			}
		}
		if best == nil {
			continue
		}
		c.decideJob(w, pick{o: *bestOpt, partner: best})
		best.pick.partner = w
	}
}

// byIndex returns the infos that keep holds, highest index first, in the
// order given among equals (a stable sort: their keys' arrivals are all
// 0), in a buffer the next call reuses.
func (c *Core) byIndex(infos []*info, keep func(*info) bool) []*info {
	keys := c.waitBuf[:0]
	for i, in := range infos {
		if keep(in) {
			keys = append(keys, waitKey{index: in.index, i: int32(i)})
		}
	}
	c.waitBuf = keys
	c.rankBuf = sortWait(c.rankBuf, keys)
	out := c.orderBuf[:0]
	for _, r := range c.rankBuf {
		out = append(out, infos[keys[r].i])
	}
	c.orderBuf = out
	return out
}

// topByIndex returns the first n of the infos that keep holds in
// byIndex's order (highest index first, then the order given), without
// sorting them all: a heap of n whose root is the last of them, as
// candidates finds the waiting jobs of highest index. It uses byIndex's
// buffers.
func (c *Core) topByIndex(infos []*info, keep func(*info) bool, n int) []*info {
	h := lastFirst(c.waitBuf[:0])
	for i, in := range infos {
		if !keep(in) {
			continue
		}
		h.offer(waitKey{index: in.index, i: int32(i)}, n)
	}
	slices.SortFunc(h, compareWait)
	c.waitBuf = h
	out := c.orderBuf[:0]
	for _, x := range h {
		out = append(out, infos[x.i])
	}
	c.orderBuf = out
	return out
}

// waitKey is a waiting job's index and arrival and its place among the
// waiting.
type waitKey struct {
	index, arrival float64
	i              int32
}

// compareWait orders keys by index, highest first (NaN last, as
// cmp.Compare has it), then by arrival, then by place: a stable sort by
// index and arrival. The plain comparison settles almost every pair.
func compareWait(x, y waitKey) int {
	if x.index != y.index && !math.IsNaN(x.index) && !math.IsNaN(y.index) {
		if x.index > y.index {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(y.index, x.index); c != 0 {
		return c
	}
	if c := cmp.Compare(x.arrival, y.arrival); c != 0 {
		return c
	}
	return cmp.Compare(x.i, y.i)
}

// lastFirst is a heap of wait keys whose root is the last in
// compareWait's order (sifted here rather than through container/heap's
// interface: candidates offers every waiting job to it at each decision).
type lastFirst []waitKey

// offer keeps x when the heap holds fewer than n keys or x comes before
// its last: the heap ends holding the first n keys offered, in
// compareWait's order.
func (h *lastFirst) offer(x waitKey, n int) {
	switch {
	case len(*h) < n:
		*h = append(*h, x)
		h.up(len(*h) - 1)
	case compareWait(x, (*h)[0]) < 0:
		(*h)[0] = x
		h.down(0)
	}
}

// up restores the heap above i.
func (h lastFirst) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if compareWait(h[i], h[p]) <= 0 {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// down restores the heap below i.
func (h lastFirst) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && compareWait(h[r], h[l]) > 0 {
			m = r
		}
		if compareWait(h[m], h[i]) <= 0 {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sameOpt(a, b *option) bool { return a.tid == b.tid && a.d == b.d && a.spread == b.spread }

// pairOpts is the most jobs, highest index first, whose pairs are
// weighed at one decision: pairs among them cost their square.
const pairOpts = 64

// pairs appends to out the options of two jobs sharing GPUs, among the jobs of
// highest index: for each GPU type and degree both may run at, the value
// per GPU of both at their predicted normalized throughputs.
func (c *Core) pairs(out []cand, infos []*info) []cand {
	// In the order of a stable sort by index, highest first (topByIndex's
	// buffer is free until choose orders the picked jobs).
	pool := c.topByIndex(infos, func(in *info) bool { return in.pick == nil && !in.critical }, pairOpts)
	for i, a := range pool {
		for _, b := range pool[i+1:] {
			for _, p := range c.pairsOf(a, b) {
				oa, ob, na, nb := &a.opts[p.a], &b.opts[p.b], p.na, p.nb
				va, vb := oa.value*min(na, 1), ob.value*min(nb, 1)
				if a.sharing(b, oa) {
					va, vb = va*a.keep, vb*b.keep
				} else {
					if a.keeps(oa) {
						va *= a.keep
					}
					if b.keeps(ob) {
						vb *= b.keep
					}
				}
				// Never taken when one job alone on the same option
				// is worth more: that option comes first, and then
				// either the job is placed or the option's GPUs are
				// not left (the greedy only takes GPUs away).
				if va+vb < a.alone(oa) || va+vb < b.alone(ob) {
					c.prunedN++
					if !c.allPairs {
						continue
					}
				}
				o := *oa
				o.rate = 0 // two rates: not one job's
				out = append(out, cand{a: a, b: b, o: o, v: va + vb})
			}
		}
	}
	return out
}

// pairOpt is an option two jobs may share: its places in each one's
// options, and each one's predicted normalized throughput there.
type pairOpt struct {
	a, b   int32
	na, nb float64
}

// pairsOf returns the options a and b may share, in the order of a's
// options: those b has too where both pair rates are known. They depend
// only on the two jobs' classes (soloOpts), so each pair of classes is
// worked out once (the pool of pairs weighs some 2,000 pairs of jobs at
// every decision, of few classes).
func (c *Core) pairsOf(a, b *info) []pairOpt {
	ia, ib := a.ref.solo.id, b.ref.solo.id
	if int(ia) >= len(c.classPairs) {
		c.classPairs = append(c.classPairs, make([][][]pairOpt, int(ia)+1-len(c.classPairs))...)
	}
	row := c.classPairs[ia]
	if int(ib) >= len(row) {
		row = append(row, make([][]pairOpt, int(ib)+1-len(row))...)
		c.classPairs[ia] = row
	}
	if row[ib] == nil {
		row[ib] = c.sharedOpts(a, b)
	}
	return row[ib]
}

// sharedOpts works out the options a and b may share, job by job (never
// nil: pairsOf marks the pairs of classes done by it).
func (c *Core) sharedOpts(a, b *info) []pairOpt {
	out := []pairOpt{}
	for x := range a.opts {
		oa := &a.opts[x]
		y := b.optIndex(oa.tid, oa.d, oa.spread)
		if y < 0 {
			continue
		}
		na, ok1 := c.pair(a, b, oa)
		nb, ok2 := c.pair(b, a, oa)
		if ok1 && ok2 {
			out = append(out, pairOpt{int32(x), int32(y), na, nb})
		}
	}
	return out
}

// opt returns the job's option on the type of index tid (topology.types) at
// degree d, spread or not.
func (in *info) opt(tid int32, d int, spread bool) *option {
	if i := in.optIndex(tid, d, spread); i >= 0 {
		return &in.opts[i]
	}
	return nil
}

// optIndex is opt's place in the job's options; -1 none.
func (in *info) optIndex(tid int32, d int, spread bool) int {
	for i := range in.opts {
		if o := &in.opts[i]; o.tid == tid && o.d == d && o.spread == spread {
			return i
		}
	}
	return -1
}

// keeps reports whether o is in's current placement, alone: choosing it
// again costs no restart.
func (in *info) keeps(o *option) bool {
	return in.cur != nil && in.partner < 0 && sameOpt(o, in.cur)
}

// alone returns in's value alone on o as the greedy weighs it: times its
// keep factor when o is where it runs alone now.
func (in *info) alone(o *option) float64 {
	if in.keeps(o) {
		return o.value * in.keep
	}
	return o.value
}

// sharing reports whether in runs next to b now, on a placement like o.
func (in *info) sharing(b *info, o *option) bool {
	return in.partner == b.j.ID && in.cur != nil && sameOpt(o, in.cur)
}

// pair returns the predicted normalized throughput of a's workload next
// to b's on o's GPU type and degree, remembered: it depends only on the
// workloads and the placement. The memo is indexed by the workloads'
// numbers, each pair of workloads holding the few placements asked of it
// (the types times the degrees both run at) for a short scan: the pair
// check runs for every candidate pair at every decision, and hashing a
// key there took a twentieth of a 100k-job simulation.
func (c *Core) pair(a, b *info, o *option) (float64, bool) {
	if int(a.wid) >= len(c.pairMemo) {
		c.pairMemo = append(c.pairMemo, make([][][]pairVal, int(a.wid)+1-len(c.pairMemo))...)
	}
	row := c.pairMemo[a.wid]
	if int(b.wid) >= len(row) {
		row = append(row, make([][]pairVal, int(b.wid)+1-len(row))...)
		c.pairMemo[a.wid] = row
	}
	tid, d := int32(o.tid), int32(o.d)
	for _, v := range row[b.wid] {
		if v.tid == tid && v.d == d {
			return v.n, v.ok
		}
	}
	n, ok := c.rates.Pair(a.j.Workload, b.j.Workload, c.topo.types[o.tid], o.d)
	row[b.wid] = append(row[b.wid], pairVal{tid: tid, d: d, n: n, ok: ok})
	return n, ok
}

// widOf numbers workload names, so that memo keys hash small integers.
func (c *Core) widOf(w string) int32 {
	if id, ok := c.wid[w]; ok {
		return id
	}
	if c.wid == nil {
		c.wid = map[string]int32{}
	}
	id := int32(len(c.wid))
	c.wid[w] = id
	return id
}

type pairVal struct {
	tid, d int32 // the placement: the type's place in the topology, the degree
	n      float64
	ok     bool
}

// growDegrees gives jobs running alone a faster option on the GPUs no job
// took, highest index first (picked is the picked jobs in that order): a
// larger degree of their type, or any option of another type, when that
// shortens the job's expected remaining time by more than the restart it
// may cost. Options compare by value per GPU, the right currency while
// GPUs are scarce; with GPUs that nobody took, a job's own speed is what
// its completion time follows (a job alone on one P100 beside idle V100s
// stayed there: its value per GPU kept beat two V100s').
func (c *Core) growDegrees(picked []*info, left []int) {
	room := false
	for _, n := range left {
		room = room || n > 0
	}
	if !room {
		return
	}
	for _, in := range picked {
		if in.pick == nil || in.pick.partner != nil {
			continue
		}
		cur := in.pick.o
		best := cur
		for _, o := range in.opts {
			if o.rate <= best.rate || !growsTo(&cur, &o, left) {
				continue
			}
			best = o
		}
		if sameOpt(&best, &cur) {
			continue
		}
		if in.cur != nil && sameOpt(&cur, in.cur) {
			// It would restart: worth it only if it saves more than that.
			rem := in.remain / float64(in.ref.degree) * in.ref.rate // iterations, expected
			if rem/cur.rate-rem/best.rate <= c.opt.RestartPenalty {
				continue
			}
		}
		if best.tid == cur.tid {
			left[best.tid] -= best.d - cur.d
		} else {
			left[best.tid] -= best.d
			left[cur.tid] += cur.d
		}
		in.pick.was, in.pick.grown = cur, true
		in.pick.o = best
	}
}

// growsTo reports whether a job picked for option cur may grow to o on
// the GPUs left: a larger degree of cur's type (its GPUs counted), or
// any degree of another type.
func growsTo(cur, o *option, left []int) bool {
	if o.tid == cur.tid {
		return o.d > cur.d && left[o.tid] >= o.d-cur.d
	}
	return left[o.tid] >= o.d
}

// growRef is a pick settled must check for growth: the job's options
// and the pick's place among them.
type growRef struct {
	a  *soloOpts
	at int32
}

// placeAll turns the picks into GPUs. A running job whose pick matches
// its current placement keeps its GPUs: alone, or with the same partner,
// or as the host a new partner joins; the more valuable pick claims the
// GPUs first when two want the same. The others take free GPUs of their
// type, on the fullest node with room (best fit), spread over nodes when
// their pick is spread or no node has room and the jobs may run spread.
func (c *Core) placeAll(st *State, infos, order []*info) []Placed {
	used := slices.Grow(c.usedBuf[:0], len(st.GPUs))[:len(st.GPUs)]
	clear(used)
	c.usedBuf = used
	claim := func(gpus []int) bool {
		for _, g := range gpus {
			if used[g] {
				return false
			}
		}
		for _, g := range gpus {
			used[g] = true
		}
		return true
	}
	for _, in := range order {
		p := in.pick
		if p == nil || in.cur == nil || !sameOpt(&p.o, in.cur) {
			continue
		}
		if in.gpus != nil {
			continue
		}
		switch {
		case p.partner == nil && in.partner >= 0:
			// It shared and now runs alone: its GPUs go to one of the
			// two, the more valuable first.
		case p.partner != nil && in.partner >= 0 && in.partner != p.partner.j.ID:
			continue // a new partner on GPUs that hold another job: move
		}
		if !claim(in.j.GPUs) {
			continue
		}
		in.gpus = in.j.GPUs
		if p.partner != nil {
			p.partner.gpus = in.j.GPUs
		}
	}
	for _, in := range order {
		p := in.pick
		if p == nil {
			continue
		}
		if in.gpus != nil {
			continue
		}
		g := c.freeGPUs(used, &p.o, in.j.Workload, p.partner)
		if g == nil && p.grown {
			// Counts of free GPUs fit, the nodes did not: the option it
			// had before it grew, where it runs if it ran there.
			p.o, p.grown = p.was, false
			if in.cur != nil && sameOpt(&p.o, in.cur) && claim(in.j.GPUs) {
				g = in.j.GPUs
			} else {
				g = c.freeGPUs(used, &p.o, in.j.Workload, nil)
			}
		}
		if g == nil {
			continue
		}
		for _, x := range g {
			used[x] = true
		}
		in.gpus = g
		if p.partner != nil {
			p.partner.gpus = g
		}
	}
	out := c.placed[:0]
	for _, in := range infos {
		if in.gpus != nil {
			out = append(out, Placed{in.at, in.gpus})
		}
	}
	c.placed = sortPlaced(out)
	return out
}

// sortPlaced puts out in the state's order. The infos hold the running
// jobs first, in that order, so the answer is sorted up to the few
// waiting jobs placed: those are moved back to their places one by one,
// and only a long unsorted tail (a cluster's first decision) is sorted.
func sortPlaced(out []Placed) []Placed {
	k := 1
	for k < len(out) && out[k-1].Job < out[k].Job {
		k++
	}
	if len(out)-k > 64 {
		slices.SortFunc(out, func(a, b Placed) int { return cmp.Compare(a.Job, b.Job) })
		return out
	}
	for ; k < len(out); k++ {
		for i := k; i > 0 && out[i-1].Job > out[i].Job; i-- {
			out[i-1], out[i] = out[i], out[i-1]
		}
	}
	return out
}

// nodeFree is a node's unused GPUs of one type.
type nodeFree struct{ free []int }

// freeGPUs finds o.d unused GPUs of o's type: on one node (the one with the
// fewest unused GPUs that still fit) unless o is spread, else over the
// nodes with the most unused GPUs first; nil when there are not enough,
// or the job cannot run spread.
func (c *Core) freeGPUs(used []bool, o *option, workload string, partner *info) []int {
	// The unused GPUs of each node of the type, in one buffer the next
	// call reuses: what is returned is a copy.
	nodes, free := c.nodesBuf[:0], c.freeBuf[:0]
	total := 0
	for _, gs := range c.topo.byType[o.tid] {
		start := len(free)
		for _, g := range gs {
			if !used[g] {
				free = append(free, g)
			}
		}
		if len(free) > start {
			nodes = append(nodes, nodeFree{free[start:len(free):len(free)]})
			total += len(free) - start
		}
	}
	c.nodesBuf, c.freeBuf = nodes, free
	if total < o.d {
		return nil
	}
	if !o.spread {
		best := -1
		for i, n := range nodes {
			if len(n.free) >= o.d && (best < 0 || len(n.free) < len(nodes[best].free)) {
				best = i
			}
		}
		if best >= 0 {
			return slices.Clone(nodes[best].free[:o.d])
		}
		typ := c.topo.types[o.tid]
		if _, ok := c.rates.Solo(workload, typ, o.d, true); !ok || o.d < 2 {
			return nil
		}
		if partner != nil {
			if _, ok := c.rates.Solo(partner.j.Workload, typ, o.d, true); !ok {
				return nil
			}
		}
	}
	slices.SortStableFunc(nodes, func(a, b nodeFree) int { return cmp.Compare(len(b.free), len(a.free)) })
	var g []int
	for _, n := range nodes {
		for _, x := range n.free {
			if len(g) < o.d {
				g = append(g, x)
			}
		}
	}
	slices.Sort(g)
	return g
}
