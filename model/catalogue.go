package model

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/coloc-dev/coloc/features"
)

// CatalogueOptions describe a synthetic catalogue of workloads with a
// known interference structure, for measuring the models' speed and
// accuracy at sizes no shipped dataset has.
type CatalogueOptions struct {
	// Jobs is the number of workloads.
	Jobs int `json:"jobs"`
	// Partners is the expected number of partners each workload is
	// measured with (both orders of a pair are measured together); 0 or
	// at least Jobs-1: every pair.
	Partners int `json:"partners"`
	// Rank is the rank of the interaction matrix.
	Rank int `json:"rank"`
	// Noise is the standard deviation of the Gaussian measurement noise.
	Noise float64 `json:"noise"`
	// FeatureNoise is the standard deviation of the noise added to the
	// latent factors to make the workloads' descriptor features: 0 makes
	// the features reveal the factors exactly.
	FeatureNoise float64 `json:"feature_noise"`
	Seed         uint64  `json:"seed"`
}

// DefaultCatalogueOptions: every pair measured, a rank-3 interaction and a
// noise of 0.02 (a tenth of the spread of the interaction term), features
// that reveal the factors up to noise of 0.3 of their spread.
var DefaultCatalogueOptions = CatalogueOptions{Jobs: 100, Rank: 3, Noise: 0.02, FeatureNoise: 0.3, Seed: 1}

// NoiseFloor is the expected absolute error of a predictor that knows the
// noise-free value of every pair: the MAE no model can beat on average,
// σ·sqrt(2/π) for Gaussian noise of deviation σ.
func (o CatalogueOptions) NoiseFloor() float64 { return o.Noise * math.Sqrt(2/math.Pi) }

// Catalogue draws a synthetic catalogue from o.Seed. Workload j has a
// victim factor u_j and an aggressor factor v_j, both of o.Rank standard
// normal entries; the normalized throughput of A next to B on the one
// slot ("gpu") is
//
//	y = 0.7 + 0.1·(u_A·v_B)/sqrt(Rank) + Noise·ε,  ε ~ N(0, 1),
//
// floored at 0.05 (never reached in practice at the defaults: it is 6.5
// deviations of the interaction term away). The descriptor features of j
// are u_j and v_j plus N(0, FeatureNoise²) noise, and a solo throughput
// (log-scaled) unrelated to interference. A pair {A, B}, A ≠ B, is measured
// with probability Partners/(Jobs-1), both orders together.
func Catalogue(o CatalogueOptions) (*Data, error) {
	if o.Jobs < 2 || o.Rank < 1 || o.Noise < 0 || o.FeatureNoise < 0 || o.Partners < 0 {
		return nil, fmt.Errorf("catalogue: need at least 2 jobs, rank 1 and non-negative noise and partners (got %+v)", o)
	}
	r := rand.New(rand.NewPCG(o.Seed, 0xca7a))
	n, k := o.Jobs, o.Rank
	set := &features.Set{}
	for i := 0; i < k; i++ {
		set.Columns = append(set.Columns, features.Column{Name: fmt.Sprintf("u%d", i+1), Group: features.GroupDescriptor})
	}
	for i := 0; i < k; i++ {
		set.Columns = append(set.Columns, features.Column{Name: fmt.Sprintf("v%d", i+1), Group: features.GroupDescriptor})
	}
	set.Columns = append(set.Columns, features.Column{Name: "throughput", Unit: "samples/s", Group: features.GroupMeasured, Log: true})
	u, v := make([][]float64, n), make([][]float64, n)
	width := len(fmt.Sprint(n - 1))
	for j := 0; j < n; j++ {
		u[j], v[j] = make([]float64, k), make([]float64, k)
		vals := make([]float64, 0, 2*k+1)
		for i := range u[j] {
			u[j][i] = r.NormFloat64()
		}
		for i := range v[j] {
			v[j][i] = r.NormFloat64()
		}
		for _, x := range u[j] {
			vals = append(vals, x+o.FeatureNoise*r.NormFloat64())
		}
		for _, x := range v[j] {
			vals = append(vals, x+o.FeatureNoise*r.NormFloat64())
		}
		vals = append(vals, math.Pow(10, 1+2*r.Float64()))
		set.Rows = append(set.Rows, features.Row{Workload: fmt.Sprintf("w%0*d", width, j), DeviceType: "gpu", Degree: 1, Values: vals})
	}
	if err := set.Check(); err != nil {
		return nil, fmt.Errorf("catalogue: %w", err)
	}
	sp, err := NewSpace(set)
	if err != nil {
		return nil, fmt.Errorf("catalogue: %w", err)
	}
	p := 1.0
	if o.Partners > 0 && o.Partners < n-1 {
		p = float64(o.Partners) / float64(n-1)
	}
	y := func(a, b int) float64 {
		s := 0.0
		for i := 0; i < k; i++ {
			s += u[a][i] * v[b][i]
		}
		return max(0.05, 0.7+0.1*s/math.Sqrt(float64(k))+o.Noise*r.NormFloat64())
	}
	d := &Data{Space: sp}
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			if p < 1 && r.Float64() >= p {
				continue
			}
			d.Obs = append(d.Obs, Obs{A: a, B: b, Y: y(a, b)}, Obs{A: b, B: a, Y: y(b, a)})
		}
	}
	return d, nil
}
