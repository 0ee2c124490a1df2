package profile

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestTailBuffer(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		tail   string
		oom    bool
	}{
		{"short", []string{"a\n", "b\n"}, "a\nb", false},
		{"cut at a line", []string{strings.Repeat("x", 30) + "\n", "line two\n", "line three\n"}, "line two\nline three", false},
		{"marker split across writes", []string{"RuntimeError: CUDA out of me", "mory. Tried\n"}, "DA out of memory. Tried", true},
		{"marker in an endless line", []string{strings.Repeat("\r50%", 2000), "\rCUDA out of memory"}, "", true},
	}
	for _, tc := range tests {
		tb := &tailBuffer{max: 24} // keeps the last 24 bytes, from a line start when it can
		for _, w := range tc.writes {
			if n, err := tb.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("%s: Write = %d, %v", tc.name, n, err)
			}
		}
		if tc.tail != "" && tb.String() != tc.tail {
			t.Errorf("%s: tail %q, want %q", tc.name, tb.String(), tc.tail)
		}
		if tb.oom != tc.oom {
			t.Errorf("%s: oom %v, want %v", tc.name, tb.oom, tc.oom)
		}
		if tb.partial.Len() > 4096+len(oomMarker) {
			t.Errorf("%s: partial line grew to %d bytes", tc.name, tb.partial.Len())
		}
	}
}

// TestStoppedFromOutside: a run whose workload ends by a SIGTERM that coloc
// did not send, while coloc is not being stopped, is recorded as failed
// (after stopGrace), and the signal is told apart from an exit status and
// from the group's own kill at the timeout.
func TestStoppedFromOutside(t *testing.T) {
	ctx := context.Background()
	g := group{KillGrace: time.Second}
	exits, err := g.run(ctx, []command{{Label: "self-term", Argv: []string{"sh", "-c", "kill -TERM $$"}}})
	if err != nil {
		t.Fatalf("run: %v, want the exit recorded (coloc was not stopped)", err)
	}
	if len(exits) != 1 || exits[0].Err == nil || exits[0].Code != -1 || exits[0].TimedOut {
		t.Fatalf("exit %+v: want a failure by signal, not a timeout", exits[0])
	}

	cases := []struct {
		name   string
		argv   []string
		killed bool // the group killed it (timeout)
		want   bool
	}{
		{"SIGTERM from outside", []string{"sh", "-c", "kill -TERM $$"}, false, true},
		{"SIGINT from outside", []string{"sh", "-c", "kill -INT $$"}, false, true},
		{"SIGKILL from outside", []string{"sh", "-c", "kill -KILL $$"}, false, false},
		{"exit status 3", []string{"sh", "-c", "exit 3"}, false, false},
		{"killed by the group", []string{"sleep", "30"}, true, false},
	}
	for _, c := range cases {
		g := group{KillGrace: time.Second}
		var members []*member
		failed := make(chan struct{}, 1)
		m, err := start(command{Label: c.name, Argv: c.argv}, time.Now(), failed)
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, m)
		var killed []*member
		if c.killed {
			killed = g.kill(members)
		}
		<-m.done
		if got := stoppedFromOutside(members, killed); got != c.want {
			t.Errorf("%s: stopped from outside %v, want %v", c.name, got, c.want)
		}
	}
}

// TestFailFastStopsOnlyThePartner: the member whose failure stops the group
// keeps its own failure (here an OOM); only its partner is recorded as
// stopped by the harness. The hook holds the failed member between
// signalling its failure and counting as done, the window in which kill
// once took it for a running member and overwrote its OOM with "stopped"
// (the pair then lost its infeasible status; seen under load in CI).
func TestFailFastStopsOnlyThePartner(t *testing.T) {
	testHookFailed = func() { time.Sleep(200 * time.Millisecond) }
	t.Cleanup(func() { testHookFailed = nil })
	g := group{FailFast: true, KillGrace: time.Second, Timeout: time.Minute}
	exits, err := g.run(context.Background(), []command{
		{Label: "oom", Argv: []string{"sh", "-c", "echo 'RuntimeError: CUDA out of memory' >&2; exit 3"}},
		{Label: "partner", Argv: []string{"sleep", "30"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if e := exits[0]; e.Stopped || !e.OOM || e.Code != 3 {
		t.Errorf("failed member %+v: want its own OOM (exit status 3), not stopped", e)
	}
	if e := exits[1]; !e.Stopped || e.Err == nil {
		t.Errorf("partner %+v: want stopped by the harness", e)
	}
}
