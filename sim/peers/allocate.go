package peers

import (
	"fmt"
	"slices"

	"github.com/coloc-dev/coloc/internal/lp"
)

// fifoAlloc is the allocation of Gavel's fifo policy (FIFOPolicy, mode
// "base"): a job keeps the GPU type it was given until it completes; jobs
// without one are given one in arrival order while types have GPUs left.
//
// It reproduces a defect of that code, since agreeing with Gavel's
// simulator is its purpose: the type drawn at random among those with
// room for the job is not the one used. The job is given the type that
// comes last by name among the types with GPUs left (a loop variable
// left over from the scan that found them), even when that type has
// fewer GPUs left than the job needs; the random draw only chooses which
// type leaves the list when the given type's count reaches exactly zero,
// and a type whose count went below zero never leaves it. So most jobs
// queue for one type while others idle. The draws come from a generator
// seeded as Gavel's is (mt.go), so both simulators draw alike.
type fifoAlloc struct {
	rng    *mt
	assign map[int]int // job ID -> type index
	scale  map[int]int
}

func newFIFOAlloc(seed uint64) *fifoAlloc {
	return &fifoAlloc{rng: newMT(seed), assign: map[int]int{}, scale: map[int]int{}}
}

func (f *fifoAlloc) allocate(st *allocState) (map[entry][]float64, error) {
	avail := slices.Clone(st.counts)
	byID := map[int]*gjob{}
	var queue []int
	for _, j := range st.jobs {
		byID[j.id] = j
		f.scale[j.id] = j.scale
		if _, ok := f.assign[j.id]; !ok {
			queue = append(queue, j.id)
		}
	}
	slices.Sort(queue)
	ids := make([]int, 0, len(f.assign))
	for id := range f.assign {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		k := f.assign[id]
		if _, active := byID[id]; active {
			avail[k] -= f.scale[id]
			continue
		}
		// A completed job's type goes to the head of the queue when it
		// fits there.
		if len(queue) > 0 {
			h := queue[0]
			if f.scale[h] <= avail[k] && byID[h].rate[k] > 0 {
				queue = queue[1:]
				f.assign[h] = k
				avail[k] -= f.scale[h]
			}
		}
		delete(f.assign, id)
		delete(f.scale, id)
	}
	var types []int // type indices with GPUs left, by name (types are sorted)
	for k, n := range avail {
		if n > 0 {
			types = append(types, k)
		}
	}
	for len(queue) > 0 && len(types) > 0 {
		id := queue[0]
		queue = queue[1:]
		sf := f.scale[id]
		var fit []int // positions in types with room for the job
		for i, k := range types {
			if avail[k] >= sf {
				fit = append(fit, i)
			}
		}
		if len(fit) == 0 {
			break
		}
		draw := f.rng.randrange(len(fit))
		k := types[len(types)-1]
		if byID[id].rate[k] > 0 {
			f.assign[id] = k
			avail[k] -= sf
			if avail[k] == 0 {
				types = slices.Delete(types, fit[draw], fit[draw]+1)
			}
		}
	}
	out := map[entry][]float64{}
	for _, j := range st.jobs {
		a := make([]float64, len(st.types))
		if k, ok := f.assign[j.id]; ok {
			a[k] = 1
		}
		out[entry{j.id, -1}] = a
	}
	return out, nil
}

// class is a group of active jobs an allocation cannot tell apart: same
// workload and scale, so the same rates. Jobs of one class get the same
// allocation; a max-min program has such an optimum (the mean of an
// optimum over permutations of identical jobs is one), and an
// interior-point solver such as Gavel's ECOS returns a symmetric one.
type class struct {
	jobs []*gjob
	rep  *gjob
	prop float64 // throughput at a proportional share of the cluster
}

// classes groups jobs by workload and scale, in the order of their first
// job, and leaves out jobs with no rate anywhere (Gavel divides by their
// proportional throughput, which is 0).
func classes(st *allocState) []*class {
	total := 0
	for _, n := range st.counts {
		total += n
	}
	idx := map[[2]any]int{}
	var out []*class
	for _, j := range st.jobs {
		key := [2]any{j.workload, j.scale}
		if i, ok := idx[key]; ok {
			out[i].jobs = append(out[i].jobs, j)
			continue
		}
		prop := 0.0
		for k, n := range st.counts {
			prop += j.rate[k] * float64(n) / float64(total)
		}
		if !(prop > 0) {
			continue
		}
		idx[key] = len(out)
		out = append(out, &class{jobs: []*gjob{j}, rep: j, prop: prop})
	}
	return out
}

// maxMinAlloc is Gavel's max_min_fairness_perf (heterogeneity-aware
// least attained service): the allocation that maximizes the least
// normalized throughput of any job, a job's normalized throughput being
// its rate under the allocation, times its scale, over its rate at a
// proportional share of every type (Gavel's MaxMinFairnessPolicyWithPerf,
// priority weights 1). It is solved over job classes.
type maxMinAlloc struct{}

