package eval

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/model"
)

// Models spread over workers give the cells, summaries and warnings of one
// worker, in the same order; every (model, protocol, device) still writes
// one whole progress line.
func TestWorkersEqualOneWorker(t *testing.T) {
	d, err := model.LoadData(gavel)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Protocols: []string{"pairs"}, Fractions: []float64{0.2, 0.5}, Seeds: 2,
		Models: []string{"mean", "bias", "linear"}, Devices: []string{"k80", "v100"}}
	want, err := Run(d, o)
	if err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	o.Workers, o.Progress = 3, &progress
	got, err := Run(d, o)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := fmt.Sprint(got.Cells, got.Summaries, got.Warnings), fmt.Sprint(want.Cells, want.Summaries, want.Warnings); a != b {
		t.Errorf("three workers differ from one:\n%s\n%s", a, b)
	}
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if len(lines) != 3*2 {
		t.Errorf("%d progress lines, want 6:\n%s", len(lines), progress.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "eval: ") || !strings.HasSuffix(l, "s") {
			t.Errorf("progress line %q is not whole", l)
		}
	}
}
