package model

import (
	"errors"
	"fmt"
	"math"
)

// The unseen seat of the committee: how a pair with a job that has no
// training pair on its slot is predicted.
//
// Such a pair has only features to go on, and which features model
// carries it depends on the data: on Gavel (model descriptors and solo
// throughputs) IAPP and the nearest neighbours' pairs do, on the counters
// dataset (utilisation counters whose sum over a pair sets the
// contention) the trees on the pair sums do, and IAPP is the weakest
// model there. A fixed mean is wrong on one of the two. So the committee
// asks its own training pairs: it hides each (slot, job) with training
// pairs in one of unseenFolds folds, fits one of each candidate on the
// pairs the fold leaves, predicts the hidden jobs' pairs (exactly the
// situation of an unseen job), and keeps the convex weights of lowest
// MAE over the pooled held-out predictions of every fold. Every job is
// held out once, so the weights are chosen on all the training pairs
// (several hundred on each shipped dataset) rather than on a fifth of
// them: an earlier choice on one held-out fifth of the jobs picked the
// trees in a third of Gavel's fits and lost
// (docs/notes/2026-12-02-committee-and-tree-inputs.md).
//
// The candidates are the members that predict a job from its features
// (IAPP, RLFM from its features' prior, GBT with no identity indicator
// set) and KNN, the one model that predicts from the measured pairs of
// the jobs nearest in feature space. A candidate with weight 0 is not
// fit on all pairs (IAPP's five fits are skipped when the trees carry
// the unseen jobs). In the folds every candidate is fit once, IAPP
// too though its seat averages committeeNetworkFits fits: five fits in
// each of five folds would make the choice cost more than the rest of
// the committee, and a single fit understates IAPP's share only a
// little (averaging its five fits moved the committee's Gavel new-job
// MAE by at most 0.0018, docs/notes/2026-12-03-committee-cells-not-met.md).
//
// Constants, none fitted to a dataset: unseenFolds = 5 is a cost knob
// (each fold fits every candidate once); unseenSteps = 10 sets the grid
// of weights (multiples of 0.1): a finer grid can only fit the
// held-out pairs more closely, and the MAE is flat near its minimum.
const (
	unseenFolds = 5
	unseenSteps = 10
)

// unseenCandidates names the unseen seat's candidates in the order of
// Committee.UnseenWeights.
var unseenCandidates = [...]string{"iapp", "rlfm", "gbt", "knn"}

// newUnseenCandidates returns one unfit model of each candidate, with the
// committee's options.
func (m *committee) newUnseenCandidates() [len(unseenCandidates)]Model {
	return [...]Model{newIAPP(defaultIAPPOptions), newRLFM(m.RLFM.Opts), newGBT(m.GBT.Opts), newKNN(defaultKNNOptions)}
}

// unseenFoldsOf splits t's pairs into the folds of the weights' choice:
// each (slot, job) with training pairs is hidden in one fold (drawn from
// the seed); a fold's test pairs are those with a hidden job, its
// training pairs the rest. Folds that leave fewer than MinObs training
// pairs or no test pair are left out.
func unseenFoldsOf(t *Train) []holdout {
	nj := len(t.Jobs)
	sup := support(t.Obs, nj, len(t.Slots))
	var seen []int
	for i, n := range sup {
		if n > 0 {
			seen = append(seen, i)
		}
	}
	fold := make(map[int]int, len(seen))
	for i, p := range rng(t.Seed, 0xc0f01d).Perm(len(seen)) {
		fold[seen[p]] = i % unseenFolds
	}
	var out []holdout
	for k := 0; k < unseenFolds; k++ {
		var f holdout
		for _, o := range t.Obs {
			if fold[o.S*nj+o.A] == k || fold[o.S*nj+o.B] == k {
				f.test = append(f.test, o)
			} else {
				f.train = append(f.train, o)
			}
		}
		if len(f.test) > 0 && len(f.train) >= MinObs {
			out = append(out, f)
		}
	}
	return out
}

// holdout is one fold: pairs to fit on and pairs to predict.
type holdout struct{ train, test []Obs }

