package interrupt

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// The first signal cancels the context with the signal as its cause (exit
// status 128+n); the second ends the process by the signal's default
// action, though the process is stuck and never returns.
func TestNotify(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			child := exec.Command(os.Args[0], "-test.run=^TestNotifyChild$")
			child.Env = append(os.Environ(), "INTERRUPT_CHILD=1")
			out, err := child.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := child.Start(); err != nil {
				t.Fatal(err)
			}
			defer child.Process.Kill()
			r := bufio.NewReader(out)
			line := func() string {
				s, err := r.ReadString('\n')
				if err != nil {
					t.Fatalf("child: %q, %v", s, err)
				}
				return strings.TrimSpace(s)
			}
			if l := line(); l != "ready" {
				t.Fatalf("child says %q, want ready", l)
			}
			child.Process.Signal(c.sig)
			want := fmt.Sprintf("cancelled: interrupted by %s, exit status %d", (&Signal{c.sig}).Name(), c.code)
			if l := line(); l != want {
				t.Fatalf("child says %q, want %q", l, want)
			}
			child.Process.Signal(c.sig)
			err = child.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("child after the second signal: %v", err)
			}
			ws := ee.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != c.sig {
				t.Errorf("child ended with %v, want killed by %v", ws, c.sig)
			}
		})
	}
}

// TestNotifyChild is TestNotify's child: it waits for the first signal,
// says what it saw and then never returns.
func TestNotifyChild(t *testing.T) {
	if os.Getenv("INTERRUPT_CHILD") == "" {
		t.Skip("run by TestNotify in a child process")
	}
	ctx, stop := Notify(context.Background())
	defer stop()
	fmt.Println("ready")
	<-ctx.Done()
	s, ok := Cause(ctx)
	if !ok {
		fmt.Println("cancelled without a signal:", context.Cause(ctx))
		os.Exit(1)
	}
	fmt.Printf("cancelled: %v, exit status %d\n", s, s.ExitCode())
	select {} // stuck: only the second signal ends it
}

// Run returns fn's result when fn finishes first; when the context is done
// first it halts and returns without waiting for fn, unless fn finished
// its work while halt ran.
func TestRun(t *testing.T) {
	boom := errors.New("boom")
	if err, done := Run(context.Background(), func() error { return boom }, nil); err != boom || !done {
		t.Errorf("fn first: %v, %v", err, done)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	release := make(chan struct{})
	defer close(release)
	halted := false
	go cancel(&Signal{Sig: syscall.SIGTERM})
	err, done := Run(ctx, func() error { <-release; return nil }, func() { halted = true })
	if done || !errors.Is(err, context.Canceled) || !halted {
		t.Errorf("context first: %v, done %v, halted %v; want context.Canceled, not done, halted", err, done, halted)
	}
	if s, ok := Cause(ctx); !ok || s.ExitCode() != 143 {
		t.Errorf("cause %v", context.Cause(ctx))
	}
	finished := make(chan struct{})
	err, done = Run(ctx, func() error { defer close(finished); return nil }, func() { <-finished })
	if err != nil || !done {
		t.Errorf("finished while halting: %v, %v; want nil, done", err, done)
	}
}

func TestCommandLine(t *testing.T) {
	got := CommandLine([]string{"coloc", "fit", "--data", "my data", "-o", "it's", ""})
	want := `coloc fit --data 'my data' -o 'it'\''s' ''`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
