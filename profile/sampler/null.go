package sampler

import "github.com/coloc-dev/coloc/datasets"

// NullSampler reads nothing: it stands in for the GPU sampler on a machine
// without one, so code that takes a Sampler never needs a nil check.
type NullSampler struct{}

// Name implements Sampler.
func (NullSampler) Name() string { return "null" }

// Counters implements Sampler: none.
func (NullSampler) Counters() []datasets.Counter { return nil }

// Sample implements Sampler: no readings, no error.
func (NullSampler) Sample(Target) ([]Reading, error) { return nil, nil }

// Close implements Sampler.
func (NullSampler) Close() error { return nil }
