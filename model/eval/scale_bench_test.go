package eval

import (
	"fmt"
	"math"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/coloc-dev/coloc/model"
)

// benchCatalogues are the synthetic catalogues of the scale benchmarks:
// every pair measured (partners=all), or about 50 partners per workload.
var benchCatalogues = []struct{ jobs, partners int }{
	{100, 0}, {400, 0}, {1000, 0}, {100, 50}, {400, 50}, {1000, 50},
}

// BenchmarkEvalCatalogue runs the sweep `coloc eval --protocol pairs
// --fractions 0.2 --seeds 1` over every model on synthetic catalogues.
// COLOC_BENCH_PROGRESS=1 prints each model's time; COLOC_BENCH_MODELS
// (comma-separated) limits the models. Besides the time it reports each
// model's MAE over the noise floor (1: as good as knowing the noise-free
// value of every pair) and, as bayes-mae/floor, that of bayesReference on
// the same split: what a model that knows how the catalogue was drawn
// achieves with the same pairs.
func BenchmarkEvalCatalogue(b *testing.B) {
	for _, c := range benchCatalogues {
		name := fmt.Sprintf("jobs=%d/partners=%d", c.jobs, c.partners)
		if c.partners == 0 {
			name = fmt.Sprintf("jobs=%d/partners=all", c.jobs)
		}
		b.Run(name, func(b *testing.B) {
			co := model.DefaultCatalogueOptions
			co.Jobs, co.Partners = c.jobs, c.partners
			d, err := model.Catalogue(co)
			if err != nil {
				b.Fatal(err)
			}
			o := Options{Protocols: []string{"pairs"}, Fractions: []float64{0.2}, Seeds: 1, Models: model.Names(), Workers: 1}
			if m := os.Getenv("COLOC_BENCH_MODELS"); m != "" {
				o.Models = strings.Split(m, ",")
			}
			if os.Getenv("COLOC_BENCH_PROGRESS") != "" {
				o.Progress = os.Stderr
			}
			b.ResetTimer()
			cpu0 := processCPU()
			var res *Result
			for i := 0; i < b.N; i++ {
				if res, err = Run(d, o); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			for _, s := range res.Summaries {
				b.ReportMetric(s.MAEMedian/co.NoiseFloor(), s.Model+"-mae/floor")
			}
			b.ReportMetric((processCPU()-cpu0)/float64(b.N), "cpu-s/op")
			tk := split("pairs", d.Obs, nil, "gpu", 0.2, 1, len(d.Space.Jobs))[0]
			b.ReportMetric(bayesReference(co, d.Space, tk.train, tk.test)/co.NoiseFloor(), "bayes-mae/floor")
			b.ReportMetric(float64(len(d.Obs)), "pairs")
		})
	}
}

// processCPU is the CPU time (user + system) this process has used, in
// seconds: on a shared machine it moves far less with the load than the
// wall time does.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// bayesReference is the MAE on test of the maximum a posteriori estimate
// of the catalogue's factors from the training pairs, for a model that
// knows how Catalogue drew them: y = 0.7 + c·u_A·v_B + noise, c =
// 0.1/sqrt(Rank), and a factor given its feature column f is normal with
// mean f/(1+FeatureNoise²) and variance FeatureNoise²/(1+FeatureNoise²).
// It alternates exact solves of the victim factors given the aggressor
// factors and back (30 rounds). No model that is not told the generator
// should beat it by much: it shows how close to the noise floor the
// training pairs allow, which at few pairs per workload is well above 1.
func bayesReference(co model.CatalogueOptions, sp *model.Space, train, test []model.Obs) float64 {
	n, k := len(sp.Jobs), co.Rank
	c := 0.1 / math.Sqrt(float64(k))
	fn2 := co.FeatureNoise * co.FeatureNoise
	col := map[string]int{}
	for i, f := range sp.Features {
		col[f] = i
	}
	prior := func(role string) [][]float64 {
		m := make([][]float64, n)
		for j := range m {
			m[j] = make([]float64, k)
			for i := range m[j] {
				m[j][i] = sp.Row(j, 0)[col[fmt.Sprintf("%s%d", role, i+1)]] / (1 + fn2)
			}
		}
		return m
	}
	pu, pv := prior("u"), prior("v")
	u, v := prior("u"), prior("v")
	if fn2 > 0 && co.Noise > 0 {
		pvar, s2 := fn2/(1+fn2), co.Noise*co.Noise
		// solve sets self[j] to the posterior mean given other, from the
		// pairs where j plays self's role.
		solve := func(self, pm, other [][]float64, victim bool) {
			P := make([][]float64, n*k)
			r := make([][]float64, n)
			for j := 0; j < n; j++ {
				r[j] = make([]float64, k)
				for a := 0; a < k; a++ {
					P[j*k+a] = make([]float64, k)
					P[j*k+a][a] = 1 / pvar
					r[j][a] = pm[j][a] / pvar
				}
			}
			for _, o := range train {
				j, x := o.A, o.B
				if !victim {
					j, x = o.B, o.A
				}
				for a := 0; a < k; a++ {
					for b := 0; b < k; b++ {
						P[j*k+a][b] += c * c * other[x][a] * other[x][b] / s2
					}
					r[j][a] += c * other[x][a] * (o.Y - 0.7) / s2
				}
			}
			for j := 0; j < n; j++ {
				self[j] = solveSmall(P[j*k:(j+1)*k], r[j])
			}
		}
		for round := 0; round < 30; round++ {
			solve(u, pu, v, true)
			solve(v, pv, u, false)
		}
	}
	sum := 0.0
	for _, o := range test {
		p := 0.7
		for a := 0; a < k; a++ {
			p += c * u[o.A][a] * v[o.B][a]
		}
		sum += math.Abs(p - o.Y)
	}
	return sum / float64(len(test))
}

// solveSmall solves the symmetric positive definite system A x = b by
// Gaussian elimination (A is small: Rank × Rank), overwriting A.
func solveSmall(A [][]float64, b []float64) []float64 {
	k := len(b)
	x := append([]float64(nil), b...)
	for i := 0; i < k; i++ {
		for r := i + 1; r < k; r++ {
			f := A[r][i] / A[i][i]
			for cc := i; cc < k; cc++ {
				A[r][cc] -= f * A[i][cc]
			}
			x[r] -= f * x[i]
		}
	}
	for i := k - 1; i >= 0; i-- {
		for cc := i + 1; cc < k; cc++ {
			x[i] -= A[i][cc] * x[cc]
		}
		x[i] /= A[i][i]
	}
	return x
}

// The reference of the scale benchmarks comes near the noise floor when
// each workload has many training pairs, and falls back to the features
// (far from the floor) with none.
func TestBayesReference(t *testing.T) {
	co := model.DefaultCatalogueOptions
	co.Jobs = 100
	d, err := model.Catalogue(co)
	if err != nil {
		t.Fatal(err)
	}
	tk := split("pairs", d.Obs, nil, "gpu", 0.8, 1, co.Jobs)[0]
	if r := bayesReference(co, d.Space, tk.train, tk.test) / co.NoiseFloor(); r < 0.95 || r > 1.08 {
		t.Errorf("with %d training pairs the reference is %.3f times the floor, want 0.95-1.08", len(tk.train), r)
	}
	if r := bayesReference(co, d.Space, nil, tk.test) / co.NoiseFloor(); r < 1.5 {
		t.Errorf("from the features alone the reference is %.3f times the floor, want above 1.5", r)
	}
}
