package eval

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/model"
)

// The active protocol gives the same curve points, bit for bit, on every
// run with the same seed, for every strategy: the order of the revealed
// pairs (and so every floating-point sum over them) must not depend on map
// iteration order, which Go randomises per loop.
func TestActiveIsDeterministic(t *testing.T) {
	d, err := model.LoadData(gavel)
	if err != nil {
		t.Fatal(err)
	}
	o := ActiveOptions{Model: "bias", Devices: []string{"k80"}, Seeds: 1, Strategies: model.Strategies,
		Start: 0.05, Step: 0.05, Stop: 0.2, Reference: 0.9}
	var want string
	for run := 0; run < 3; run++ {
		res, err := RunActive(d, o)
		if err != nil {
			t.Fatal(err)
		}
		strats := map[string]bool{}
		var got string
		for _, p := range res.Points {
			strats[p.Strategy] = true
			got += fmt.Sprintf("%s %s %d %v %d %x\n", p.Strategy, p.Device, p.Seed, p.Fraction, p.Pairs, math.Float64bits(p.MAE))
		}
		if !strats[model.StrategyWidth] || len(strats) != len(model.Strategies) {
			t.Fatalf("run %d scored strategies %v, want all of %v", run, strats, model.Strategies)
		}
		if run == 0 {
			want = got
		} else if got != want {
			t.Fatalf("run %d differs from run 0:\n%s\nvs\n%s", run, got, want)
		}
	}
}

// pickNext returns the same picks with the same gains, bit for bit, however
// the map of revealed pairs iterates.
func TestPickNextIsDeterministic(t *testing.T) {
	d, err := model.LoadData(gavel)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Space.Slot("k80")
	if err != nil {
		t.Fatal(err)
	}
	pool := map[[3]int][]model.Obs{}
	for _, ob := range d.Obs {
		if ob.S == s {
			k := [3]int{min(ob.A, ob.B), max(ob.A, ob.B), s}
			pool[k] = append(pool[k], ob)
		}
	}
	// Reveal every third pair in key order: many pairs, so the sums over
	// them have many orders.
	revealed := map[[3]int]bool{}
	nj := len(d.Space.Jobs)
	i := 0
	for a := 0; a < nj; a++ {
		for b := a; b < nj; b++ {
			k := [3]int{a, b, s}
			if _, ok := pool[k]; ok {
				if i%3 == 0 {
					revealed[k] = true
				}
				i++
			}
		}
	}
	skip := skipSet(d.Space, s, pool, revealed)
	var want string
	for run := 0; run < 20; run++ {
		picks, err := pickNext(d, s, pool, revealed, skip, model.StrategyWidth, 10, 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(picks) != 10 {
			t.Fatalf("%d picks, want 10", len(picks))
		}
		var got string
		for _, c := range picks {
			got += fmt.Sprintf("%d %d %d %x\n", c.A, c.B, c.S, math.Float64bits(c.Gain))
		}
		if run == 0 {
			want = got
		} else if got != want {
			t.Fatalf("run %d differs from run 0:\n%s\nvs\n%s", run, got, want)
		}
	}
}

// The summary line says when width first comes within 1.1x of the
// all-pairs MAE, and says so in words when it never does.
func TestActiveWriteTextReached(t *testing.T) {
	r := &ActiveResult{Model: "iasp", Reference: map[string]float64{"k80": 0.02, "v100": 0.02}}
	for _, dev := range []string{"k80", "v100"} {
		for i, f := range []float64{0.1, 0.2, 0.3} {
			mae := 0.05 - 0.01*float64(i) // 0.05, 0.04, 0.03
			if dev == "k80" && f == 0.3 {
				mae = 0.021
			}
			for _, st := range model.Strategies {
				r.Summaries = append(r.Summaries, CurveSummary{Strategy: st, Device: dev, Fraction: f, Seeds: 1, MAEMedian: mae})
			}
		}
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"width: first within 1.1x of all pairs at 0.30 of the pairs; at 0.20, 1.00x random's MAE",
		"width: not within 1.1x of all pairs by 0.30 of the pairs; at 0.20, 1.00x random's MAE",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no line %q in:\n%s", want, b.String())
		}
	}
}
