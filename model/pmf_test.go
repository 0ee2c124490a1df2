package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// choleskySolve agrees with gonum's Cholesky to rounding on ridge systems
// of pmf's shape, and refuses a matrix that is not positive definite.
func TestCholeskySolveMatchesGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{1, 2, 5, 10} {
		for trial := 0; trial < 20; trial++ {
			a := make([]float64, k*k)
			sym := mat.NewSymDense(k, nil)
			b := make([]float64, k)
			for n := 0; n < 3*k; n++ {
				x := make([]float64, k)
				for i := range x {
					x[i] = r.NormFloat64()
				}
				for i := 0; i < k; i++ {
					for j := i; j < k; j++ {
						a[i*k+j] += x[i] * x[j]
					}
				}
			}
			for i := 0; i < k; i++ {
				a[i*k+i] += 0.01
				b[i] = r.NormFloat64()
				for j := i; j < k; j++ {
					sym.SetSym(i, j, a[i*k+j])
				}
			}
			var chol mat.Cholesky
			if !chol.Factorize(sym) {
				t.Fatal("gonum refused a positive definite matrix")
			}
			want := mat.NewVecDense(k, nil)
			if err := chol.SolveVecTo(want, mat.NewVecDense(k, append([]float64(nil), b...))); err != nil {
				t.Fatal(err)
			}
			got := make([]float64, k)
			if !choleskySolve(a, b, k, got) {
				t.Fatalf("k=%d: refused a positive definite matrix", k)
			}
			for i := range got {
				if d := math.Abs(got[i] - want.AtVec(i)); d > 1e-9*(1+math.Abs(want.AtVec(i))) {
					t.Fatalf("k=%d: x[%d] = %v, gonum %v", k, i, got[i], want.AtVec(i))
				}
			}
		}
	}
	// [[1, 2], [2, 1]] has eigenvalues 3 and -1
	out := []float64{7, 7}
	if choleskySolve([]float64{1, 2, 0, 1}, []float64{1, 1}, 2, out) || out[0] != 7 {
		t.Fatalf("an indefinite matrix was solved: %v", out)
	}
}
