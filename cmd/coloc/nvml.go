//go:build cgo

package main

import (
	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/coloc-dev/coloc/profile/sampler"
	"github.com/coloc-dev/coloc/profile/sampler/nvml"
)

// defaultOpenGPU is this build's GPU sampler: NVML, reached through
// go-nvml's cgo bindings, the one place the real library is constructed.
// This file and nogpu.go are the binary's only tie to cgo; every other
// package builds with CGO_ENABLED=0.
func defaultOpenGPU() sampler.OpenGPU { return nvmlOpener(gonvml.New()) }

// nvmlOpener opens the GPUs through lib: the driver, or a mock in tests.
func nvmlOpener(lib gonvml.Interface) sampler.OpenGPU {
	return nvml.Opener(lib, nvml.DefaultOptions)
}
