package model

import (
	"bytes"
	"math"
	"testing"
)

// averaged is a network fit alone committeeNetworkFits times on tr, with
// the committee's seeds, read as the mean of its fits; seedSpread is the
// largest gap between two of its fits on a pair of obs.
type averaged struct {
	fits       []Model
	seedSpread float64
}

func fitAveraged(t *testing.T, tr *Train, obs []Obs, fresh func() Model) *averaged {
	t.Helper()
	av := &averaged{}
	for k := range committeeNetworkFits {
		m, r := fresh(), *tr
		if k > 0 {
			r.Seed = fitSeed(tr.Seed, k)
		}
		if err := m.Fit(&r); err != nil {
			t.Fatalf("%s fit %d: %v", m.Name(), k+1, err)
		}
		av.fits = append(av.fits, m)
	}
	for _, o := range obs {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, m := range av.fits {
			v := m.Predict(o.A, o.B, o.S)
			lo, hi = min(lo, v), max(hi, v)
		}
		av.seedSpread = max(av.seedSpread, hi-lo)
	}
	return av
}

func (av *averaged) Predict(a, b, s int) float64 {
	v := 0.0
	for _, m := range av.fits {
		v += m.Predict(a, b, s)
	}
	return v / float64(len(av.fits))
}

// The committee predicts the mean of its three seats, each fit alone on
// the same pairs and seed: fitting them together shares no state. IASP's
// seat is the mean of its committeeNetworkFits fits, and those fits
// differ (else the averaging would be a no-op the test cannot see).
func TestCommitteeIsTheMeanOfItsMembers(t *testing.T) {
	sp, raw := synthetic(t, 14, 31)
	train, test := allPairs(14, 0.4, 7, func(a, b int) float64 { return 0.7 + 0.08*raw[a][0] - 0.06*raw[b][1] + 0.03*raw[a][2]*raw[b][2] })
	tr, err := NewTrain(sp, train, 5)
	if err != nil {
		t.Fatal(err)
	}
	fit := func(m Model) Model {
		if err := m.Fit(tr); err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		return m
	}
	c := fit(newCommittee()).(*committee)
	if len(c.MoreIASP) != committeeNetworkFits-1 || c.IAPP != nil || len(c.MoreIAPP) != 0 {
		t.Fatalf("%d further iasp fits, iapp %v, %d further iapp fits; want %d, none, none", len(c.MoreIASP), c.IAPP != nil, len(c.MoreIAPP), committeeNetworkFits-1)
	}
	iasp := fitAveraged(t, tr, test, func() Model { return NewIASP(DefaultIASPOptions) })
	if iasp.seedSpread < 1e-3 {
		t.Fatalf("IASP's %d fits agree within %g on every pair: the seeds do not reach the fits", committeeNetworkFits, iasp.seedSpread)
	}
	members := []interface{ Predict(a, b, s int) float64 }{iasp, fit(newRLFM(defaultRLFMOptions)), fit(newGBT(memberGBTOptions))}
	spread := 0.0
	for _, o := range test {
		want := 0.0
		for _, m := range members {
			want += m.Predict(o.A, o.B, 0)
		}
		want /= 3
		if got := c.Predict(o.A, o.B, 0); math.Abs(got-want) > 1e-12 {
			t.Fatalf("%s|%s: committee %v, mean of members %v", sp.Jobs[o.A], sp.Jobs[o.B], got, want)
		}
		spread = max(spread, math.Abs(members[0].Predict(o.A, o.B, 0)-members[2].Predict(o.A, o.B, 0)))
	}
	if spread == 0 {
		t.Fatal("IASP and GBT predict the same everywhere: the test cannot tell the mean from a member")
	}
}

// A committee file written before the committee averaged its networks'
// fits (no iasp_more) still loads, and predicts the mean of its one IASP
// fit, RLFM and GBT.
func TestCommitteeReadsSingleFitFiles(t *testing.T) {
	c, tr, test := fitSmallCommittee(t, 43, 0.5)
	sp := tr.Space
	c.MoreIASP = nil
	l := roundTrip(t, c, tr, "iasp_more")
	for _, o := range test {
		want := (c.IASP.Predict(o.A, o.B, 0) + c.RLFM.Predict(o.A, o.B, 0) + c.GBT.Predict(o.A, o.B, 0)) / 3
		if got := l.Predict(o.A, o.B, 0); math.Abs(got-want) > 1e-12 {
			t.Fatalf("%s|%s: single-fit committee %v, want %v", sp.Jobs[o.A], sp.Jobs[o.B], got, want)
		}
	}
}

// A committee file with a member missing is refused on load.
func TestCommitteeRefusesMissingMember(t *testing.T) {
	m := newCommittee()
	m.RLFM = nil
	if err := m.check(nil); err == nil {
		t.Fatal("a committee without rlfm passed its check")
	}
}

