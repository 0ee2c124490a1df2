//go:build cgo

package main

import (
	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/coloc-dev/coloc/profile/sampler"
	"github.com/coloc-dev/coloc/profile/sampler/nvml"
)

// newNVML is how coloc reaches the NVIDIA driver: the one place the real
// library is constructed. Tests replace it with a scripted mock.
var newNVML = func() gonvml.Interface { return gonvml.New() }

// openGPU is this build's GPU sampler: NVML, reached through go-nvml's
// cgo bindings. This file and nogpu.go are the binary's only tie to cgo;
// every other package builds with CGO_ENABLED=0.
func openGPU() sampler.OpenGPU { return nvml.Opener(newNVML(), nvml.DefaultOptions) }
