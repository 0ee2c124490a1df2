package place

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/model"
)

// Each model predicts both orders of a pair, bounded to its interval; an
// unknown job is a typed error that lists the known ones.
func TestPredictPair(t *testing.T) {
	ms, err := model.LoadDir(fitGavel(t, "bias", "similarity"), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := "ResNet-50 (batch size 64)", "LM (batch size 20)"
	rows, err := PredictPair(ms, a, b, "v100")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Model != "bias" || rows[1].Model != "similarity" {
		t.Fatalf("%+v", rows)
	}
	for _, r := range rows {
		for _, x := range []model.Estimate{r.ABEst, r.BAEst} {
			if !(x.Lo <= x.Value && x.Value <= x.Hi) {
				t.Errorf("%s: %v outside its interval [%v, %v]", r.Model, x.Value, x.Lo, x.Hi)
			}
		}
		if r.AB != r.ABEst.Value || r.BA != r.BAEst.Value {
			t.Errorf("%s: values %v, %v differ from the estimates", r.Model, r.AB, r.BA)
		}
	}
	var w bytes.Buffer
	WritePredictions(&w, rows, a, b, "v100", ms[0].File.Trust.Coverage)
	if !regexp.MustCompile(`(?m)^bias +\d\.\d{3} +\[\d\.\d{3}, \d\.\d{3}\] +\d\.\d{3} `).MatchString(w.String()) {
		t.Errorf("table:\n%s", w.String())
	}

	_, err = PredictPair(ms, a, "GPT-9", "v100")
	var uj *UnknownJobError
	if !errors.As(err, &uj) || uj.Job != "GPT-9" || len(uj.Known) == 0 || !strings.Contains(err.Error(), `"GPT-9"`) {
		t.Errorf("unknown job: %v", err)
	}
	if _, err := PredictPair(ms, a, b, "h200"); err == nil {
		t.Error("a device the models do not know was accepted")
	}
}

// A known job is left out of its neighbours; a new one of a known family
// is described by its name; settings are checked.
func TestSimilar(t *testing.T) {
	dir := fitGavel(t, "bias", "similarity")
	q := SimilarQuery{Models: dir, Job: "ResNet-50 (batch size 64)", K: 2, Distance: "gower", P: 2, Efficiency: 0.7}
	ans, err := Similar(q)
	if err != nil {
		t.Fatal(err)
	}
	nb := ans.Suggestion.Neighbors
	if !ans.Known || len(nb) != 2 || nb[0].Job == q.Job || nb[1].Job == q.Job || nb[0].Distance > nb[1].Distance {
		t.Errorf("known job: %+v", ans)
	}
	if ans.Suggestion.DeviceType == "" || ans.Suggestion.Degree < 1 {
		t.Errorf("no suggestion: %+v", ans.Suggestion)
	}
	q.Job = "ResNet-50 (batch size 48)"
	if ans, err = Similar(q); err != nil || ans.Known || len(ans.Suggestion.Neighbors) != 2 {
		t.Errorf("new job of a known family: %+v, %v", ans, err)
	}
	for _, c := range []struct {
		change func(*SimilarQuery)
		want   string
	}{
		{func(q *SimilarQuery) { q.Distance = "chebyshev" }, "chebyshev"},
		{func(q *SimilarQuery) { q.K = 0 }, "--k must be at least 1"},
		{func(q *SimilarQuery) { q.Job = "my-bert" }, "--meta"},
	} {
		bad := q
		c.change(&bad)
		if _, err := Similar(bad); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", bad, err, c.want)
		}
	}
}
