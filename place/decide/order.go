package decide

import (
	"cmp"
	"slices"

	"github.com/coloc-dev/coloc/internal/packsort"
)

// candOrder yields candidates (the greedy's pairs; the jobs alone come
// from jobOrder) in the order compareCands gives them, highest value
// first, drawing them from a heap so that a decision that stops early (no
// GPU left, every job picked) orders only what it takes. A sort of every
// candidate with a comparison function per pair took a fifth of a
// 100k-job simulation.
//
// Each key packs a candidate's value, in an encoding whose integer order
// is the values' order (descending), above its place among the
// candidates (packsort.Key): the heap compares integers and settles almost
// every comparison without a call. Candidates whose values agree in the
// bits the place leaves come off the heap one after the other and are
// put in compareCands' order as a run.
//
// When a decision takes more than a quarter of what is left, the rest is
// sorted at once instead (when most candidates are looked at, popping
// each costs more than a sort), less the candidates no longer live: the
// greedy passes over those one by one, and on a full cluster they are
// most of the rest.
type candOrder struct {
	cands  []cand
	live   func(*cand) bool // nil: every candidate
	mask   uint64           // the bits of a key that hold the place
	heap   []uint64         // a heap of keys, or the keys sorted (sorted)
	sorted bool
	pos    int      // with sorted: the next key of heap
	pops   int      // keys popped off the heap
	run    []uint64 // the current run of keys, in order
	at     int      // the next key of run
}

// reset starts an order over cands, reusing the buffers. live (nil:
// always true) reports whether a candidate can still be taken; once false
// for a candidate it must stay false (the greedy only picks jobs and
// takes GPUs away), so the order may leave it out.
func (o *candOrder) reset(cands []cand, live func(*cand) bool) {
	o.cands, o.live, o.mask, o.heap, o.run, o.at = cands, live, packsort.Mask(len(cands)), o.heap[:0], o.run[:0], 0
	o.sorted, o.pos, o.pops = false, 0, 0
	for i := range cands {
		o.heap = append(o.heap, packsort.Key(cands[i].v, i, o.mask))
	}
	for i := len(o.heap)/2 - 1; i >= 0; i-- {
		o.down(i)
	}
}

// next returns the place of the next candidate; false when none is left.
func (o *candOrder) next() (int, bool) {
	if o.at == len(o.run) {
		if !o.sorted && o.pops > len(o.heap)/4 {
			if o.live != nil {
				h := o.heap[:0]
				for _, k := range o.heap {
					if o.live(&o.cands[k&o.mask]) {
						h = append(h, k)
					}
				}
				o.heap = h
			}
			slices.Sort(o.heap)
			o.sorted = true
		}
		if o.pos == len(o.heap) {
			return 0, false
		}
		o.run, o.at = o.run[:0], 0
		x := o.take()
		o.run = append(o.run, x)
		for o.pos < len(o.heap) && o.heap[o.pos]&^o.mask == x&^o.mask {
			o.run = append(o.run, o.take())
		}
		if len(o.run) > 1 {
			slices.SortFunc(o.run, func(x, y uint64) int {
				return compareCands(o.cands[x&o.mask], o.cands[y&o.mask])
			})
		}
	}
	k := o.run[o.at]
	o.at++
	return int(k & o.mask), true
}

// take removes and returns the smallest key left: the heap's top, or
// the next of the sorted keys.
func (o *candOrder) take() uint64 {
	h := o.heap
	if o.sorted {
		o.pos++
		return h[o.pos-1]
	}
	o.pops++
	x := h[0]
	n := len(h) - 1
	h[0] = h[n]
	o.heap = h[:n]
	o.down(0)
	return x
}

