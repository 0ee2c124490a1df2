package place

import (
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/model"
)

// FitWithProgress says, once per model, that it is done and how many of
// how many, and writes the bytes FitCalibrated writes.
func TestFitWithProgress(t *testing.T) {
	co := model.DefaultCatalogueOptions
	co.Jobs, co.Partners = 10, 6
	d, err := model.Catalogue(co)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	names := []string{"mean", "bias", "linear"}
	with, err := FitWithProgress(d, names, 1, model.TrustOptions{Coverage: 0.9}, 2, &b)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != len(names) {
		t.Fatalf("%d progress lines for %d models:\n%s", len(lines), len(names), b.String())
	}
	for _, n := range names {
		if !strings.Contains(b.String(), "fit: "+n+" fitted in ") {
			t.Errorf("no line for %s in\n%s", n, b.String())
		}
	}
	if !strings.Contains(lines[2], "(3 of 3 models; about 0 s left)") {
		t.Errorf("last line %q", lines[2])
	}
	without, err := model.FitCalibrated(d, names, 1, model.TrustOptions{Coverage: 0.9}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range with {
		if with[i].Name != without[i].Name || string(with[i].Bytes) != string(without[i].Bytes) {
			t.Errorf("%s: the fit differs from FitCalibrated's", names[i])
		}
	}
	if _, err := FitWithProgress(d, []string{"mean", "nope"}, 1, model.TrustOptions{Coverage: 0.9}, 2, nil); err == nil {
		t.Error("an unknown model was fitted")
	}
}
