package policies

import (
	"errors"
	"fmt"

	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/sim"
)

// ColocRule returns coloc: the completion-time rule (Rule) with the
// measured solo rates and the node-level model's (IAPP) predicted
// normalized throughputs of the pairs the simulator allows (View.CanShare).
// A multi-GPU pair whose rates the simulator assumes (View.Assumed) is
// predicted as it is rated: by the prediction on one GPU of the type.
func ColocRule(solo sim.Rates, m *place.Models, d Durations, minNormalized float64) *Rule {
	pair := func(v *sim.View, w, q string, sh sim.Shape) (float64, bool) {
		if !v.CanShare(w, q, sh) {
			return 0, false
		}
		if sh.GPUs > 1 && v.Assumed(w, q, sh) {
			return m.Predict(place.NodeLevel, w, q, sh.GPUType, 1)
		}
		return m.Predict(place.NodeLevel, w, q, sh.GPUType, sh.GPUs)
	}
	return NewRule("coloc", solo, pair, d, minNormalized)
}

// OracleRule returns the oracle: the same rule with the simulator's
// measured solo and co-located rates.
func OracleRule(truth sim.Rates, d Durations, minNormalized float64) *Rule {
	pair := func(_ *sim.View, w, q string, sh sim.Shape) (float64, bool) {
		co, ok := truth.Colocated(w, q, sh)
		s, ok2 := truth.Solo(w, sh)
		if !ok || !ok2 || !(co > 0) || !(s > 0) {
			return 0, false
		}
		return co / s, true
	}
	return NewRule("oracle", sim.SoloOnly(truth), pair, d, minNormalized)
}

// newColoc builds coloc from the simulator's environment.
func newColoc(e sim.Env) (sim.Policy, error) {
	if e.Models == "" {
		return nil, errors.New("policy coloc needs --models, a directory written by 'coloc fit' (with iasp and iapp)")
	}
	m, err := place.LoadModels(e.Models, place.DefaultModelNames)
	if err != nil {
		return nil, fmt.Errorf("policy coloc: %w", err)
	}
	if err := decideOn(m, e.Decide); err != nil {
		return nil, fmt.Errorf("policy coloc: %w", err)
	}
	d, err := ParseDurations(e.Durations)
	if err != nil {
		return nil, err
	}
	r := ColocRule(e.Solo, m, d, e.MinNormalized)
	return r, r.SetOrder(e.Order)
}

func newOracle(e sim.Env) (sim.Policy, error) {
	if e.Truth == nil {
		return nil, errors.New("policy oracle needs the simulator's ground truth")
	}
	d, err := ParseDurations(e.Durations)
	if err != nil {
		return nil, err
	}
	r := OracleRule(e.Truth, d, e.MinNormalized)
	return r, r.SetOrder(e.Order)
}
