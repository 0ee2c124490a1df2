package eval

import (
	"bytes"
	"strings"
	"testing"
)

// The Markdown tables bold each column's lowest MAE, and with versus
// models a last row gives the best other model's MAE over the best
// versus model's, naming the other model; a column where a versus model
// has no score is left empty. Each group of versus models gives its own
// row, and the "best other" model is chosen among the models in no group.
func TestWriteMarkdownVersusRow(t *testing.T) {
	r := &Result{Summaries: []Summary{
		{Model: "iasp", Protocol: "pairs", Device: "k80", Fraction: 0.2, MAEMedian: 0.030},
		{Model: "rlfm", Protocol: "pairs", Device: "k80", Fraction: 0.2, MAEMedian: 0.027},
		{Model: "gbt", Protocol: "pairs", Device: "k80", Fraction: 0.2, MAEMedian: 0.040},
		{Model: "forest", Protocol: "pairs", Device: "k80", Fraction: 0.2, MAEMedian: 0.036},
		{Model: "iasp", Protocol: "pairs", Device: "v100", Fraction: 0.5, MAEMedian: 0.090},
		{Model: "rlfm", Protocol: "pairs", Device: "v100", Fraction: 0.5, MAEMedian: 0.110},
		{Model: "gbt", Protocol: "pairs", Device: "v100", Fraction: 0.5, MAEMedian: 0.080},
		{Model: "iasp", Protocol: "new-job", Device: "k80", Fraction: 0, MAEMedian: 0.050},
		{Model: "rlfm", Protocol: "new-job", Device: "k80", Fraction: 0, MAEMedian: 0.060},
	}}
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b, []string{"gbt", "forest"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| rlfm | **0.0270** | 0.1100 |",
		"| gbt | 0.0400 | **0.0800** |",
		"| forest | 0.0360 | |",
		"| best / best of gbt, forest | 0.750 (rlfm) | 1.125 (iasp) |",
		"| best / best of gbt, forest | |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	b.Reset()
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "best / best") {
		t.Errorf("a versus row without versus models:\n%s", b.String())
	}
	if err := r.WriteMarkdown(&b, []string{"knn"}); err == nil || !strings.Contains(err.Error(), `"knn"`) {
		t.Errorf("versus model not evaluated: err %v, want one naming knn", err)
	}
	if err := r.WriteMarkdown(&b, []string{"iasp", "rlfm"}, []string{"gbt", "forest"}); err == nil {
		t.Error("every model a versus model: no error")
	}
	if err := r.WriteMarkdown(&b, []string{"gbt"}, nil); err == nil {
		t.Error("an empty group: no error")
	}
	b.Reset()
	if err := r.WriteMarkdown(&b, []string{"gbt", "forest"}, []string{"rlfm"}); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	for _, want := range []string{
		"| best / best of gbt, forest | 0.833 (iasp) | 1.125 (iasp) |",
		"| best / best of rlfm | 1.111 (iasp) | 0.818 (iasp) |",
		"| best / best of gbt, forest | |\n| best / best of rlfm | 0.833 (iasp) |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("two groups: missing %q in\n%s", want, out)
		}
	}
}
