package sampler

import (
	"errors"
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// DetectOptions configures Detect. The zero value is the default.
type DetectOptions struct {
	// NoGPU skips NVML even where it works (the host sampler only).
	NoGPU bool
	NVML  NVMLOptions
	Host  HostOptions
}

// Detection is what Detect found: the samplers to use on this machine and
// why any is missing. Close it when done (it shuts NVML down).
type Detection struct {
	// NVML is nil when NVML is unavailable or was not asked for; the
	// reason is then in GPUReason.
	NVML *NVMLSampler
	// GPUReason says why there is no GPU sampler ("" when there is one).
	GPUReason string
	// Host is nil only when the proc root cannot be read (not Linux).
	Host *HostSampler
	// Devices lists the GPUs found (empty without NVML).
	Devices []Device
	// System is the driver NVML talks to (zero without NVML).
	System System
	// Warnings are problems that do not stop the work, e.g. no GPU.
	Warnings []string
}

// Detect opens the samplers this machine supports: NVML through lib when
// lib is not nil and lib.Init works, and the host sampler always. When
// NVML is unavailable the reason becomes a warning and the GPU sampler is
// left out; NVML is then not called again. lib is nvml.New() in the
// binary; profile never constructs it, so tests pass a mock.
func Detect(lib nvml.Interface, opts DetectOptions) *Detection {
	d := &Detection{}
	switch {
	case opts.NoGPU:
		d.GPUReason = "GPU sampling turned off"
	case lib == nil:
		d.GPUReason = "no NVML library given"
	default:
		s, err := OpenNVML(lib, opts.NVML)
		if err != nil {
			d.GPUReason = err.Error()
			var ie *InitError
			if !errors.As(err, &ie) && !errors.Is(err, ErrNoDevices) {
				d.GPUReason = "NVML: " + d.GPUReason
			}
			d.Warnings = append(d.Warnings, "no GPU counters: "+d.GPUReason)
			break
		}
		d.NVML, d.Devices, d.System = s, s.Devices(), s.System()
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

// Samplers returns the samplers found: NVML first when present, then the
// host sampler; a NullSampler when there is neither.
func (d *Detection) Samplers() []Sampler {
	var out []Sampler
	if d.NVML != nil {
		out = append(out, d.NVML)
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
	if d.NVML != nil {
		errs = append(errs, d.NVML.Close())
	}
	if d.Host != nil {
		errs = append(errs, d.Host.Close())
	}
	return errors.Join(errs...)
}