// A pair with a job that has no training pair is predicted by the unseen
// seat, the blend of its candidates with the weights the fit chose, each
// candidate fit alone on the same pairs (IAPP as the mean of its fits);
// every other pair by the mean of IASP, RLFM and GBT. The file keeps the
// unseen jobs, the weights and the weighted candidates, so a loaded
// committee predicts the same.
func TestCommitteeUnseenSeat(t *testing.T) {
	c, tr, test, held := fitUnseenCommittee(t)
	sp := tr.Space
	if len(c.Unseen) != 2 || c.Unseen[0] != 0 || c.Unseen[1] != 1 {
		t.Fatalf("unseen %v; want jobs 0 and 1", c.Unseen)
	}
	w := c.UnseenWeights
	if len(w) != len(unseenCandidates) {
		t.Fatalf("unseen weights %v, want %d of them", w, len(unseenCandidates))
	}
	if err := c.check(tr.Frame); err != nil {
		t.Fatalf("the fit committee fails its own check: %v", err)
	}
	if (c.IAPP != nil) != (w[0] > 0) || (c.KNN != nil) != (w[3] > 0) {
		t.Fatalf("weights %v but iapp fit %v, knn fit %v", w, c.IAPP != nil, c.KNN != nil)
	}
	if c.IAPP != nil && len(c.MoreIAPP) != committeeNetworkFits-1 {
		t.Fatalf("%d further iapp fits, want %d", len(c.MoreIAPP), committeeNetworkFits-1)
	}
	fit := func(m Model) Model {
		if err := m.Fit(tr); err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		return m
	}
	iasp := fitAveraged(t, tr, test, func() Model { return NewIASP(DefaultIASPOptions) })
	rlfm, gbt := fit(newRLFM(defaultRLFMOptions)), fit(newGBT(memberGBTOptions))
	cands := []interface{ Predict(a, b, s int) float64 }{nil, rlfm, gbt, nil}
	if w[0] > 0 {
		cands[0] = fitAveraged(t, tr, test, func() Model { return newIAPP(defaultIAPPOptions) })
	}
	if w[3] > 0 {
		cands[3] = fit(newKNN(defaultKNNOptions))
	}
	l := roundTrip(t, c, tr, "")
	differ := false
	for _, o := range test {
		seen := (iasp.Predict(o.A, o.B, 0) + rlfm.Predict(o.A, o.B, 0) + gbt.Predict(o.A, o.B, 0)) / 3
		want := seen
		if held(o) {
			want = 0
			for i, m := range cands {
				if w[i] > 0 {
					want += w[i] * m.Predict(o.A, o.B, 0)
				}
			}
			differ = differ || math.Abs(want-seen) > 1e-3
		}
		if got := c.Predict(o.A, o.B, 0); math.Abs(got-want) > 1e-12 {
			t.Fatalf("%s|%s: committee %v, want %v (held out %v)", sp.Jobs[o.A], sp.Jobs[o.B], got, want, held(o))
		}
		if got := l.Predict(o.A, o.B, 0); math.Abs(got-want) > 1e-12 {
			t.Fatalf("%s|%s: loaded committee %v, want %v", sp.Jobs[o.A], sp.Jobs[o.B], got, want)
		}
	}
	if !differ {
		t.Fatal("the unseen seat and the seen mean agree on every unseen pair: the test cannot tell which one the committee used")
	}

	// Every candidate weighted (the fit above may weigh some at 0): IAPP's
	// fits are averaged, KNN is kept, and both survive the file.
	iappFit, knn := newIAPP(defaultIAPPOptions), fit(newKNN(defaultKNNOptions)).(*knnModel)
	more := newIAPP(defaultIAPPOptions)
	fit(iappFit)
	r := *tr
	r.Seed = fitSeed(tr.Seed, 1)
	if err := more.Fit(&r); err != nil {
		t.Fatal(err)
	}
	c.UnseenWeights, c.IAPP, c.MoreIAPP, c.KNN = []float64{0.4, 0.2, 0.1, 0.3}, iappFit, []*iappModel{more}, knn
	l = roundTrip(t, c, tr, "")
	for _, o := range test {
		if !held(o) {
			continue
		}
		iappMean := (iappFit.Predict(o.A, o.B, 0) + more.Predict(o.A, o.B, 0)) / 2
		want := 0.4*iappMean + 0.2*rlfm.Predict(o.A, o.B, 0) + 0.1*gbt.Predict(o.A, o.B, 0) + 0.3*knn.Predict(o.A, o.B, 0)
		if got := l.Predict(o.A, o.B, 0); math.Abs(got-want) > 1e-12 {
			t.Fatalf("%s|%s: loaded committee with every candidate weighted %v, want %v", sp.Jobs[o.A], sp.Jobs[o.B], got, want)
		}
	}
}

