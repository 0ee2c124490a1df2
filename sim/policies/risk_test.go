package policies

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/policy"
)

func TestParseDecide(t *testing.T) {
	for in, want := range map[string]string{"": policy.DecideExpected, "expected": policy.DecideExpected, "lower": policy.DecideLower} {
		if got, err := ParseDecide(in); err != nil || got != want {
			t.Errorf("ParseDecide(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseDecide("Lower"); err == nil || !strings.Contains(err.Error(), `decide "Lower": want expected or lower`) {
		t.Errorf("ParseDecide(Lower): %v", err)
	}
}

// Risk-averse coloc is given the lower bounds of the intervals: never
// above the expected value, below it for the calibrated pairs.
func TestDecideLower(t *testing.T) {
	if testing.Short() {
		t.Skip("fits IASP and IAPP (a few seconds)")
	}
	dir := fitGavel(t, "iasp", "iapp")
	d, err := model.LoadData(filepath.Join("..", "..", "datasets", "reference", "gavel"))
	if err != nil {
		t.Fatal(err)
	}
	load := func(decide string) *place.Models {
		m, err := place.LoadModels(dir, place.DefaultModelNames)
		if err != nil {
			t.Fatal(err)
		}
		if err := decideOn(m, decide); err != nil {
			t.Fatal(err)
		}
		return m
	}
	exp, low := load(""), load(policy.DecideLower)
	if err := decideOn(exp, "typo"); err == nil {
		t.Error("decide typo accepted")
	}
	n, below := 0, 0
	for _, a := range d.Space.Jobs {
		for _, b := range d.Space.Jobs {
			e, ok1 := exp.Predict(place.NodeLevel, a, b, "v100", 1)
			l, ok2 := low.Predict(place.NodeLevel, a, b, "v100", 1)
			if !ok1 {
				continue
			}
			n++
			if ok2 && l > e {
				t.Errorf("%s|%s: lower bound %v above the expected %v", a, b, l, e)
			}
			if !ok2 || l < e {
				below++
			}
		}
	}
	if n == 0 || below < n/2 {
		t.Errorf("%d of %d predicted pairs decided below their expected value, want most", below, n)
	}
}
