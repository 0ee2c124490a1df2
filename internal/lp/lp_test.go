package lp

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	gonumlp "gonum.org/v1/gonum/optimize/convex/lp"
)

func TestSolveSmall(t *testing.T) {
	// maximize 3x + 5y s.t. x <= 4, 2y <= 12, 3x + 2y <= 18: x=2, y=6, z=36.
	s, err := Solve(Problem{
		C: []float64{3, 5},
		A: [][]float64{{1, 0}, {0, 2}, {3, 2}},
		B: []float64{4, 12, 18},
	})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.Objective-36) > 1e-9 || math.Abs(s.X[0]-2) > 1e-9 || math.Abs(s.X[1]-6) > 1e-9 {
		t.Fatalf("got x=%v z=%v, want x=[2 6] z=36", s.X, s.Objective)
	}
}

func TestSolveMaxMin(t *testing.T) {
	// Two jobs, one GPU type of 1 GPU: each gets half the time; the
	// max-min value is 0.5 (variables t, x1, x2).
	s, err := Solve(Problem{
		C: []float64{1, 0, 0},
		A: [][]float64{{1, -1, 0}, {1, 0, -1}, {0, 1, 1}},
		B: []float64{0, 0, 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.Objective-0.5) > 1e-9 {
		t.Fatalf("max-min value %v, want 0.5", s.Objective)
	}
}

func TestSolveErrors(t *testing.T) {
	if _, err := Solve(Problem{C: []float64{1}, A: [][]float64{{-1}}, B: []float64{1}}); !errors.Is(err, ErrUnbounded) {
		t.Errorf("unbounded program: err %v, want ErrUnbounded", err)
	}
	if _, err := Solve(Problem{C: []float64{1}, A: [][]float64{{1}}, B: []float64{-1}}); err == nil {
		t.Error("negative b accepted")
	}
	if _, err := Solve(Problem{C: []float64{1, 2}, A: [][]float64{{1}}, B: []float64{1}}); err == nil {
		t.Error("short row accepted")
	}
	if _, err := Solve(Problem{C: []float64{1}, A: [][]float64{{1}}, B: []float64{math.Inf(1)}}); err == nil {
		t.Error("infinite b accepted")
	}
}

// TestSolveAgreesWithGonum compares the optimum with gonum's simplex on
// random programs, degenerate ones included (rows with b = 0, as the
// max-min programs have), and sparse ones (pivot skips zeros).
func TestSolveAgreesWithGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 200; k++ {
		m, n := 1+r.IntN(8), 1+r.IntN(8)
		p := Problem{C: make([]float64, n), A: make([][]float64, m), B: make([]float64, m)}
		for j := range p.C {
			p.C[j] = r.Float64()*4 - 1
		}
		for i := range p.A {
			p.A[i] = make([]float64, n)
			for j := range p.A[i] {
				p.A[i][j] = r.Float64()*4 - 1
				if k%2 == 1 && r.IntN(5) < 3 {
					p.A[i][j] = 0 // every other program sparse, as allocations are
				}
			}
			if r.IntN(3) > 0 {
				p.B[i] = r.Float64() * 5
			}
		}
		// A box keeps every program bounded.
		for j := 0; j < n; j++ {
			row := make([]float64, n)
			row[j] = 1
			p.A = append(p.A, row)
			p.B = append(p.B, 10)
		}
		got, err := Solve(p)
		if err != nil {
			t.Fatalf("program %d: %v", k, err)
		}
		want := gonumOptimum(t, p)
		if math.Abs(got.Objective-want) > 1e-7*(1+math.Abs(want)) {
			t.Fatalf("program %d: objective %v, gonum %v", k, got.Objective, want)
		}
		for i, row := range p.A {
			lhs := 0.0
			for j, a := range row {
				lhs += a * got.X[j]
			}
			if lhs > p.B[i]+1e-7 {
				t.Fatalf("program %d: row %d: %v > %v", k, i, lhs, p.B[i])
			}
		}
	}
}

// gonumOptimum solves p with gonum's simplex (standard form with slacks).
func gonumOptimum(t *testing.T, p Problem) float64 {
	m, n := len(p.A), len(p.C)
	A := mat.NewDense(m, n+m, nil)
	c := make([]float64, n+m)
	for j, v := range p.C {
		c[j] = -v
	}
	for i, row := range p.A {
		for j, v := range row {
			A.Set(i, j, v)
		}
		A.Set(i, n+i, 1)
	}
	z, _, err := gonumlp.Simplex(c, A, p.B, 1e-10, nil)
	if err != nil {
		t.Fatalf("gonum: %v", err)
	}
	return -z
}

func BenchmarkSolveMaxMin(b *testing.B) {
	// 80 job classes on 3 GPU types: the size of a max-min allocation
	// over Gavel's job types.
	r := rand.New(rand.NewPCG(3, 4))
	const C, T = 80, 3
	n := 1 + C*T
	p := Problem{C: make([]float64, n)}
	p.C[0] = 1
	for c := 0; c < C; c++ {
		row := make([]float64, n)
		row[0] = 1
		for k := 0; k < T; k++ {
			row[1+c*T+k] = -(0.2 + r.Float64())
		}
		p.A = append(p.A, row)
		p.B = append(p.B, 0)
		row = make([]float64, n)
		for k := 0; k < T; k++ {
			row[1+c*T+k] = 1
		}
		p.A = append(p.A, row)
		p.B = append(p.B, 1)
	}
	for k := 0; k < T; k++ {
		row := make([]float64, n)
		for c := 0; c < C; c++ {
			row[1+c*T+k] = float64(1 + r.IntN(4))
		}
		p.A = append(p.A, row)
		p.B = append(p.B, 16)
	}
	for b.Loop() {
		if _, err := Solve(p); err != nil {
			b.Fatal(err)
		}
	}
}
