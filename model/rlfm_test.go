package model

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// catalogueSplit draws a catalogue and observes a share of its pairs.
func catalogueSplit(t *testing.T, co CatalogueOptions, share float64) (*Data, []Obs, []Obs) {
	t.Helper()
	d, err := Catalogue(co)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(co.Seed, 77))
	var train, test []Obs
	for _, o := range d.Obs {
		if r.Float64() < share {
			train = append(train, o)
		} else {
			test = append(test, o)
		}
	}
	return d, train, test
}

// With few pairs per workload the factors pmf estimates are mostly noise,
// while rlfm draws them towards what the features predict: on a planted
// low-rank catalogue whose features reveal the factors up to noise, rlfm
// must be far closer to the noise floor than pmf.
func TestRLFMUsesFeaturesAtFewPairs(t *testing.T) {
	co := DefaultCatalogueOptions
	co.Jobs, co.Partners = 80, 30
	d, train, test := catalogueSplit(t, co, 0.3) // about 9 training pairs per workload
	pmf := fitMAE(t, "pmf", d.Space, train, test) / co.NoiseFloor()
	rlfm := fitMAE(t, "rlfm", d.Space, train, test) / co.NoiseFloor()
	t.Logf("MAE over the floor: rlfm %.3f, pmf %.3f", rlfm, pmf)
	if rlfm > 2 || rlfm > 0.6*pmf {
		t.Errorf("rlfm %.3f times the floor, pmf %.3f: want rlfm below 2 and below 0.6 x pmf", rlfm, pmf)
	}
}

// A workload seen in no pair is predicted from its features: far better
// than the slot mean pmf falls back to.
func TestRLFMPredictsUnseenJobsFromFeatures(t *testing.T) {
	co := DefaultCatalogueOptions
	co.Jobs = 60
	d, err := Catalogue(co)
	if err != nil {
		t.Fatal(err)
	}
	unseen := func(o Obs) bool { return o.A < 10 || o.B < 10 }
	var train, test []Obs
	for _, o := range d.Obs {
		if unseen(o) {
			test = append(test, o)
		} else {
			train = append(train, o)
		}
	}
	pmf := fitMAE(t, "pmf", d.Space, train, test)
	rlfm := fitMAE(t, "rlfm", d.Space, train, test)
	t.Logf("pairs of unseen workloads, MAE: rlfm %.4f, pmf %.4f", rlfm, pmf)
	if rlfm > 0.6*pmf {
		t.Errorf("rlfm %.4f on unseen workloads, want below 0.6 x pmf's %.4f", rlfm, pmf)
	}
}

// Without informative features (the synthetic space's features are
// unrelated to the interaction) rlfm is still a factorisation: it recovers
// a latent low-rank structure as pmf does.
func TestRLFMRecoversLowRankWithoutFeatures(t *testing.T) {
	sp, train, test := lowRankPairs(t)
	bias := fitMAE(t, "bias", sp, train, test)
	pmf := fitMAE(t, "pmf", sp, train, test)
	got := fitMAE(t, "rlfm", sp, train, test)
	t.Logf("MAE: rlfm %.4f, pmf %.4f, bias %.4f", got, pmf, bias)
	if got > 0.3*bias {
		t.Errorf("rlfm: MAE %.4f, want below 0.3 x bias's %.4f", got, bias)
	}
}

// upperInverseGram inverts the factored matrix: against gonum's inverse.
func TestUpperInverseGram(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{1, 3, 6} {
		a := make([]float64, k*k)
		full := mat.NewDense(k, k, nil)
		for n := 0; n < 2*k; n++ {
			x := make([]float64, k)
			for i := range x {
				x[i] = r.NormFloat64()
			}
			for i := 0; i < k; i++ {
				for j := 0; j < k; j++ {
					full.Set(i, j, full.At(i, j)+x[i]*x[j])
				}
			}
		}
		for i := 0; i < k; i++ {
			full.Set(i, i, full.At(i, i)+0.1)
			for j := i; j < k; j++ {
				a[i*k+j] = full.At(i, j)
			}
		}
		var want mat.Dense
		if err := want.Inverse(full); err != nil {
			t.Fatal(err)
		}
		if !choleskySolve(a, make([]float64, k), k, make([]float64, k)) {
			t.Fatal("not positive definite")
		}
		got := make([]float64, k*k)
		upperInverseGram(a, k, 2, got)
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				if w := 2 * want.At(i, j); math.Abs(got[i*k+j]-w) > 1e-9*(1+math.Abs(w)) {
					t.Fatalf("k=%d: [%d,%d] = %v, want %v", k, i, j, got[i*k+j], w)
				}
			}
		}
	}
}

// predVar is the variance of α + β + uᵀv: against a Monte Carlo estimate
// from draws of the two posteriors.
func TestPredVar(t *testing.T) {
	const k = 2
	u := []float64{0.5, -1, 0.3}
	v := []float64{1.5, 0.2, -0.4}
	// covariances as L Lᵀ
	lu := [][]float64{{0.3, 0, 0}, {0.1, 0.2, 0}, {-0.1, 0.05, 0.25}}
	lv := [][]float64{{0.2, 0, 0}, {-0.15, 0.3, 0}, {0.1, 0.1, 0.1}}
	cov := func(l [][]float64) []float64 {
		c := make([]float64, 9)
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				for p := 0; p < 3; p++ {
					c[i*3+j] += l[i][p] * l[j][p]
				}
			}
		}
		return c
	}
	draw := func(r *rand.Rand, m []float64, l [][]float64) []float64 {
		e := []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		x := append([]float64(nil), m...)
		for i := range x {
			for p := range e {
				x[i] += l[i][p] * e[p]
			}
		}
		return x
	}
	got := predVar(u, cov(lu), v, cov(lv), k)
	r := rand.New(rand.NewPCG(5, 6))
	const n = 400000
	var s, ss float64
	for i := 0; i < n; i++ {
		x, y := draw(r, u, lu), draw(r, v, lv)
		p := x[2] + y[2] + x[0]*y[0] + x[1]*y[1]
		s += p
		ss += p * p
	}
	want := ss/n - (s/n)*(s/n)
	if math.Abs(got-want) > 0.01*want {
		t.Errorf("predVar %v, Monte Carlo %v", got, want)
	}
}

// A model file whose factors do not fit its space is refused on load
// instead of panicking in Predict.
func TestRLFMDamagedFileRefused(t *testing.T) {
	sp, raw := synthetic(t, 10, 4)
	train, _ := allPairs(10, 0.6, 5, func(a, b int) float64 { return 0.8 + 0.05*raw[a][0] - 0.04*raw[b][1] })
	tr, err := NewTrain(sp, train, 1)
	if err != nil {
		t.Fatal(err)
	}
	m := newRLFM(defaultRLFMOptions)
	if err := m.Fit(tr); err != nil {
		t.Fatal(err)
	}
	m.U[3] = m.U[3][:1]
	b, err := encode(m, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decode(b, "rlfm.json"); err == nil || !strings.Contains(err.Error(), "a factor has 1 entries") {
		t.Fatalf("a short factor was not refused: %v", err)
	}
}
