//go:build !linux

package profile

import "syscall"

// workloadAttr starts a workload in a process group of its own; only Linux
// has a parent-death signal.
func workloadAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
