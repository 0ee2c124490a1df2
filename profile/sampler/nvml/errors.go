package nvml

import (
	"errors"
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// InitError is returned by Open (and reported by Detect) when
// nvml.Init fails. After it, the library was not and will not be called
// again: calling NVML after a failed Init can kill the process.
type InitError struct {
	Ret nvml.Return
}

func (e *InitError) Error() string {
	why := ""
	switch e.Ret {
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		why = " (libnvidia-ml.so.1 not found: no NVIDIA driver on this machine)"
	case nvml.ERROR_DRIVER_NOT_LOADED:
		why = " (the NVIDIA kernel driver is not loaded)"
	case nvml.ERROR_NO_PERMISSION:
		why = " (no permission to open the GPU device files)"
	case nvml.ERROR_LIB_RM_VERSION_MISMATCH:
		why = " (driver library and kernel module versions differ: reboot or reload the driver)"
	}
	return "NVML init failed: " + retName(e.Ret) + why
}

// ErrNoDevices is returned by Open when NVML works but finds no GPU.
var ErrNoDevices = errors.New("NVML found no GPU")

// errClosed is returned by Sample after Close.
var errClosed = errors.New("nvml sampler is closed")

// retName names an NVML return code without calling into NVML (after a
// failed Init even nvmlErrorString must not be called).
func retName(r nvml.Return) string {
	switch r {
	case nvml.SUCCESS:
		return "SUCCESS"
	case nvml.ERROR_UNINITIALIZED:
		return "ERROR_UNINITIALIZED"
	case nvml.ERROR_INVALID_ARGUMENT:
		return "ERROR_INVALID_ARGUMENT"
	case nvml.ERROR_NOT_SUPPORTED:
		return "ERROR_NOT_SUPPORTED"
	case nvml.ERROR_NO_PERMISSION:
		return "ERROR_NO_PERMISSION"
	case nvml.ERROR_NOT_FOUND:
		return "ERROR_NOT_FOUND"
	case nvml.ERROR_INSUFFICIENT_SIZE:
		return "ERROR_INSUFFICIENT_SIZE"
	case nvml.ERROR_DRIVER_NOT_LOADED:
		return "ERROR_DRIVER_NOT_LOADED"
	case nvml.ERROR_TIMEOUT:
		return "ERROR_TIMEOUT"
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		return "ERROR_LIBRARY_NOT_FOUND"
	case nvml.ERROR_FUNCTION_NOT_FOUND:
		return "ERROR_FUNCTION_NOT_FOUND"
	case nvml.ERROR_GPU_IS_LOST:
		return "ERROR_GPU_IS_LOST"
	case nvml.ERROR_RESET_REQUIRED:
		return "ERROR_RESET_REQUIRED"
	case nvml.ERROR_LIB_RM_VERSION_MISMATCH:
		return "ERROR_LIB_RM_VERSION_MISMATCH"
	case nvml.ERROR_IN_USE:
		return "ERROR_IN_USE"
	case nvml.ERROR_MEMORY:
		return "ERROR_MEMORY"
	case nvml.ERROR_UNKNOWN:
		return "ERROR_UNKNOWN"
	}
	return fmt.Sprintf("NVML error %d", int32(r))
}
