package eval

import (
	"fmt"
	"testing"

	"github.com/coloc-dev/coloc/model"
)

// A cached result equals a fresh one; another option or other data miss.
func TestRunCached(t *testing.T) {
	co := model.DefaultCatalogueOptions
	co.Jobs, co.Partners = 10, 6
	d, err := model.Catalogue(co)
	if err != nil {
		t.Fatal(err)
	}
	d.Warnings = []string{"a warning kept"}
	dir := t.TempDir()
	o := Options{Protocols: []string{"pairs"}, Fractions: []float64{0.2, 0.5}, Seeds: 2, Models: []string{"mean", "bias", "knn"}}
	fresh, err := Run(d, o)
	if err != nil {
		t.Fatal(err)
	}
	show := func(r *Result) string { return fmt.Sprintf("%+v\n%+v\n%q", r.Cells, r.Summaries, r.Warnings) }
	for i, want := range []bool{false, true} {
		res, hit, err := RunCached(dir, d, o)
		if err != nil {
			t.Fatal(err)
		}
		if hit != want {
			t.Fatalf("call %d: hit %v, want %v", i+1, hit, want)
		}
		if show(res) != show(fresh) {
			t.Fatalf("call %d: the result differs from Run's", i+1)
		}
	}
	k0, _ := CacheKey(d, o)
	o2 := o
	o2.Workers = 3
	if k, _ := CacheKey(d, o2); k != k0 {
		t.Fatal("the number of workers changed the key")
	}
	o2.Seeds = 3
	if k, _ := CacheKey(d, o2); k == k0 {
		t.Fatal("another number of seeds kept the key")
	}
	d.Obs[0].Y += 0.01
	if k, _ := CacheKey(d, o); k == k0 {
		t.Fatal("other pairs kept the key")
	}
}
