package eval

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/coloc-dev/coloc/model"
)

// Any number of workers gives the result, the progress lines' order and
// the error of one worker.
func TestRunWorkersMatchOne(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates twice (5 s); not in -short")
	}
	co := model.DefaultCatalogueOptions
	co.Jobs, co.Partners = 10, 6
	d, err := model.Catalogue(co)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Protocols: []string{"pairs", "new-job"}, Fractions: []float64{0.5}, Seeds: 2, Models: model.Names()}
	var want string
	var wantLines []string
	for _, w := range []int{1, 3} {
		o.Workers = w
		var prog bytes.Buffer
		o.Progress = &prog
		res, err := Run(d, o)
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("%+v\n%+v", res.Cells, res.Summaries)
		var lines []string
		for _, l := range bytes.Split(bytes.TrimSpace(prog.Bytes()), []byte("\n")) {
			lines = append(lines, string(l[:len("eval: ")+31]))
		}
		if w == 1 {
			want, wantLines = got, lines
			if len(res.Cells) != len(model.Names())*2*2 {
				t.Fatalf("%d cells", len(res.Cells))
			}
			continue
		}
		if got != want {
			t.Fatalf("%d workers: result differs from one worker's", w)
		}
		if fmt.Sprint(lines) != fmt.Sprint(wantLines) {
			t.Fatalf("%d workers: progress %q, one worker %q", w, lines, wantLines)
		}
	}
}

func TestFitAllWorkersMatchOne(t *testing.T) {
	co := model.DefaultCatalogueOptions
	co.Jobs, co.Partners = 16, 6
	d, err := model.Catalogue(co)
	if err != nil {
		t.Fatal(err)
	}
	one, err := model.FitAllWorkers(d, model.Names(), 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	many, err := model.FitAllWorkers(d, model.Names(), 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := range one {
		if one[i].Name != many[i].Name || !bytes.Equal(one[i].Bytes, many[i].Bytes) {
			t.Fatalf("%s: 4 workers encode differently from one", one[i].Name)
		}
	}
}