// A committee file written before the unseen seat's weights were chosen
// (IAPP, no unseen_weights, no knn) still loads, and predicts an unseen
// pair as the mean of IAPP, RLFM and GBT.
func TestCommitteeReadsFilesWithoutUnseenWeights(t *testing.T) {
	c, tr, test, held := fitUnseenCommittee(t)
	iapp := newIAPP(defaultIAPPOptions)
	if err := iapp.Fit(tr); err != nil {
		t.Fatal(err)
	}
	c.UnseenWeights, c.KNN, c.IAPP, c.MoreIAPP = nil, nil, iapp, nil
	l := roundTrip(t, c, tr, "unseen_weights")
	n := 0
	for _, o := range test {
		if !held(o) {
			continue
		}
		n++
		want := (iapp.Predict(o.A, o.B, 0) + c.RLFM.Predict(o.A, o.B, 0) + c.GBT.Predict(o.A, o.B, 0)) / 3
		if got := l.Predict(o.A, o.B, 0); math.Abs(got-want) > 1e-12 {
			t.Fatalf("%s|%s: committee %v, want the mean of iapp, rlfm and gbt %v", tr.Jobs[o.A], tr.Jobs[o.B], got, want)
		}
	}
	if n == 0 {
		t.Fatal("no unseen pair to test")
	}
}

// fitUnseenCommittee fits a committee on two thirds of the pairs of 14
// synthetic jobs, none of jobs 0 and 1, and returns it, its training
// input, the pairs left out and which of them have an unseen job.
func fitUnseenCommittee(t *testing.T) (*committee, *Train, []Obs, func(Obs) bool) {
	t.Helper()
	sp, raw := synthetic(t, 14, 37)
	all, _ := allPairs(14, 1, 7, func(a, b int) float64 { return 0.7 + 0.08*raw[a][0] - 0.06*raw[b][1] + 0.03*raw[a][2]*raw[b][2] })
	held := func(o Obs) bool { return o.A < 2 || o.B < 2 }
	var train, test []Obs
	for i, o := range all {
		if held(o) || i%3 == 0 {
			test = append(test, o)
		} else {
			train = append(train, o)
		}
	}
	c, tr := fitCommittee(t, sp, train, 5)
	return c, tr, test, held
}

// fitCommittee fits a committee on train with seed.
func fitCommittee(t *testing.T, sp *Space, train []Obs, seed uint64) (*committee, *Train) {
	t.Helper()
	tr, err := NewTrain(sp, train, seed)
	if err != nil {
		t.Fatal(err)
	}
	c := newCommittee()
	if err := c.Fit(tr); err != nil {
		t.Fatal(err)
	}
	return c, tr
}

// Each (slot, job) with training pairs is hidden in exactly one fold of
// the unseen weights' choice; a fold trains on no pair of a job it
// hides and tests every pair that has one.
func TestUnseenFoldsHideEachJobOnce(t *testing.T) {
	_, tr, _, _ := fitUnseenCommittee(t)
	folds := unseenFoldsOf(tr)
	if len(folds) != unseenFolds {
		t.Fatalf("%d folds, want %d", len(folds), unseenFolds)
	}
	nj := len(tr.Jobs)
	hidden := map[int]int{}
	for _, f := range folds {
		here := map[int]bool{}
		for _, o := range f.test {
			here[o.A], here[o.B] = true, true
		}
		// a job of a test pair may be its seen partner; the hidden ones
		// are those with no training pair in the fold
		trained := map[int]bool{}
		for _, o := range f.train {
			trained[o.A], trained[o.B] = true, true
		}
		for j := range here {
			if !trained[j] {
				hidden[j]++
			}
		}
		for _, o := range f.test {
			if trained[o.A] && trained[o.B] {
				t.Fatalf("test pair %s|%s has no hidden job", tr.Jobs[o.A], tr.Jobs[o.B])
			}
		}
		if len(f.train)+len(f.test) != len(tr.Obs) {
			t.Fatalf("a fold has %d+%d pairs, want %d", len(f.train), len(f.test), len(tr.Obs))
		}
	}
	for j := 2; j < nj; j++ {
		if hidden[j] != 1 {
			t.Fatalf("job %s hidden in %d folds, want 1", tr.Jobs[j], hidden[j])
		}
	}
}

