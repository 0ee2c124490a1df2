// Package lp solves small dense linear programs of the form
//
//	maximize c·x  subject to  A x <= b,  x >= 0,  with b >= 0,
//
// by the primal simplex method on a dense tableau, each pivot updating the
// other rows at the pivot row's nonzero entries only (the allocations'
// tableaux stay mostly zeros). With b >= 0 the origin is feasible, so no
// first phase is needed; every program the simulator's peers solve
// (max-min fair shares of GPU types, with or without pairs) has that
// form. It is written for tens to a few hundred rows and up to a few
// thousand columns, the size of an allocation over job classes; it is not
// a general-purpose solver.
//
// Pivoting: the entering column is the one of largest reduced gain
// (Dantzig's rule) while the objective rises; after a run of degenerate
// pivots (no rise) it switches to Bland's rule, which cannot cycle, and
// back once the objective rises again. Ties in the ratio test go to the
// lowest row, so a solve is deterministic.
package lp

import (
	"errors"
	"fmt"
	"math"
)

// Problem is a program in the form above. A is row-major: A[i] is row i
// and has len(C) entries. The solver does not change it.
type Problem struct {
	C []float64
	A [][]float64
	B []float64
}

// Solution is an optimal vertex.
type Solution struct {
	X         []float64
	Objective float64
	Pivots    int
}

// Errors of Solve.
var (
	ErrUnbounded  = errors.New("lp: unbounded")
	ErrIterations = errors.New("lp: iteration limit reached")
)

// eps is the tolerance below which a reduced gain or pivot element counts
// as zero: the programs' coefficients are normalized throughputs and
// GPU counts, of order 1e-3 to 1e3.
const eps = 1e-9

// Solve returns an optimal vertex of p, or an error naming what is wrong
// with p (shapes, a negative or non-finite b) or why none was found.
func Solve(p Problem) (Solution, error) {
	m, n := len(p.A), len(p.C)
	if len(p.B) != m {
		return Solution{}, fmt.Errorf("lp: %d rows but %d right-hand sides", m, len(p.B))
	}
	for i, row := range p.A {
		if len(row) != n {
			return Solution{}, fmt.Errorf("lp: row %d has %d entries, want %d", i, len(row), n)
		}
		if !(p.B[i] >= 0) || math.IsInf(p.B[i], 0) {
			return Solution{}, fmt.Errorf("lp: b[%d] = %v: want a finite value >= 0 (the origin must be feasible)", i, p.B[i])
		}
	}
	// The tableau: m rows of [A | I | b], then the objective row of
	// reduced costs -c (a column may enter while its entry is < 0).
	w := n + m + 1
	t := make([]float64, (m+1)*w)
	for i, row := range p.A {
		copy(t[i*w:], row)
		t[i*w+n+i] = 1
		t[i*w+w-1] = p.B[i]
	}
	obj := t[m*w:]
	for j, c := range p.C {
		obj[j] = -c
	}
	basis := make([]int, m)
	for i := range basis {
		basis[i] = n + i
	}
	maxPivots := 50 * (m + n + 10)
	var nz []int32 // pivot's buffer
	bland := false
	stalled := 0
	pivots := 0
	for ; ; pivots++ {
		if pivots >= maxPivots {
			return Solution{}, ErrIterations
		}
		enter := -1
		if bland {
			for j := 0; j < n+m; j++ {
				if obj[j] < -eps {
					enter = j
					break
				}
			}
		} else {
			best := -eps
			for j := 0; j < n+m; j++ {
				if obj[j] < best {
					best, enter = obj[j], j
				}
			}
		}
		if enter < 0 {
			break
		}
		leave := -1
		var ratio float64
		for i := 0; i < m; i++ {
			a := t[i*w+enter]
			if a <= eps {
				continue
			}
			r := t[i*w+w-1] / a
			if leave < 0 || r < ratio-eps || (bland && r <= ratio+eps && basis[i] < basis[leave]) {
				leave, ratio = i, r
			}
		}
		if leave < 0 {
			return Solution{}, ErrUnbounded
		}
		if ratio <= eps {
			stalled++
			if stalled > m {
				bland = true
			}
		} else {
			stalled, bland = 0, false
		}
		nz = pivot(t, w, m, leave, enter, nz)
		basis[leave] = enter
	}
	x := make([]float64, n)
	for i, j := range basis {
		if j < n {
			x[j] = max(0, t[i*w+w-1])
		}
	}
	z := 0.0
	for j, c := range p.C {
		z += c * x[j]
	}
	return Solution{X: x, Objective: z, Pivots: pivots}, nil
}

// pivot makes column e a unit column with its 1 in row r. The other rows
// take multiples of row r's nonzero entries only, listed once in nz (a
// buffer returned for the next pivot): an allocation's tableau stays
// mostly zeros, and walking every column of every row for them was most
// of a solve.
func pivot(t []float64, w, m, r, e int, nz []int32) []int32 {
	pr := t[r*w : (r+1)*w]
	inv := 1 / pr[e]
	nz = nz[:0]
	for j := range pr {
		pr[j] *= inv
		if pr[j] != 0 {
			nz = append(nz, int32(j))
		}
	}
	pr[e] = 1
	for i := 0; i <= m; i++ {
		if i == r {
			continue
		}
		row := t[i*w : (i+1)*w]
		f := row[e]
		if f == 0 {
			continue
		}
		for _, j := range nz {
			row[j] -= f * pr[j]
		}
		row[e] = 0
	}
	return nz
}
