// Command coloc profiles deep-learning training workloads on GPUs, solo and
// co-located, learns how they interfere, and exports what it learned as a
// policy that cluster schedulers consume. Run `coloc --help` for the
// commands; README.md walks through the pipeline.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		var ec exitCoder
		if !errors.As(err, &ec) || ec.Error() != "" {
			fmt.Fprintln(os.Stderr, "coloc:", err)
		}
		os.Exit(exitCode(err))
	}
}

// exitCoder is an error that chooses the process exit status.
type exitCoder interface {
	error
	ExitCode() int
}

// exitError carries an exit status; an empty message prints nothing (the
// command already reported what went wrong).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }
func (e *exitError) ExitCode() int { return e.code }

func exitCode(err error) int {
	var ec exitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return 1
}
