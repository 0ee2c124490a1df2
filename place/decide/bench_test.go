package decide

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkDecide times one full decision (no quiet-tick shortcut) on 48
// GPUs of three types with 400 jobs of 20 workloads, a third of them
// running, every pair shareable: the shape of a loaded Gavel cluster.
func BenchmarkDecide(b *testing.B) {
	r := rates{solo: map[string]map[string]float64{}, pair: map[[2]string]float64{}}
	rng := rand.New(rand.NewPCG(1, 2))
	var ws []string
	for i := range 20 {
		w := fmt.Sprintf("w%d", i)
		ws = append(ws, w)
		r.solo[w] = map[string]float64{"k80": 1, "p100": 1.5 + rng.Float64(), "v100": 2.5 + rng.Float64()}
	}
	for _, a := range ws {
		for _, q := range ws {
			r.pair[[2]string{a, q}] = 0.4 + 0.5*rng.Float64()
		}
	}
	var g []GPU
	for i, t := range []string{"k80", "p100", "v100"} {
		for k := range 16 {
			g = append(g, GPU{Node: i*4 + k/4, Type: t})
		}
	}
	c, err := New(r, Options{Round: 360, RestartPenalty: 30, MaxPerGPU: 2})
	if err != nil {
		b.Fatal(err)
	}
	learn(c, g, "w0", []float64{600, 3600, 36000, 900, 7200})
	st := &State{Now: 1e5, GPUs: g}
	for i := range 400 {
		j := Job{ID: i, Workload: ws[i%20], Arrival: float64(i), Degrees: []int{1}, Done: float64(rng.IntN(50000))}
		if i < 48 {
			j.GPUs = []int{i}
		}
		st.Jobs = append(st.Jobs, j)
	}
	b.ResetTimer()
	for range b.N {
		c.observed = true // a completion: no quiet-tick shortcut
		c.Decide(st)
	}
}
