package policies

import "github.com/coloc-dev/coloc/sim"

// denseMemo remembers the rule's solo and pair rates in slices indexed
// by workload index and a slot of (GPU type, GPUs, spread), for the
// shapes that fit (memoTypes types, memoGPUs GPUs); the maps of the rule
// keep the rest. The estimators answer by workload name and shape only,
// so a rate remembered for one job of a workload holds for all of them.
type denseMemo struct {
	soloTab [][]soloVal   // by workload index, slot
	pairTab [][][]pairVal // by workload indices, slot
}

type soloVal struct {
	v   float64
	set bool
}

const (
	memoTypes = 8
	memoGPUs  = 64
)

// slot returns the index of a shape in a row, ok false when it does not
// fit.
func slot(typ int16, sh sim.Shape) (int, bool) {
	if typ < 0 || typ >= memoTypes || sh.GPUs < 0 || sh.GPUs > memoGPUs {
		return 0, false
	}
	i := sh.GPUs * 2
	if sh.Spread {
		i++
	}
	return i*memoTypes + int(typ), true
}

// solo returns soloOn's answer, computing and remembering it; ok false
// when the shape does not fit the slices.
func (m *denseMemo) solo(r *Rule, j *sim.Job, sh sim.Shape) (float64, bool) {
	i, ok := slot(r.typeIndex(sh.GPUType), sh)
	if !ok {
		return 0, false
	}
	w := int(r.widOf(j))
	for len(m.soloTab) <= w {
		m.soloTab = append(m.soloTab, nil)
	}
	row := m.soloTab[w]
	if i < len(row) && row[i].set {
		return row[i].v, true
	}
	s, known := r.solo.Solo(j.Workload, sh)
	if !known || !(s > 0) {
		s = 0
	}
	for len(row) <= i {
		row = append(row, soloVal{})
	}
	row[i] = soloVal{s, true}
	m.soloTab[w] = row
	return s, true
}

// pair returns pairOf's answer, computing and remembering it; ok false
// when the shape does not fit the slices.
func (m *denseMemo) pair(r *Rule, v *sim.View, j, q *sim.Job, sh sim.Shape) (pairVal, bool) {
	i, ok := slot(r.typeIndex(sh.GPUType), sh)
	if !ok {
		return pairVal{}, false
	}
	a, b := int(r.widOf(j)), int(r.widOf(q))
	for len(m.pairTab) <= a {
		m.pairTab = append(m.pairTab, nil)
	}
	for len(m.pairTab[a]) <= b {
		m.pairTab[a] = append(m.pairTab[a], nil)
	}
	row := m.pairTab[a][b]
	if i < len(row) && row[i].set {
		return row[i], true
	}
	x, known := r.pair(v, j.Workload, q.Workload, sh)
	for len(row) <= i {
		row = append(row, pairVal{})
	}
	row[i] = pairVal{x, known, true}
	m.pairTab[a][b] = row
	return row[i], true
}