func (maxMinAlloc) allocate(st *allocState) (map[entry][]float64, error) {
	cs := classes(st)
	out := map[entry][]float64{}
	for _, j := range st.jobs {
		out[entry{j.id, -1}] = make([]float64, len(st.types))
	}
	if len(cs) == 0 {
		return out, nil
	}
	T := len(st.types)
	n := 1 + len(cs)*T // t, then x[c][k]
	p := lp.Problem{C: make([]float64, n)}
	p.C[0] = 1
	for ci, c := range cs {
		row := make([]float64, n)
		row[0] = 1
		for k := range st.types {
			row[1+ci*T+k] = -c.rep.rate[k] * float64(c.rep.scale) / c.prop
		}
		p.A = append(p.A, row)
		p.B = append(p.B, 0)
		row = make([]float64, n)
		for k := range st.types {
			row[1+ci*T+k] = 1
		}
		p.A = append(p.A, row)
		p.B = append(p.B, 1)
	}
	for k, cnt := range st.counts {
		row := make([]float64, n)
		for ci, c := range cs {
			row[1+ci*T+k] = float64(len(c.jobs) * c.rep.scale)
		}
		p.A = append(p.A, row)
		p.B = append(p.B, float64(cnt))
	}
	sol, err := lp.Solve(p)
	if err != nil {
		return nil, fmt.Errorf("max-min allocation over %d job classes: %w", len(cs), err)
	}
	for ci, c := range cs {
		for _, j := range c.jobs {
			a := out[entry{j.id, -1}]
			for k := range st.types {
				a[k] = min(1, max(0, sol.X[1+ci*T+k]))
			}
		}
	}
	return out, nil
}

// packedAlloc is Gavel's max_min_fairness_packed: the max-min program
// above where a job may also spend time sharing its GPUs with one other
// job of the same scale, at the pair's measured rates. Over classes:
// s[c][k] is the time a job of class c runs alone on type k; P[c,d][k]
// the total time jobs of c and d share GPUs of type k, summed over the
// pairs (a job of c gets P/n_c of it; a pair of two jobs of c takes two
// of them). Gavel's own code builds one variable per pair of jobs and
// fails on traces that mix scales; by the symmetry of identical jobs the
// class program has the same optimum. Each pair of jobs of classes c and
// d gets P[c,d][k]/(n_c n_d) (n_c (n_c-1)/2 pairs within c), as Gavel's
// conversion from job-type allocations gives.
type packedAlloc struct{}

func (packedAlloc) allocate(st *allocState) (map[entry][]float64, error) {
	cs := classes(st)
	T := len(st.types)
	out := map[entry][]float64{}
	for _, j := range st.jobs {
		out[entry{j.id, -1}] = make([]float64, T)
	}
	if len(cs) == 0 {
		return out, nil
	}
	type pairVar struct {
		c, d, k int
		rc, rd  float64 // rates of c's job next to d's and d's next to c's
	}
	var pv []pairVar
	for ci, c := range cs {
		for di := ci; di < len(cs); di++ {
			d := cs[di]
			if d.rep.scale != c.rep.scale || (di == ci && len(c.jobs) < 2) {
				continue
			}
			for k := 0; k < T; k++ {
				o := d.rep
				if di == ci {
					o = c.jobs[1]
				}
				if rc, rd, ok := st.pairRates(c.rep, o, k); ok {
					pv = append(pv, pairVar{ci, di, k, rc, rd})
				}
			}
		}
	}
	ns := len(cs) * T
	n := 1 + ns + len(pv)
	p := lp.Problem{C: make([]float64, n)}
	p.C[0] = 1
	value := make([][]float64, len(cs))
	timeRow := make([][]float64, len(cs))
	for ci, c := range cs {
		value[ci] = make([]float64, n)
		timeRow[ci] = make([]float64, n)
		value[ci][0] = 1
		for k := 0; k < T; k++ {
			value[ci][1+ci*T+k] = -c.rep.rate[k] * float64(c.rep.scale) / c.prop
			timeRow[ci][1+ci*T+k] = 1
		}
	}
	capRow := make([][]float64, T)
	for k := range capRow {
		capRow[k] = make([]float64, n)
		for ci, c := range cs {
			capRow[k][1+ci*T+k] = float64(len(c.jobs) * c.rep.scale)
		}
	}
	for i, v := range pv {
		col := 1 + ns + i
		c, d := cs[v.c], cs[v.d]
		sf := float64(c.rep.scale)
		if v.c == v.d {
			share := 2 / float64(len(c.jobs)) // both jobs of a pair are of c
			value[v.c][col] -= v.rc * sf / c.prop * share
			timeRow[v.c][col] += share
		} else {
			value[v.c][col] -= v.rc * sf / c.prop / float64(len(c.jobs))
			timeRow[v.c][col] += 1 / float64(len(c.jobs))
			value[v.d][col] -= v.rd * sf / d.prop / float64(len(d.jobs))
			timeRow[v.d][col] += 1 / float64(len(d.jobs))
		}
		capRow[v.k][col] = sf
	}
	for ci := range cs {
		p.A = append(p.A, value[ci], timeRow[ci])
		p.B = append(p.B, 0, 1)
	}
	for k, cnt := range st.counts {
		p.A = append(p.A, capRow[k])
		p.B = append(p.B, float64(cnt))
	}
	sol, err := lp.Solve(p)
	if err != nil {
		return nil, fmt.Errorf("packed max-min allocation over %d job classes and %d pair variables: %w", len(cs), len(pv), err)
	}
	for ci, c := range cs {
		for _, j := range c.jobs {
			a := out[entry{j.id, -1}]
			for k := 0; k < T; k++ {
				a[k] = min(1, max(0, sol.X[1+ci*T+k]))
			}
		}
	}
	for i, v := range pv {
		P := sol.X[1+ns+i]
		if !(P > 1e-12) {
			continue
		}
		c, d := cs[v.c], cs[v.d]
		each := P / float64(len(c.jobs)*len(d.jobs))
		if v.c == v.d {
			each = P / float64(len(c.jobs)*(len(c.jobs)-1)/2)
		}
		each = min(1, each)
		for ai, a := range c.jobs {
			for bi, b := range d.jobs {
				if v.c == v.d && bi <= ai {
					continue
				}
				e := entry{min(a.id, b.id), max(a.id, b.id)}
				al := out[e]
				if al == nil {
					al = make([]float64, T)
					out[e] = al
				}
				al[v.k] += each
			}
		}
	}
	return out, nil
}
