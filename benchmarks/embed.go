// Package benchmarks is what coloc runs: the suite files (suites/*.yaml) and
// the workload scripts (workloads/*.py). The Go code that runs them lives in
// package profile; this package only carries the files the binary embeds.
package benchmarks

import _ "embed"

// TorchrunCompat is workloads/torchrun_compat.py: torch's own launcher
// (torch.distributed.run) behind a fix for torch < 2.0 on Python >= 3.11,
// where `python -m torch.distributed.run` dies before starting any worker.
// The binary carries it so that scale runs work for any suite, wherever its
// scripts live. Callers must not modify the slice.
//
//go:embed workloads/torchrun_compat.py
var TorchrunCompat []byte
