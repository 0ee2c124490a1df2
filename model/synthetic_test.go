package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/coloc-dev/coloc/features"
)

// synthetic builds a space of n jobs on one device type ("gpu") whose
// three descriptor features are drawn from seed, and returns it with the
// raw feature values.
func synthetic(t testing.TB, n int, seed uint64) (*Space, [][]float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	set := &features.Set{Columns: []features.Column{
		{Name: "f1", Group: features.GroupDescriptor},
		{Name: "f2", Group: features.GroupDescriptor},
		{Name: "f3", Group: features.GroupDescriptor},
		{Name: "throughput", Unit: "samples/s", Group: features.GroupMeasured, Log: true},
	}}
	raw := make([][]float64, n)
	for j := 0; j < n; j++ {
		raw[j] = []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		v := append(append([]float64(nil), raw[j]...), 10+r.Float64())
		set.Rows = append(set.Rows, features.Row{Workload: fmt.Sprintf("job%02d", j), DeviceType: "gpu", Degree: 1, Values: v})
	}
	if err := set.Check(); err != nil {
		t.Fatal(err)
	}
	sp, err := NewSpace(set)
	if err != nil {
		t.Fatal(err)
	}
	return sp, raw
}

// allPairs returns every ordered pair with y = f(a, b), split into an
// observed share and the rest by seed.
func allPairs(n int, share float64, seed uint64, f func(a, b int) float64) (train, test []Obs) {
	r := rand.New(rand.NewPCG(seed, 2))
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			o := Obs{A: a, B: b, S: 0, Y: f(a, b)}
			if r.Float64() < share {
				train = append(train, o)
			} else {
				test = append(test, o)
			}
		}
	}
	return train, test
}

func fitMAE(t *testing.T, name string, sp *Space, train, test []Obs) float64 {
	t.Helper()
	m, err := New(name)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrain(sp, train, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Fit(tr); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return mae(m, test)
}

// Every model but the mean must recover an additive structure driven by
// the jobs' features: A's sensitivity from its f1, B's aggressiveness from
// its f2.
func TestModelsRecoverAdditiveStructure(t *testing.T) {
	const n = 20
	sp, raw := synthetic(t, n, 11)
	noise := rand.New(rand.NewPCG(5, 5))
	y := make(map[[2]int]float64)
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			y[[2]int{a, b}] = 0.7 + 0.08*raw[a][0] - 0.06*raw[b][1] + 0.005*noise.NormFloat64()
		}
	}
	train, test := allPairs(n, 0.5, 7, func(a, b int) float64 { return y[[2]int{a, b}] })
	base := fitMAE(t, "mean", sp, train, test)
	limits := map[string]float64{"bias": 0.35, "pmf": 0.6, "rlfm": 0.35, "knn": 0.6, "linear": 0.2, "tree": 0.7, "gbt": 0.6, "gbt-sums": 0.6, "forest": 0.7, "iapp": 0.5, "iasp": 0.35, "stack": 0.35, "committee": 0.35, "similarity": 0.8}
	for _, name := range Names() {
		if name == "mean" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			got := fitMAE(t, name, sp, train, test)
			t.Logf("%s: %.4f (mean %.4f)", name, got, base)
			if got > limits[name]*base {
				t.Errorf("%s: MAE %.4f, want below %.2f x the mean's %.4f", name, got, limits[name], base)
			}
		})
	}
}

// lowRankPairs draws a rank-2 interaction of 24 jobs that the synthetic
// space's features do not explain, split 60/40 into training and test pairs.
func lowRankPairs(t *testing.T) (*Space, []Obs, []Obs) {
	t.Helper()
	const n = 24
	sp, _ := synthetic(t, n, 12)
	r := rand.New(rand.NewPCG(9, 9))
	u, v := make([][2]float64, n), make([][2]float64, n)
	for j := range u {
		u[j] = [2]float64{r.NormFloat64(), r.NormFloat64()}
		v[j] = [2]float64{r.NormFloat64(), r.NormFloat64()}
	}
	f := func(a, b int) float64 { return 0.7 + 0.08*(u[a][0]*v[b][0]+u[a][1]*v[b][1]) }
	train, test := allPairs(n, 0.6, 8, f)
	return sp, train, test
}

// A latent low-rank interaction that no feature explains: the
// factorization models (pmf, iasp) must recover it; the bias model cannot.
func TestFactorModelsRecoverLowRank(t *testing.T) {
	sp, train, test := lowRankPairs(t)
	bias := fitMAE(t, "bias", sp, train, test)
	for _, name := range []string{"pmf", "iasp"} {
		if got := fitMAE(t, name, sp, train, test); got > 0.6*bias {
			t.Errorf("%s: MAE %.4f, want below 0.6 x bias's %.4f", name, got, bias)
		}
	}
}

// Two fits with one seed give the same bytes; the file reads back to the
// same predictions.
func TestDeterministicAndRoundTrip(t *testing.T) {
	sp, raw := synthetic(t, 12, 21)
	train, test := allPairs(12, 0.5, 3, func(a, b int) float64 { return 0.8 + 0.05*raw[a][0] - 0.05*raw[b][2] })
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			var enc [2][]byte
			var first Model
			for i := range enc {
				m, _ := New(name)
				tr, err := NewTrain(sp, train, 42)
				if err != nil {
					t.Fatal(err)
				}
				if err := m.Fit(tr); err != nil {
					t.Fatal(err)
				}
				if enc[i], err = encode(m, tr, nil); err != nil {
					t.Fatal(err)
				}
				first = m
			}
			if string(enc[0]) != string(enc[1]) {
				t.Fatalf("two fits with seed 42 encode differently")
			}
			l, err := decode(enc[0], name+".json")
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range test {
				if p, q := first.Predict(o.A, o.B, 0), l.Model.Predict(o.A, o.B, 0); p != q && !(math.IsNaN(p) && math.IsNaN(q)) {
					t.Fatalf("prediction %s|%s: %v before saving, %v after", sp.Jobs[o.A], sp.Jobs[o.B], p, q)
				}
			}
		})
	}
}
