package sampler

import (
	"errors"
	"fmt"
)

// GPU is a device sampler that can describe the devices it reads: the
// NVML sampler (package profile/sampler/nvml), or a fake in tests.
type GPU interface {
	Sampler
	// Devices lists the GPUs the sampler reads, by index.
	Devices() []Device
	// System is the driver the sampler talks to.
	System() System
}

// OpenGPU opens the GPU sampler of a machine, or says why there is none.
// The binary passes the NVML opener (nvml.Opener) when built with cgo and
// one that says it has no NVML otherwise; Detect then goes on with the
// host sampler only.
type OpenGPU func() (GPU, error)

// DetectOptions configures Detect. The zero value is the default.
type DetectOptions struct {
	// NoGPU skips the GPU sampler even where it works (the host sampler
	// only); the opener is then not called at all.
	NoGPU bool
	Host  HostOptions
}

// Detection is what Detect found: the samplers to use on this machine and
// why any is missing. Close it when done (it shuts NVML down).
type Detection struct {
	// GPU is nil when no GPU sampler could be opened or none was asked
	// for; the reason is then in GPUReason.
	GPU GPU
	// GPUReason says why there is no GPU sampler ("" when there is one).
	GPUReason string
	// Host is nil only when the proc root cannot be read (not Linux).
	Host *HostSampler
	// Devices lists the GPUs found (empty without a GPU sampler).
	Devices []Device
	// System is the driver the GPU sampler talks to (zero without one).
	System System
	// Warnings are problems that do not stop the work, e.g. no GPU.
	Warnings []string
}

// Detect opens the samplers this machine supports: the GPU sampler through
// open when open is not nil and succeeds, and the host sampler always.
// When the GPU sampler cannot be opened the reason becomes a warning and
// it is left out; open is called at most once.
func Detect(open OpenGPU, opts DetectOptions) *Detection {
	d := &Detection{}
	switch {
	case opts.NoGPU:
		d.GPUReason = "GPU sampling turned off"
	case open == nil:
		d.GPUReason = "no GPU sampler given"
	default:
		s, err := open()
		if err != nil {
			d.GPUReason = err.Error()
			d.Warnings = append(d.Warnings, "no GPU counters: "+d.GPUReason)
			break
		}
		d.GPU, d.Devices, d.System = s, s.Devices(), s.System()
		for _, dev := range d.Devices {
			for _, n := range dev.Notes {
				d.Warnings = append(d.Warnings, fmt.Sprintf("device %d: %s", dev.Index, n))
			}
		}
	}
	h, err := NewHostSampler(opts.Host)
	if err != nil {
		d.Warnings = append(d.Warnings, "no host counters: "+err.Error())
	} else {
		d.Host = h
	}
	return d
}

// Samplers returns the samplers found: the GPU sampler first when present,
// then the host sampler; a NullSampler when there is neither.
func (d *Detection) Samplers() []Sampler {
	var out []Sampler
	if d.GPU != nil {
		out = append(out, d.GPU)
	}
	if d.Host != nil {
		out = append(out, d.Host)
	}
	if len(out) == 0 {
		out = append(out, NullSampler{})
	}
	return out
}

// Close closes every sampler found.
func (d *Detection) Close() error {
	var errs []error
	if d.GPU != nil {
		errs = append(errs, d.GPU.Close())
	}
	if d.Host != nil {
		errs = append(errs, d.Host.Close())
	}
	return errors.Join(errs...)
}
