package synth

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/model"
)

func tiny(seed uint64) Options {
	c := model.DefaultCatalogueOptions
	c.Jobs, c.Seed = 12, seed
	return Options{CatalogueOptions: c}
}

// TestWriteValidateFit writes a tiny catalogue, opens it as a dataset
// (which validates every table and the pairs against the solo table),
// checks that the loaded pairs are the drawn ones and fits the standard
// models on it.
func TestWriteValidateFit(t *testing.T) {
	o := tiny(3)
	c, err := Draw(o)
	ds := writeOpen(t, c, err)
	if ds.Solo == nil || ds.Pairs == nil || ds.Runs != nil || ds.SamplesPath != "" {
		t.Fatalf("want solo and pairs only, got %+v", ds)
	}
	if len(ds.Workloads) != 12 {
		t.Errorf("workloads.json lists %d workloads, want 12", len(ds.Workloads))
	}
	if got := len(ds.Solo.Rows); got != 12 {
		t.Errorf("solo rows: %d, want 12", got)
	}
	want, err := model.Catalogue(o.CatalogueOptions)
	if err != nil {
		t.Fatal(err)
	}
	d, err := model.DataOf(ds)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) > 0 {
		t.Errorf("features warned: %q", d.Warnings)
	}
	if len(d.Obs) != len(want.Obs) || len(d.Obs) != 12*11 {
		t.Fatalf("loaded %d pairs, drew %d (want %d)", len(d.Obs), len(want.Obs), 12*11)
	}
	type key struct{ a, b string }
	drawn := map[key]float64{}
	for _, ob := range want.Obs {
		drawn[key{want.Space.Jobs[ob.A], want.Space.Jobs[ob.B]}] = ob.Y
	}
	for _, ob := range d.Obs {
		k := key{d.Space.Jobs[ob.A], d.Space.Jobs[ob.B]}
		if y, ok := drawn[k]; !ok || y != ob.Y {
			t.Fatalf("pair %v: loaded %v, drew %v (%v)", k, ob.Y, y, ok)
		}
	}
	// The latent features come back as the same numbers.
	for _, name := range []string{"u1", "v3"} {
		i, j := column(want.Space, name), column(d.Space, name)
		if i < 0 || j < 0 {
			t.Fatalf("feature %s: drawn at %d, loaded at %d", name, i, j)
		}
		for w := range want.Space.Jobs {
			if want.Space.X[w][i] != d.Space.X[w][j] {
				t.Errorf("%s of %s: drew %v, loaded %v", name, want.Space.Jobs[w], want.Space.X[w][i], d.Space.X[w][j])
			}
		}
	}
	fits, err := model.FitAllWorkers(d, model.StandardNames(), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(fits) != len(model.StandardNames()) {
		t.Fatalf("%d fits", len(fits))
	}
	if f := c.NoiseFloor; math.Abs(f-0.02*math.Sqrt(2/math.Pi)) > 1e-15 {
		t.Errorf("noise floor %v", f)
	}
}

func column(sp *model.Space, name string) int {
	for i, f := range sp.Features {
		if f == name {
			return i
		}
	}
	return -1
}

// TestSameSeedSameBytes: two draws of one seed write byte-identical
// files, and another seed writes other files.
func TestSameSeedSameBytes(t *testing.T) {
	write := func(seed uint64) map[string][]byte {
		c, err := Draw(tiny(seed))
		return writtenFiles(t, c, err)
	}
	a, b, other := write(7), write(7), write(8)
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s: two writes of seed 7 differ", name)
		}
		if bytes.Equal(a[name], other[name]) {
			t.Errorf("%s: seeds 7 and 8 wrote the same bytes", name)
		}
	}
}

func TestDeviceType(t *testing.T) {
	o := tiny(1)
	o.DeviceType = "h100"
	c, err := Draw(o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Solo.Rows[0].DeviceType != "h100" || c.Pairs.Rows[0].DeviceType != "h100" {
		t.Errorf("device type not applied: %q %q", c.Solo.Rows[0].DeviceType, c.Pairs.Rows[0].DeviceType)
	}
	o.DeviceType = "a@2"
	if _, err := Draw(o); err == nil {
		t.Error("device type with '@' accepted")
	}
	o.DeviceType = ""
	o.Jobs = 1
	if _, err := Draw(o); err == nil {
		t.Error("one job accepted")
	}
}

// written writes c (drawn with err) into a fresh directory and returns it.
func written(t *testing.T, c *Catalogue, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "cat")
	if err := c.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeOpen writes c and opens the directory as a dataset, which
// validates every table and the pairs against the solo table.
func writeOpen(t *testing.T, c *Catalogue, err error) *datasets.Dataset {
	t.Helper()
	ds, err := datasets.Open(written(t, c, err))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// writtenFiles writes c and returns the bytes of each file written.
func writtenFiles(t *testing.T, c *Catalogue, err error) map[string][]byte {
	t.Helper()
	dir := written(t, c, err)
	out := map[string][]byte{}
	for _, name := range []string{"solo.arrow", "pairs.arrow", "workloads.json"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	return out
}