// simplexWeights finds the blend of lowest MAE on its grid.
func TestSimplexWeights(t *testing.T) {
	y := []float64{0.2, 0.5, 0.9, 0.4, 0.7}
	shift := func(d float64) []float64 {
		out := make([]float64, len(y))
		for i, v := range y {
			out[i] = v + d
		}
		return out
	}
	for _, c := range []struct {
		name string
		pred [][]float64
		want []float64
	}{
		{"one exact member", [][]float64{shift(0.1), shift(-0.3), y, shift(0.2)}, []float64{0, 0, 1, 0}},
		{"two opposite biases", [][]float64{shift(0.1), shift(-0.1), shift(0.5)}, []float64{0.5, 0.5, 0}},
		{"a bias cancelled 3:7", [][]float64{shift(0.7), shift(-0.3)}, []float64{0.3, 0.7}},
	} {
		got := simplexWeights(c.pred, y, 10)
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-12 {
				t.Fatalf("%s: weights %v, want %v", c.name, got, c.want)
			}
		}
	}
}

// A committee fit with every job paired has no unseen seat; a file whose
// unseen seat does not add up is refused.
func TestCommitteeUnseenSeatChecks(t *testing.T) {
	c, tr, _ := fitSmallCommittee(t, 41, 0.6)
	if len(c.Unseen) != 0 || c.IAPP != nil || c.KNN != nil || c.UnseenWeights != nil {
		t.Fatalf("every job has training pairs, yet unseen %v, weights %v, iapp fit %v, knn fit %v", c.Unseen, c.UnseenWeights, c.IAPP != nil, c.KNN != nil)
	}
	if err := c.check(tr.Frame); err != nil {
		t.Fatal(err)
	}
	iapp, knn := newIAPP(defaultIAPPOptions), newKNN(defaultKNNOptions)
	for _, bad := range []struct {
		name   string
		unseen []int
		w      []float64
		iapp   *iappModel
		more   []*iappModel
		knn    *knnModel
	}{
		{"an unseen job and no iapp (no weights)", []int{3}, nil, nil, nil, nil},
		{"iapp and no unseen job", nil, nil, iapp, nil, nil},
		{"further iapp fits and no iapp", nil, nil, nil, []*iappModel{iapp}, nil},
		{"weights and no unseen job", nil, []float64{0, 0.5, 0.5, 0}, nil, nil, nil},
		{"three weights", []int{3}, []float64{0, 0.5, 0.5}, nil, nil, nil},
		{"a negative weight", []int{3}, []float64{0, 1.2, -0.2, 0}, nil, nil, nil},
		{"weights summing to 0.9", []int{3}, []float64{0, 0.4, 0.5, 0}, nil, nil, nil},
		{"iapp weighted and absent", []int{3}, []float64{0.5, 0, 0.5, 0}, nil, nil, nil},
		{"iapp present and not weighted", []int{3}, []float64{0, 0.5, 0.5, 0}, iapp, nil, nil},
		{"knn weighted and absent", []int{3}, []float64{0, 0.5, 0, 0.5}, nil, nil, nil},
		{"knn present and not weighted", []int{3}, []float64{0, 0.5, 0.5, 0}, nil, nil, knn},
	} {
		d := *c
		d.Unseen, d.UnseenWeights, d.IAPP, d.MoreIAPP, d.KNN = bad.unseen, bad.w, bad.iapp, bad.more, bad.knn
		if err := d.checkUnseen(); err == nil {
			t.Errorf("a committee with %s passed its check", bad.name)
		}
	}
	d := *c
	d.Unseen, d.UnseenWeights = []int{3}, []float64{0, 0.5, 0.5, 0}
	if err := d.checkUnseen(); err != nil {
		t.Fatalf("a committee weighing rlfm and gbt for its unseen job: %v", err)
	}
	d.MoreIASP = []*IASP{nil}
	if err := d.check(tr.Frame); err == nil {
		t.Fatal("a committee with a null further iasp fit passed its check")
	}
}

// roundTrip writes c to a model file and reads it back; absent, when
// not empty, is a key the file must not hold.
func roundTrip(t *testing.T, c *committee, tr *Train, absent string) Model {
	t.Helper()
	b, err := encode(c, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if absent != "" && bytes.Contains(b, []byte(absent)) {
		t.Fatalf("the committee's file holds %s", absent)
	}
	l, err := decode(b, "committee.json")
	if err != nil {
		t.Fatal(err)
	}
	return l.Model
}

// fitSmallCommittee fits a committee on frac of the pairs of 10 synthetic
// jobs (every job keeps training pairs) and returns it, its training input
// and the pairs left out.
func fitSmallCommittee(t *testing.T, seed uint64, frac float64) (*committee, *Train, []Obs) {
	t.Helper()
	sp, raw := synthetic(t, 10, seed)
	train, test := allPairs(10, frac, 3, func(a, b int) float64 { return 0.7 + 0.05*raw[a][0] - 0.05*raw[b][1] })
	c, tr := fitCommittee(t, sp, train, 2)
	return c, tr, test
}
