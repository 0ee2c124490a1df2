package model

import (
	"fmt"
	"math"
	"strings"
)

// Model predicts the normalized throughput of job A next to job B on a
// slot. A model is fit once on a Train and then answers Predict for any
// jobs and slot of the Train's space, including jobs it saw in no pair
// (from their features). Implementations are deterministic: the same Train
// and seed give the same predictions and the same model file bytes.
type Model interface {
	Name() string
	Fit(t *Train) error
	Predict(a, b, s int) float64
}

// binder is implemented by every model of this package: after loading a
// model file the frame is bound again.
type binder interface{ bind(f *Frame) }

// framed is embedded by models; it keeps the frame a model predicts in.
type framed struct{ f *Frame }

func (m *framed) bind(f *Frame) { m.f = f }

// Frame returns the frame the model was fit (or loaded) in.
func (m *framed) Frame() *Frame { return m.f }

// Hyper is implemented by models with hyper-parameters; they are recorded
// in the model file's provenance.
type Hyper interface{ Hyper() any }

var registry = []struct {
	name string
	doc  string
	make func() Model
	// extra marks the models StandardNames leaves out: several times
	// slower to fit than the others, or (rlfm) not better than iasp on
	// Gavel, where the report's defaults are measured.
	extra bool
}{
	{"mean", "the mean normalized throughput of the slot", func() Model { return newMean() }, false},
	{"bias", "global + row (victim) + column (aggressor) effects, ridge", func() Model { return newBias(defaultBiasOptions) }, false},
	{"pmf", "low-rank matrix factorization of jobs x (slot, partner), as in Gavel's estimator", func() Model { return newPMF(defaultPMFOptions) }, false},
	{"rlfm", "regression-based latent factors: pmf's layout with each job's factors drawn around what its features predict (variational EM)", func() Model { return newRLFM(defaultRLFMOptions) }, true},
	{"knn", "k nearest observed pairs in feature space", func() Model { return newKNN(defaultKNNOptions) }, false},
	{"linear", "ridge regression on the features of both jobs", func() Model { return newLinear(defaultLinearOptions) }, false},
	{"tree", "CART regression tree on the features of both jobs", func() Model { return newTree(defaultTreeOptions) }, false},
	{"gbt", "gradient-boosted regression trees on the features and identities of both jobs", func() Model { return newGBT(defaultGBTOptions) }, true},
	{"gbt-sums", "gbt with each feature's sum over the pair in its input too: the trees of the stack and the committee, alone", func() Model { return newGBT(memberGBTOptions) }, true},
	{"forest", "random forest of regression trees on the features and identities of both jobs", func() Model { return newForest(defaultForestOptions) }, true},
	{"iapp", "IAPP: feed-forward network on the features of both jobs and the slot", func() Model { return newIAPP(defaultIAPPOptions) }, false},
	{"iasp", "IASP: deep collaborative filtering (GMF + MLP) with side features", func() Model { return NewIASP(DefaultIASPOptions) }, false},
	{"stack", "IASP and GBT (reading the pair's summed features too) blended with a weight chosen on validation (IASP alone when the trees do not help)", func() Model { return newStack() }, true},
	{"committee", "the mean of IASP (5 fits averaged), RLFM and GBT (reading the pair's summed features too), three models that err differently, no weight to choose; for a job with no training pair, a blend of IAPP, RLFM, GBT and KNN weighted on the fit's own pairs with each job hidden in turn", func() Model { return newCommittee() }, true},
	{"similarity", "model similarity: normalized throughputs of the nearest profiled models", func() Model { return NewSimilarity(DefaultSimilarityOptions) }, false},
}

// Names lists every model, baselines first.
func Names() []string {
	out := make([]string, len(registry))
	for i, r := range registry {
		out[i] = r.name
	}
	return out
}

// StandardNames lists every model but the tree ensembles, the stack and
// the committee, which take several times longer to fit, and rlfm, which does not beat
// iasp on Gavel: what `coloc report` evaluates and fits by default.
func StandardNames() []string {
	var out []string
	for _, r := range registry {
		if !r.extra {
			out = append(out, r.name)
		}
	}
	return out
}

// Describe returns a one-line description of a model.
func Describe(name string) string {
	for _, r := range registry {
		if r.name == name {
			return r.doc
		}
	}
	return ""
}

// New returns an unfitted model with default options.
func New(name string) (Model, error) {
	for _, r := range registry {
		if r.name == name {
			return r.make(), nil
		}
	}
	return nil, fmt.Errorf("unknown model %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// ParseNames splits a comma-separated list of model names ("" or "all":
// every model) and checks each.
func ParseNames(list string) ([]string, error) {
	if list == "" || list == "all" {
		return Names(), nil
	}
	var out []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if _, err := New(n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// chooseByValidation fits one model per candidate on a validation split of
// t (a fifth of its pairs) and returns the candidate with the lowest
// validation MAE. With fewer than minValidate pairs it returns def. Only
// training pairs are used: test pairs never choose a hyper-parameter.
func chooseByValidation(t *Train, n, def int, fit func(i int, tr *Train) (Model, error)) int {
	const minValidate = 10
	if n <= 1 || len(t.Obs) < minValidate {
		return def
	}
	tr, val := splitObs(t.Obs, 0.2, rng(t.Seed, 0x7a1d))
	sub := &Train{Frame: t.Frame, Obs: tr, Seed: t.Seed}
	best, bestErr := def, math.Inf(1)
	for i := 0; i < n; i++ {
		m, err := fit(i, sub)
		if err != nil {
			continue
		}
		if e := mae(m, val); e < bestErr {
			best, bestErr = i, e
		}
	}
	return best
}
