// Package profile holds the samplers that read hardware and host counters
// while workloads run (NVML device, per-process and GPM counters; /proc CPU
// time and RSS), the recorder that turns their readings into a samples
// table, and the Nsight Compute CSV import.
package profile