// down restores the heap below i.
func (o *candOrder) down(i int) {
	h := o.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r] < h[l] {
			m = r
		}
		if h[i] <= h[m] {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// compareCands orders options by value, then (a total order, so that
// the unstable sort is deterministic) by arrival, job IDs, type and degree.
func compareCands(x, y cand) int {
	if c := cmp.Compare(y.v, x.v); c != 0 {
		return c
	}
	if c := cmp.Compare(x.a.j.Arrival, y.a.j.Arrival); c != 0 {
		return c
	}
	if c := cmp.Compare(x.a.j.ID, y.a.j.ID); c != 0 {
		return c
	}
	bx, by := -1, -1
	if x.b != nil {
		bx = x.b.j.ID
	}
	if y.b != nil {
		by = y.b.j.ID
	}
	if c := cmp.Compare(bx, by); c != 0 {
		return c
	}
	if c := cmp.Compare(x.o.tid, y.o.tid); c != 0 { // as the types' names (option)
		return c
	}
	if c := cmp.Compare(x.o.d, y.o.d); c != 0 {
		return c
	}
	return cmp.Compare(b2i(x.o.spread), b2i(y.o.spread))
}

// sortWait returns, in buf's array, the places of keys in the order
// compareWait gives them: the integers sorted pack each index
// (descending) above its place (packsort.Key), so that almost every comparison
// is one of integers, and runs whose indices agree in the bits the place
// leaves are then put in compareWait's order.
func sortWait(buf []uint64, keys []waitKey) []uint64 {
	mask := packsort.Mask(len(keys))
	buf = buf[:0]
	for i := range keys {
		buf = append(buf, packsort.Key(keys[i].index, i, mask))
	}
	packsort.Sort(buf, mask, func(x, y int) int { return compareWait(keys[x], keys[y]) })
	for i := range buf {
		buf[i] &= mask
	}
	return buf
}

// fits counts, per GPU type and degree, the options of the jobs not yet
// picked, so that the greedy stops as soon as none of them fits the GPUs
// left: every later candidate would be passed over (a pair's option is
// also an option of each of its jobs). On a full cluster that comes long
// before the candidates run out. Counts are indexed by degree (an option's
// degree is at most its type's GPUs), and each type's smallest degree
// counted only grows once the counting is done, so a check costs one
// comparison per type.
type fits struct {
	count [][]int // by the type's place in the topology, then degree
	least []int   // by type: the smallest degree counted (len(count[t]) when none)
}

// reset empties the counts for n types.
func (f *fits) reset(n int) {
	if len(f.count) < n {
		f.count = append(f.count, make([][]int, n-len(f.count))...)
		f.least = append(f.least, make([]int, n-len(f.least))...)
	}
	f.count, f.least = f.count[:n], f.least[:n]
	for t := range f.count {
		clear(f.count[t])
		f.least[t] = len(f.count[t])
	}
}

// add counts each option of opts sign times: 1 while the jobs are
// counted (before any is taken away), -1 when one gets a pick.
func (f *fits) add(opts []option, sign int) {
	for i := range opts {
		t, d := opts[i].tid, opts[i].d
		c := f.count[t]
		if d >= len(c) {
			if f.least[t] == len(c) {
				f.least[t] = d + 1
			}
			c = append(c, make([]int, d+1-len(c))...)
			f.count[t] = c
		}
		c[d] += sign
		switch {
		case sign > 0 && d < f.least[t]:
			f.least[t] = d
		case sign < 0 && d == f.least[t]:
			for f.least[t] < len(c) && c[f.least[t]] == 0 {
				f.least[t]++
			}
		}
	}
}

// any reports whether an option counted fits the GPUs left of its type.
// left holds the GPUs left by the type's place in topology.types.
func (f *fits) any(left []int) bool {
	for t, d := range f.least {
		if d < len(f.count[t]) && d <= left[t] {
			return true
		}
	}
	return false
}

// jobOrder yields the options of jobs alone in compareCands' order: each
// job's options sorted, and the jobs merged by the first of theirs not
// yet passed over (a k-way merge). A job that gets a pick leaves with all
// its options, which the greedy would pass over one by one, and an option
// that does not fit the GPUs left gives way to the job's next. On a full
// cluster the greedy then looks at a job's options until one fits, not at
// every option of every job placed before it: with every option in one
// heap, ordering them took a third of a 100k-job simulation.
//
// The jobs at their first option are sorted once, as packed keys (value
// above the job's place, as candOrder's), and read in turn; only the jobs
// passed over wait in a heap by their next option, which is small: a
// decision takes most jobs at their first option or not at all. The
// smaller of the two heads comes next. A heap of every job cost a pop of
// log(jobs) comparisons per job taken.
type jobOrder struct {
	jobs  []*info
	vals  []float64 // the options' values, job by job, each job's in order
	opts  []int32   // the options' places in their job's opts, likewise
	start []int32   // per job, where its options begin (one more: the end)
	head  []int32   // per job, its first option not passed over
	keys  []uint64  // per job, packsort.Descending(its head option's value)
	first []uint64  // the jobs by their first option, in order (packsort.Key)
	mask  uint64    // the bits of first's keys that hold the job
	pos   int       // the next of first
	heap  []int32   // the jobs passed over, by their head options
	// fromHeap: top's job is the heap's root, else first's pos-th.
	fromHeap bool
}

// reset starts an order over the options of the jobs in infos not yet
// picked, a running job's current option times its keep factor (alone,
// as choose counts it).
func (o *jobOrder) reset(infos []*info) {
	o.jobs, o.vals, o.opts, o.start = o.jobs[:0], o.vals[:0], o.opts[:0], o.start[:0]
	for _, in := range infos {
		if in.pick != nil || len(in.opts) == 0 {
			continue
		}
		o.jobs = append(o.jobs, in)
		s := len(o.vals)
		o.start = append(o.start, int32(s))
		// In the order of the job's rates per GPU (its class's, found
		// once: soloOpts.rank), which is its values' order but for
		// rounding and a running job's keep; checked pair by pair, and
		// sorted only where it is not (a strict total order has one
		// sorted arrangement).
		var order []int
		if a := in.ref.solo; a != nil && len(a.order) == len(in.opts) {
			order = a.order
		}
		sorted := true
		for k := range in.opts {
			i := k
			if order != nil {
				i = order[k]
			}
			v := in.alone(&in.opts[i])
			if n := len(o.vals); n > s && optBefore(in, v, i, o.vals[n-1], int(o.opts[n-1])) {
				sorted = false
			}
			o.vals, o.opts = append(o.vals, v), append(o.opts, int32(i))
		}
		if !sorted {
			o.sortJob(in, s)
		}
	}
	o.start = append(o.start, int32(len(o.vals)))
	o.head = append(o.head[:0], o.start[:len(o.jobs)]...)
	o.keys, o.heap, o.first, o.pos = o.keys[:0], o.heap[:0], o.first[:0], 0
	o.mask = packsort.Mask(len(o.jobs))
	for x := range o.jobs {
		v := o.vals[o.start[x]]
		o.keys = append(o.keys, packsort.Descending(v))
		o.first = append(o.first, packsort.Key(v, x, o.mask))
	}
	packsort.Sort(o.first, o.mask, func(x, y int) int {
		switch {
		case x == y:
			return 0
		case o.less(int32(x), int32(y)):
			return -1
		}
		return 1
	})
}

// sortJob puts the options of job in, from vals' place s on, in
// optBefore's order (an insertion sort: a job has a few).
func (o *jobOrder) sortJob(in *info, s int) {
	for k := s + 1; k < len(o.vals); k++ {
		v, i := o.vals[k], o.opts[k]
		at := k
		for ; at > s && optBefore(in, v, int(i), o.vals[at-1], int(o.opts[at-1])); at-- {
			o.vals[at], o.opts[at] = o.vals[at-1], o.opts[at-1]
		}
		o.vals[at], o.opts[at] = v, i
	}
}

// optBefore reports whether job in's option i of value v comes before its
// option h of value w in compareCands' order.
func optBefore(in *info, v float64, i int, w float64, h int) bool {
	if kv, kw := packsort.Descending(v), packsort.Descending(w); kv != kw {
		return kv < kw
	}
	x, y := &in.opts[i], &in.opts[h]
	if x.tid != y.tid {
		return x.tid < y.tid
	}
	if x.d != y.d {
		return x.d < y.d
	}
	return !x.spread && y.spread
}

// top returns the next option in order, its job and its value, leaving it
// in place; jobs picked since they were last looked at leave first.
func (o *jobOrder) top() (*info, *option, float64, bool) {
	for o.pos < len(o.first) && o.jobs[o.first[o.pos]&o.mask].pick != nil {
		o.pos++
	}
	for len(o.heap) > 0 && o.jobs[o.heap[0]].pick != nil {
		o.pop()
	}
	var x int32
	switch {
	case o.pos < len(o.first) && (len(o.heap) == 0 || o.less(int32(o.first[o.pos]&o.mask), o.heap[0])):
		x, o.fromHeap = int32(o.first[o.pos]&o.mask), false
	case len(o.heap) > 0:
		x, o.fromHeap = o.heap[0], true
	default:
		return nil, nil, 0, false
	}
	in := o.jobs[x]
	h := o.head[x]
	return in, &in.opts[o.opts[h]], o.vals[h], true
}

// pass moves past the top option: its job's next one takes its place,
// passing over too the job's options that do not fit left (the GPUs left
// by type). The greedy's GPUs left only fall while it draws from the
// order, so an option that does not fit now never will, and passing it
// at once spares it a trip through the heap: on a full cluster most
// options are passed over.
func (o *jobOrder) pass(left []int) {
	x := o.topJob()
	h, end := o.head[x]+1, o.start[x+1]
	for in := o.jobs[x]; h < end; h++ {
		if p := &in.opts[o.opts[h]]; left[p.tid] >= p.d {
			break
		}
	}
	o.head[x] = h
	if h == end {
		o.drop()
		return
	}
	o.keys[x] = packsort.Descending(o.vals[o.head[x]])
	if o.fromHeap {
		o.down(0)
		return
	}
	o.pos++
	o.heap = append(o.heap, x)
	o.up(len(o.heap) - 1)
}

// drop removes the top option's job with all its options.
func (o *jobOrder) drop() {
	if o.fromHeap {
		o.pop()
		return
	}
	o.pos++
}

// topJob is the job top returned.
func (o *jobOrder) topJob() int32 {
	if o.fromHeap {
		return o.heap[0]
	}
	return int32(o.first[o.pos] & o.mask)
}

// pop removes the heap's root.
func (o *jobOrder) pop() {
	n := len(o.heap) - 1
	o.heap[0] = o.heap[n]
	o.heap = o.heap[:n]
	o.down(0)
}

// up restores the heap above i.
func (o *jobOrder) up(i int) {
	h := o.heap
	for i > 0 {
		p := (i - 1) / 2
		if !o.less(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// less orders the jobs x and y by their head options: by value, then
// arrival, then ID, as compareCands orders two jobs' options alone.
func (o *jobOrder) less(x, y int32) bool {
	if kx, ky := o.keys[x], o.keys[y]; kx != ky {
		return kx < ky
	}
	a, b := o.jobs[x].j, o.jobs[y].j
	if a.Arrival != b.Arrival {
		return a.Arrival < b.Arrival
	}
	return a.ID < b.ID
}

// down restores the heap below i.
func (o *jobOrder) down(i int) {
	h := o.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && o.less(h[r], h[l]) {
			m = r
		}
		if !o.less(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
