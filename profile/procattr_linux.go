package profile

import "syscall"

// workloadAttr starts a workload in a process group of its own (stopped
// as a whole) with SIGKILL as its parent-death signal: a campaign killed
// with SIGKILL takes its workloads with it. (The kernel sends the signal
// when the thread that started the workload exits; the Go runtime ends a
// thread only when a goroutine exits with the thread locked to it, which
// no code of the campaign does.)
func workloadAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
