package model

import "fmt"

// The check methods verify, after a model file is decoded, that the
// learned state fits the file's space, so that a damaged or hand-edited
// file fails on load instead of panicking in Predict.

func sizeErr(what string, got, want int) error {
	return fmt.Errorf("%s has %d entries, the space needs %d", what, got, want)
}

func (m *mean) check(f *Frame) error {
	if len(m.SlotMean) != len(f.Slots) {
		return sizeErr("slot_mean", len(m.SlotMean), len(f.Slots))
	}
	return nil
}

func (m *bias) check(f *Frame) error {
	switch {
	case len(m.Mu) != len(f.Slots):
		return sizeErr("mu", len(m.Mu), len(f.Slots))
	case len(m.Row) != len(f.Jobs) || len(m.Col) != len(f.Jobs):
		return sizeErr("row/col", min(len(m.Row), len(m.Col)), len(f.Jobs))
	}
	return nil
}

func (m *pmf) check(f *Frame) error {
	nj := len(f.Jobs)
	switch {
	case len(m.Mean) != len(f.Slots):
		return sizeErr("slot_mean", len(m.Mean), len(f.Slots))
	case len(m.U) != nj:
		return sizeErr("u", len(m.U), nj)
	case len(m.V) != nj*len(f.Slots):
		return sizeErr("v", len(m.V), nj*len(f.Slots))
	}
	for _, v := range append(append([][]float64(nil), m.U...), m.V...) {
		if v != nil && len(v) != m.Rank {
			return sizeErr("a factor", len(v), m.Rank)
		}
	}
	return nil
}

func checkObs(obs []Obs, f *Frame) error {
	for i, o := range obs {
		if o.A < 0 || o.A >= len(f.Jobs) || o.B < 0 || o.B >= len(f.Jobs) || o.S < 0 || o.S >= len(f.Slots) {
			return fmt.Errorf("observation %d is out of the space", i+1)
		}
	}
	return nil
}

func (m *knnModel) check(f *Frame) error {
	if m.K < 1 {
		return fmt.Errorf("k is %d", m.K)
	}
	return checkObs(m.Obs, f)
}

func (m *linear) check(f *Frame) error {
	if len(m.W) != pairDim(f) {
		return sizeErr("w", len(m.W), pairDim(f))
	}
	return nil
}

func (m *tree) check(f *Frame) error {
	if m.Root == nil {
		return fmt.Errorf("tree has no root")
	}
	var walk func(n *treeNode) error
	walk = func(n *treeNode) error {
		if n == nil {
			return nil
		}
		if n.Feature < 0 || int(n.Feature) >= pairDim(f) {
			return fmt.Errorf("tree splits on feature %d of %d", n.Feature, pairDim(f))
		}
		if err := walk(n.Left); err != nil {
			return err
		}
		return walk(n.Right)
	}
	return walk(m.Root)
}

func (m *iappModel) check(f *Frame) error {
	if len(m.Sizes) < 2 || m.Sizes[0] != pairDim(f) || m.Sizes[len(m.Sizes)-1] != 1 {
		return fmt.Errorf("network sizes %v do not fit %d inputs", m.Sizes, pairDim(f))
	}
	if n := newMLP(m.Sizes).nParams(); len(m.W) != n {
		return sizeErr("w", len(m.W), n)
	}
	return nil
}

func (m *IASP) check(f *Frame) error {
	if m.Opts.Dim < 1 || m.Opts.Hidden < 1 {
		return fmt.Errorf("dim and hidden must be positive")
	}
	l := newIASPLayout(len(f.Jobs), len(f.Slots), f.Dim(), m.Opts.Dim, m.Opts.Hidden)
	if len(m.Theta) != l.size {
		return sizeErr("theta", len(m.Theta), l.size)
	}
	return nil
}

func (m *Similarity) check(f *Frame) error {
	if err := ValidDistance(m.Opts.Distance); err != nil {
		return err
	}
	if len(m.Lo) != len(f.Desc.Numeric) || len(m.Hi) != len(f.Desc.Numeric) {
		return sizeErr("lo/hi", len(m.Lo), len(f.Desc.Numeric))
	}
	for _, r := range m.Refs {
		if r < 0 || r >= len(f.Jobs) {
			return fmt.Errorf("reference %d is out of the space", r)
		}
	}
	return checkObs(m.Obs, f)
}
