//go:build !cgo

package main

import (
	"errors"

	"github.com/coloc-dev/coloc/profile/sampler"
)

// defaultOpenGPU is the GPU sampler of a build without cgo: there is none, since
// NVML is reached through cgo. Profiling still records the host counters.
func defaultOpenGPU() sampler.OpenGPU {
	return func() (sampler.GPU, error) {
		return nil, errors.New("this coloc was built with CGO_ENABLED=0, without NVML")
	}
}