// chooseUnseenWeights returns the unseen seat's weights (see the top of
// this file), or nil when no fold could be made (the seat then keeps the
// plain mean of IAPP, RLFM and GBT).
func (m *committee) chooseUnseenWeights(t *Train) ([]float64, error) {
	var pred [len(unseenCandidates)][]float64
	var y []float64
	for k, f := range unseenFoldsOf(t) {
		r := *t
		r.Obs = f.train
		for i, c := range m.newUnseenCandidates() {
			if err := c.Fit(&r); err != nil {
				return nil, fmt.Errorf("committee: weights for unseen jobs, fold %d, %s: %w", k+1, unseenCandidates[i], err)
			}
			for _, o := range f.test {
				pred[i] = append(pred[i], c.Predict(o.A, o.B, o.S))
			}
		}
		for _, o := range f.test {
			y = append(y, o.Y)
		}
	}
	if len(y) == 0 {
		return nil, nil
	}
	return simplexWeights(pred[:], y, unseenSteps), nil
}

// simplexWeights returns the weights w (multiples of 1/steps, w >= 0,
// sum 1) of the lowest mean absolute error of sum_i w_i pred[i] against
// y. Ties keep the first grid point found, the grid walked with the
// first weight, then the second, ..., ascending.
func simplexWeights(pred [][]float64, y []float64, steps int) []float64 {
	n := len(pred)
	best, bestE := make([]float64, n), math.Inf(1)
	count := make([]int, n)
	var walk func(i, left int)
	walk = func(i, left int) {
		if i == n-1 {
			count[i] = left
			e := 0.0
			for r, v := range y {
				p := 0.0
				for j, c := range count {
					p += float64(c) / float64(steps) * pred[j][r]
				}
				e += math.Abs(p - v)
			}
			if e < bestE {
				bestE = e
				for j, c := range count {
					best[j] = float64(c) / float64(steps)
				}
			}
			return
		}
		for c := 0; c <= left; c++ {
			count[i] = c
			walk(i+1, left-c)
		}
	}
	walk(0, steps)
	return best
}

// unseenPredict is the unseen seat's prediction for a pair with an
// unseen job: the weighted sum of its candidates, or, in a file written
// before the weights were chosen, the mean of IAPP, RLFM and GBT.
func (m *committee) unseenPredict(a, b, s int) float64 {
	w := m.UnseenWeights
	if w == nil {
		return (meanOfFits(m.IAPP, m.MoreIAPP, a, b, s) + m.RLFM.Predict(a, b, s) + m.GBT.Predict(a, b, s)) / 3
	}
	v := w[1]*m.RLFM.Predict(a, b, s) + w[2]*m.GBT.Predict(a, b, s)
	if w[0] > 0 {
		v += w[0] * meanOfFits(m.IAPP, m.MoreIAPP, a, b, s)
	}
	if w[3] > 0 {
		v += w[3] * m.KNN.Predict(a, b, s)
	}
	return v
}

// checkUnseen verifies the unseen seat of a loaded committee: weights on
// the simplex, IAPP present exactly when unseen jobs have it weighted (or
// the file has no weights), KNN exactly when weighted.
func (m *committee) checkUnseen() error {
	wantIAPP := len(m.Unseen) > 0
	wantKNN := false
	if w := m.UnseenWeights; w != nil {
		if len(m.Unseen) == 0 {
			return errors.New("committee: unseen_weights without an unseen job")
		}
		if len(w) != len(unseenCandidates) {
			return fmt.Errorf("committee: %d unseen_weights, want %d (%v)", len(w), len(unseenCandidates), unseenCandidates)
		}
		sum := 0.0
		for i, v := range w {
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("committee: unseen weight of %s is %v, outside [0, 1]", unseenCandidates[i], v)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-9 {
			return fmt.Errorf("committee: unseen_weights sum to %v, not 1", sum)
		}
		wantIAPP, wantKNN = w[0] > 0, w[3] > 0
	}
	switch {
	case wantIAPP && m.IAPP == nil:
		return fmt.Errorf("committee: %d unseen jobs weigh iapp but the file has no iapp", len(m.Unseen))
	case !wantIAPP && m.IAPP != nil:
		return errors.New("committee: iapp present but no unseen job weighs it")
	case m.IAPP == nil && len(m.MoreIAPP) > 0:
		return errors.New("committee: iapp_more without iapp")
	case wantKNN && m.KNN == nil:
		return errors.New("committee: unseen_weights weigh knn but the file has no knn")
	case !wantKNN && m.KNN != nil:
		return errors.New("committee: knn present but not weighted")
	}
	return nil
}
