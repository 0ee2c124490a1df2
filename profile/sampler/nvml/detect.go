package nvml

import (
	"errors"
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/coloc-dev/coloc/profile/sampler"
)

// Opener returns the sampler.OpenGPU that opens NVML through lib with
// opts. lib nil (no library to reach) gives a nil opener, which Detect
// reports as no GPU sampler. An error other than an InitError or
// ErrNoDevices is prefixed with "NVML: " so the reason names its source.
func Opener(lib nvml.Interface, opts Options) sampler.OpenGPU {
	if lib == nil {
		return nil
	}
	return func() (sampler.GPU, error) {
		s, err := Open(lib, opts)
		if err != nil {
			var ie *InitError
			if !errors.As(err, &ie) && !errors.Is(err, ErrNoDevices) {
				return nil, fmt.Errorf("NVML: %w", err)
			}
			return nil, err
		}
		return s, nil
	}
}
