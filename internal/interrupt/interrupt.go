// Package interrupt is how coloc stops when it is told to: SIGINT (Ctrl-C)
// or SIGTERM (a batch system's preemption, `timeout`, `kill`).
//
// The first signal cancels the command's context, with a *Signal as the
// context's cause, and gives both signals back their default action, so a
// second one ends the process at once. The command then stops within a
// second: work that watches its context (a profiling campaign, which stops
// its workloads and keeps every finished run) returns by itself; any other
// work is left behind by Run, after the caller's halt has made sure it can
// change nothing more (atomicfile.Stop: the commit in progress finishes,
// later ones are refused, temporary files are removed). The process exits
// with 128 plus the signal's number (130 for SIGINT, 143 for SIGTERM), the
// status shells and batch systems give a process a signal ended.
//
// Command.Do puts a command's work under these rules, and locks its
// outputs while it runs (internal/outlock).
package interrupt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/internal/outlock"
)

// Signal is the cause of a context cancelled by a signal.
type Signal struct{ Sig syscall.Signal }

// Error names the signal: "interrupted by SIGTERM".
func (s *Signal) Error() string { return "interrupted by " + s.Name() }

// Name is the signal's conventional name: SIGINT (Ctrl-C), SIGTERM, ...
func (s *Signal) Name() string {
	switch s.Sig {
	case syscall.SIGINT:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return "signal " + s.Sig.String()
}

// ExitCode is 128 plus the signal's number.
func (s *Signal) ExitCode() int { return 128 + int(s.Sig) }

// Notify returns a context that the first SIGINT or SIGTERM cancels with a
// *Signal as its cause; from then on both signals have their default
// action again, so a second one ends the process. stop releases the
// signals (and cancels the context).
func Notify(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			signal.Reset(syscall.SIGINT, syscall.SIGTERM)
			cancel(&Signal{Sig: s.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(context.Canceled)
	}
}

// Cause returns the signal that cancelled ctx, if a signal did.
func Cause(ctx context.Context) (*Signal, bool) {
	var s *Signal
	ok := errors.As(context.Cause(ctx), &s)
	return s, ok
}

// Run runs fn and returns its error, done true. When ctx is done first, it
// calls halt (when not nil), which must keep fn from changing anything from
// then on, and returns at once with done false, leaving fn behind: the
// process is about to exit. If fn has returned by the time halt has and
// succeeded, its work is whole: Run returns nil, done true.
func Run(ctx context.Context, fn func() error, halt func()) (err error, done bool) {
	result := make(chan error, 1)
	go func() { result <- fn() }()
	select {
	case err := <-result:
		return err, true
	case <-ctx.Done():
	}
	if halt != nil {
		halt()
	}
	select {
	case err := <-result:
		if err == nil {
			return nil, true
		}
	default:
	}
	return ctx.Err(), false
}

// CommandLine is args as one line a POSIX shell runs as the same command:
// an argument of only letters, digits and - _ . / : = + , @ % is left bare,
// any other is single-quoted.
func CommandLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@%") == "" {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// Command is one run of a command's work under this package's rules.
type Command struct {
	// Name is the command as its user knows it ("coloc fit").
	Name string
	// Args is the whole command line, program first, for the rerun the
	// message of a stop names.
	Args []string
	// Outputs are the files and directories the work writes; each is
	// locked while it runs (outlock.Output), so a second writer of one of
	// them is refused, naming this process.
	Outputs []string
	// StopsItself says the work watches its context and returns soon
	// after it is done, having left things as it wants them: it is waited
	// for, never left behind.
	StopsItself bool
	// Halt keeps work left behind from changing anything (atomicfile.Stop
	// in the coloc binary; nil where the process goes on, as in tests).
	Halt func()
}

// Do runs work under ctx. A context already done runs nothing; otherwise
// the outputs are locked, and when ctx is done before work returns (and
// work does not stop itself), Do halts it and returns at once an error
// that says what stopped it, whether anything was written, and what to
// rerun.
func (c Command) Do(ctx context.Context, work func() error) error {
	commits := atomicfile.Commits()
	if ctx.Err() != nil {
		return c.stopped(ctx, commits)
	}
	for _, out := range c.Outputs {
		l, err := outlock.Output(out, outlock.Options{What: out, Fix: "choose another output"})
		if err != nil {
			return err
		}
		defer l.Unlock()
	}
	if c.StopsItself {
		return work()
	}
	err, done := Run(ctx, work, c.Halt)
	if !done {
		return c.stopped(ctx, commits)
	}
	return err
}

// stopped is the error of work a signal (or a cancelled context) stopped.
func (c Command) stopped(ctx context.Context, commits int) error {
	wrote := "it wrote nothing, its outputs are as they were"
	if n := atomicfile.Commits() - commits; n > 0 {
		wrote = fmt.Sprintf("it had written %d outputs whole, the others are as they were", n)
	}
	why := "stopped"
	if s, ok := Cause(ctx); ok {
		why = "stopped by " + s.Name()
	}
	return &Stopped{Err: context.Cause(ctx), msg: fmt.Sprintf("%s %s before it finished; %s; to do it all, rerun: %s", c.Name, why, wrote, CommandLine(c.Args))}
}

// Stopped is the error of a command stopped before it finished; it
// unwraps to the context's cause (a *Signal, or context.Canceled).
type Stopped struct {
	Err error
	msg string
}

func (s *Stopped) Error() string { return s.msg }
func (s *Stopped) Unwrap() error { return s.Err }
