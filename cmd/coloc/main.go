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

	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/internal/interrupt"
)

func main() {
	ctx, stop := interrupt.Notify(context.Background())
	err := runEnv(ctx, &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, openGPU: defaultOpenGPU, halt: atomicfile.Stop}, os.Args[1:])
	stop()
	if err != nil {
		var ec exitCoder
		if !errors.As(err, &ec) || ec.Error() != "" {
			fmt.Fprintln(os.Stderr, "coloc:", err)
		}
		if s, ok := interrupt.Cause(ctx); ok {
			os.Exit(s.ExitCode()) // 130 or 143, whatever the command made of it
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
