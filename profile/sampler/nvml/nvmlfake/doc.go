// Package nvmlfake scripts go-nvml's DGX mock servers (pkg/nvml/mock) so
// code that samples NVML can be tested, and run end to end, without a GPU.
// Every counter is a known function of a tick the caller advances and of
// the device index (see Fake.Script), and NVML errors can be injected at
// chosen ticks. It stubs every call coloc's NVML sampler makes that the
// DGX mocks leave unset (utilisation, clocks, power, per-process, GPM).
//
// It sits beside package profile for tests only: the coloc binary never
// imports it. The harness can use it to run a campaign end to end on a
// machine without a GPU.
package nvmlfake
