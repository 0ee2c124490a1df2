package sim

import "unsafe"

// The placement rules (View.CanRun, View.CanShare) are asked for every
// waiting job at every scheduling point; with thousands of jobs the map
// lookups by workload name dominate a run. The simulation answers them
// for its own jobs from a memo keyed by small integers instead.

type ruleKey struct {
	a, b   int32 // workload indices; b = -1 for CanRun
	typ    int16 // index into Topology.Types()
	gpus   int16
	spread bool
}

type rules struct {
	wid []int32 // job ID -> workload index
	nw  int     // workloads
	// names are the workloads by index; the jobs' Workload strings are
	// these very strings (interned), so a name is found by its pointer.
	names []string
	memo  map[ruleKey]bool
	// dense answers for one-node and spread placements of up to maxDense
	// GPUs: 0 not asked yet, 1 no, 2 yes; index denseAt.
	run, share []uint8
	ntypes     int
}

// maxDense is the largest number of GPUs the dense memo covers (Gavel's
// largest scale factor); larger placements use the map.
const maxDense = 64

func (r *rules) denseAt(a, b int32, typ, gpus int, spread bool) int {
	i := ((int(a)*max(r.nw, 1)+int(b))*r.ntypes+typ)*(maxDense+1) + gpus
	i *= 2
	if spread {
		i++
	}
	return i
}

func newRules(jobs []*Job) rules {
	r := rules{wid: make([]int32, len(jobs)), memo: map[ruleKey]bool{}}
	index := map[string]int32{}
	for i, j := range jobs {
		w, ok := index[j.Workload]
		if !ok {
			w = int32(len(index))
			index[j.Workload] = w
			r.names = append(r.names, j.Workload)
		}
		j.Workload = r.names[w]
		r.wid[i] = w
	}
	r.nw = len(index)
	return r
}

// initDense sizes the dense memo for a cluster of ntypes GPU types.
func (r *rules) initDense(ntypes int) {
	r.ntypes = ntypes
	r.run = make([]uint8, r.nw*ntypes*(maxDense+1)*2)
	if r.nw*r.nw*ntypes <= 1<<16 {
		r.share = make([]uint8, r.nw*r.nw*ntypes*(maxDense+1)*2)
	}
}

// widOf returns the index of a workload given by one of the jobs'
// (interned) names, ok false for any other string.
func (r *rules) widOf(name string) (int32, bool) {
	p := unsafe.StringData(name)
	for i, n := range r.names {
		if unsafe.StringData(n) == p && len(n) == len(name) {
			return int32(i), true
		}
	}
	return 0, false
}

// canRunNamed answers View.CanRun from the dense memo when the workload
// is one of the jobs' and the shape fits it; known false otherwise.
func (s *simulation) canRunNamed(workload string, sh Shape) (ok, known bool) {
	if s.rules.run == nil || sh.GPUs < 1 || sh.GPUs > maxDense {
		return false, false
	}
	w, found := s.rules.widOf(workload)
	if !found {
		return false, false
	}
	typ := -1
	for i, t := range s.topo.types {
		if t == sh.GPUType {
			typ = i
			break
		}
	}
	if typ < 0 {
		return false, false
	}
	spread := sh.Spread && sh.GPUs > 1
	i := s.rules.denseAt(0, w, typ, sh.GPUs, spread)
	if v := s.rules.run[i]; v != 0 {
		return v == 2, true
	}
	r, has := s.truth.Solo(workload, sh)
	ok = has && r > 0
	s.rules.run[i] = 1
	if ok {
		s.rules.run[i] = 2
	}
	return ok, true
}

// canRun answers View.CanRun for job id on gpus GPUs of type index typ.
func (s *simulation) canRun(id, typ, gpus int, spread bool) bool {
	k := ruleKey{a: s.rules.wid[id], b: -1, typ: int16(typ), gpus: int16(gpus), spread: spread && gpus > 1}
	if gpus <= maxDense && s.rules.run != nil {
		i := s.rules.denseAt(0, k.a, typ, gpus, k.spread)
		if v := s.rules.run[i]; v != 0 {
			return v == 2
		}
		ok := (&View{sim: s}).CanRun(s.jobs[id].Workload, Shape{GPUType: s.topo.types[typ], GPUs: gpus, Spread: k.spread})
		s.rules.run[i] = 1
		if ok {
			s.rules.run[i] = 2
		}
		return ok
	}
	ok, seen := s.rules.memo[k]
	if !seen {
		v := &View{sim: s}
		ok = v.CanRun(s.jobs[id].Workload, Shape{GPUType: s.topo.types[typ], GPUs: gpus, Spread: k.spread})
		s.rules.memo[k] = ok
	}
	return ok
}

// canShareOn is canShare for gpus already known to be n GPUs of type
// index typ, spread or not.
func (s *simulation) canShareOn(a, b, typ, n int, spread bool, gpus []int) bool {
	if n <= maxDense && s.rules.share != nil {
		if v := s.rules.share[s.rules.denseAt(s.rules.wid[a], s.rules.wid[b], typ, n, spread)]; v != 0 {
			return v == 2
		}
	}
	return s.canShare(a, b, gpus)
}

// canShare answers View.CanShare for jobs a and b on gpus.
func (s *simulation) canShare(a, b int, gpus []int) bool {
	sh := s.shapeOf(gpus)
	k := ruleKey{a: s.rules.wid[a], b: s.rules.wid[b], typ: int16(s.typeOf[gpus[0]]), gpus: int16(len(gpus)), spread: sh.Spread}
	if len(gpus) <= maxDense && s.rules.share != nil {
		i := s.rules.denseAt(k.a, k.b, int(k.typ), len(gpus), sh.Spread)
		if v := s.rules.share[i]; v != 0 {
			return v == 2
		}
		ok := (&View{sim: s}).CanShare(s.jobs[a].Workload, s.jobs[b].Workload, sh)
		s.rules.share[i] = 1
		if ok {
			s.rules.share[i] = 2
		}
		return ok
	}
	ok, seen := s.rules.memo[k]
	if !seen {
		v := &View{sim: s}
		ok = v.CanShare(s.jobs[a].Workload, s.jobs[b].Workload, sh)
		s.rules.memo[k] = ok
	}
	return ok
}

// shapeOf is Topology.ShapeOf for GPU sets known to be valid (distinct,
// existing, one type): no checks, no allocation.
func (s *simulation) shapeOf(gpus []int) Shape {
	sh := Shape{GPUType: s.topo.GPUs[gpus[0]].Type, GPUs: len(gpus)}
	n := s.topo.GPUs[gpus[0]].Node
	for _, g := range gpus[1:] {
		if s.topo.GPUs[g].Node != n {
			sh.Spread = true
			break
		}
	}
	return sh
}
