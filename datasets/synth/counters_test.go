package synth

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/coloc-dev/coloc/model"
)

// TestCountersDataset: the counters kind writes a dataset that opens and
// validates, with every ordered pair (self pairs included) on every
// device type, the counters as solo features, values that follow the
// rule (without noise: at most the 0.97 of sharing, below it only when a
// resource saturates), and models that fit on it.
func TestCountersDataset(t *testing.T) {
	o := DefaultCounterOptions
	o.Jobs, o.Noise, o.Devices = 10, 0, []string{"rtx3090", "a100-80gb", "h200"}
	c, err := DrawCounters(o)
	ds := writeOpen(t, c, err)
	if got, want := len(ds.Pairs.Rows), 3*10*10; got != want {
		t.Fatalf("%d pairs, want %d (every ordered pair with self pairs, 3 device types)", got, want)
	}
	if got := len(ds.Solo.Rows); got != 30 {
		t.Fatalf("%d solo rows, want 30", got)
	}
	var names []string
	for _, f := range ds.Solo.Features {
		names = append(names, f.Name+" "+f.Unit)
	}
	if len(names) != 2 || names[0] != "sm_util %" || names[1] != "mem_bw_util %" {
		t.Errorf("solo features %q, want sm_util and mem_bw_util in %%", names)
	}
	self, saturated, free := 0, 0, 0
	for _, p := range ds.Pairs.Rows {
		if p.Workload == p.Partner {
			self++
		}
		switch {
		case p.Normalized > 0.97+1e-12 || p.Normalized < 0.05:
			t.Fatalf("%s|%s on %s: %v outside [0.05, 0.97] without noise", p.Workload, p.Partner, p.DeviceType, p.Normalized)
		case p.Normalized < 0.97-1e-12:
			saturated++
		default:
			free++
		}
		if math.Abs(p.Colocated-p.Normalized*p.Solo) > 1e-9*p.Solo {
			t.Fatalf("%s|%s: co-located %v is not normalized x solo", p.Workload, p.Partner, p.Colocated)
		}
	}
	if self != 30 || saturated == 0 || free == 0 {
		t.Errorf("self pairs %d (want 30), saturated %d, unsaturated %d: want both kinds", self, saturated, free)
	}
	d, err := model.DataOf(ds)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.FitAllWorkers(d, []string{"bias", "iasp", "gbt"}, 1, 1); err != nil {
		t.Fatal(err)
	}
}

// TestCountersSameBytesAndPartners: one seed writes the same bytes, another
// seed other bytes; --partners measures fewer pairs, always both orders.
func TestCountersSameBytesAndPartners(t *testing.T) {
	write := func(o CounterOptions) []byte {
		c, err := DrawCounters(o)
		files := writtenFiles(t, c, err)
		return bytes.Join([][]byte{files["solo.arrow"], files["pairs.arrow"], files["workloads.json"]}, nil)
	}
	o := DefaultCounterOptions
	o.Jobs = 8
	a, b := write(o), write(o)
	o.Seed = 2
	if !bytes.Equal(a, b) || bytes.Equal(a, write(o)) {
		t.Error("same seed wrote different bytes, or another seed the same")
	}
	o.Jobs, o.Partners = 30, 5
	c, err := DrawCounters(o)
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ a, b, d string }
	have := map[key]bool{}
	for _, p := range c.Pairs.Rows {
		have[key{p.Workload, p.Partner, p.DeviceType}] = true
	}
	if n := len(c.Pairs.Rows); n >= 2*30*30/2 || n == 0 {
		t.Errorf("%d pairs with 5 partners of 30 workloads on 2 device types", n)
	}
	for k := range have {
		if !have[key{k.b, k.a, k.d}] {
			t.Fatalf("%s|%s on %s measured without its reverse", k.a, k.b, k.d)
		}
	}
	for _, bad := range [][]string{nil, {"a@2"}, {"v100", "v100"}, {" v100"}} {
		o := DefaultCounterOptions
		o.Devices = bad
		if _, err := DrawCounters(o); err == nil {
			t.Errorf("devices %q accepted", bad)
		}
	}
}

// TestShippedCountersDataset: datasets/reference/counters is what the
// default options draw, every file byte for byte (tables with their
// checksums: the writer's output is deterministic).
func TestShippedCountersDataset(t *testing.T) {
	c, err := DrawCounters(DefaultCounterOptions)
	drawn := writtenFiles(t, c, err)
	for name, want := range drawn {
		path := filepath.Join("..", "reference", "counters", name)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("datasets/reference/counters/%s is not what `coloc datasets synth --kind counters` draws: redraw it", name)
		}
	}
}
