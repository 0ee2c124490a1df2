package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/internal/interrupt"
)

// stopInputs are the inputs of the long commands the signal tests stop:
// Gavel's data, models fitted without intervals, a 20,000-job trace, and
// a 500,000-job trace for policy export, whose decisions take tens of
// microseconds a job: on the 20,000 jobs it is done in about 0.3 s of
// processor time, the time the tests wait for before they signal, so the
// signal could come as it wrote; on these it runs about 5 s.
type stopInputs struct {
	bin, data, models, trace, bigTrace string
}

var stopFixture struct {
	once sync.Once
	in   stopInputs
	err  error
}

func stopSetup(t *testing.T) stopInputs {
	t.Helper()
	bin := buildColoc(t)
	stopFixture.once.Do(func() {
		dir := filepath.Join(filepath.Dir(bin), "stop-inputs")
		in := stopInputs{bin: bin, data: filepath.Join(dir, "gavel"), models: filepath.Join(dir, "models"), trace: filepath.Join(dir, "20k.trace"),
			bigTrace: filepath.Join(dir, "500k.trace")}
		for _, args := range [][]string{
			{"datasets", "import", "gavel", "../../datasets/reference/gavel/upstream/simulation_throughputs.json", "-o", in.data},
			{"fit", "--data", in.data, "-o", in.models, "--models", "iasp,iapp,similarity", "--folds", "0"},
			{"simulate", "generate", "--data", in.data, "--jobs", "20000", "--seed", "1", "-o", in.trace},
			{"simulate", "generate", "--data", in.data, "--jobs", "500000", "--seed", "1", "-o", in.bigTrace},
		} {
			if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
				stopFixture.err = fmt.Errorf("coloc %s: %v\n%s", strings.Join(args, " "), err, out)
				return
			}
		}
		stopFixture.in = in
	})
	if stopFixture.err != nil {
		t.Fatal(stopFixture.err)
	}
	return stopFixture.in
}

// snapshot is the SHA-256 of every file under root (or of root, a file),
// by path relative to root; nil when root does not exist.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	sums := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		sum := sha256.Sum256(b)
		sums[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// atWork waits until process pid has installed its handler of sig and used
// cpu of processor time: it is past its start and into its work. It is a
// condition on the process, not on the clock, so a loaded machine only
// makes it take longer.
func atWork(t *testing.T, pid int, sig syscall.Signal, cpu time.Duration, exited <-chan struct{}) {
	t.Helper()
	const ticksPerSecond = 100 // USER_HZ, which Linux fixes at 100 for /proc
	for {
		select {
		case <-exited:
			t.Fatalf("process %d exited before it was at work", pid)
		default:
		}
		status, err1 := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		stat, err2 := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err1 != nil || err2 != nil {
			t.Skipf("no /proc to watch the process: %v %v", err1, err2)
		}
		caught := false
		for _, line := range strings.Split(string(status), "\n") {
			if mask, ok := strings.CutPrefix(line, "SigCgt:"); ok {
				m, _ := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
				caught = m&(1<<(sig-1)) != 0
			}
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		utime, _ := strconv.Atoi(f[11])
		stime, _ := strconv.Atoi(f[12])
		if caught && time.Duration(utime+stime)*time.Second/ticksPerSecond >= cpu {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// signalled runs coloc with args, sends sig once it is at work and returns
// its exit status, its standard error and how long it took to exit after
// the signal.
func signalled(t *testing.T, bin string, sig syscall.Signal, args ...string) (int, string, time.Duration) {
	t.Helper()
	var errb bytes.Buffer
	c := exec.Command(bin, args...)
	c.Stderr = &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var werr error
	go func() { werr = c.Wait(); close(exited) }()
	defer c.Process.Kill()
	atWork(t, c.Process.Pid, sig, 300*time.Millisecond, exited)
	sent := time.Now()
	c.Process.Signal(sig)
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("coloc %s: still running 60 s after %v", strings.Join(args, " "), sig)
	}
	took := time.Since(sent)
	code := 0
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		code = ee.ExitCode()
	} else if werr != nil {
		t.Fatal(werr)
	}
	return code, errb.String(), took
}

// SIGTERM stops every long command soon, with exit status 143 and its
// previous output untouched (no temporary file left either), and the
// message names the command to rerun. Each command is one that runs for
// tens of seconds to minutes to the end: the bound on the time to exit
// (20 s, for loaded machines) is far below that, though a stop takes
// milliseconds (the test log shows it).
func TestSignalStopsLongCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	in := stopSetup(t)
	cases := []struct {
		name string
		out  string // relative to the case's directory: its previous output
		args func(out string) []string
	}{
		{"fit", "models", func(out string) []string {
			return []string{"fit", "--data", in.data, "-o", out, "--models", "iasp,iapp"}
		}},
		{"eval", "eval.arrow", func(out string) []string {
			return []string{"eval", "--data", in.data, "--seeds", "3", "--quiet", "-o", out}
		}},
		{"simulate", "", func(string) []string {
			return []string{"simulate", "--trace", in.trace, "--cluster", "../../examples/cluster-gavel-48.yaml", "--data", in.data, "--models", in.models, "--policy", "coloc"}
		}},
		{"simulate sweep", "results.md", func(out string) []string {
			return []string{"simulate", "sweep", "--traces", in.trace, "--clusters", "../../examples/cluster-gavel-48.yaml", "--data", in.data, "--models", in.models,
				"--policy", "fifo,coloc", "--degree", "trace", "--markdown", out}
		}},
		{"policy export", "policy.json", func(out string) []string {
			return []string{"policy", "export", "--cluster", "../../examples/cluster-gavel-48.yaml", "--jobs", in.bigTrace, "--models", in.models, "--data", in.data, "-o", out}
		}},
		{"report paper", "report", func(out string) []string {
			return []string{"report", "paper", "--root", "../..", "-q", "-o", out}
		}},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "-"), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, c.out)
			if c.out != "" {
				// The previous output: the models for fit, a user's file
				// in the report directory, placeholder files otherwise.
				if c.name == "fit" {
					if err := os.CopyFS(out, os.DirFS(in.models)); err != nil {
						t.Fatal(err)
					}
				} else if c.name == "report paper" {
					os.Mkdir(out, 0o755)
					os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
				} else if err := os.WriteFile(out, []byte("previous output"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot(t, dir)
			args := c.args(out)
			code, stderr, took := signalled(t, in.bin, syscall.SIGTERM, args...)
			t.Logf("exited %v after SIGTERM", took.Round(time.Millisecond))
			if code != 143 {
				t.Fatalf("exit status %d, want 143\nstderr:\n%s", code, stderr)
			}
			if took > 20*time.Second {
				t.Errorf("took %v to exit after SIGTERM", took)
			}
			if after := snapshot(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("the directory changed:\nbefore %v\nafter  %v", before, after)
			}
			want := "stopped by SIGTERM before it finished; it wrote nothing, its outputs are as they were; to do it all, rerun: " + interrupt.CommandLine(append([]string{"coloc"}, args...))
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		})
	}
}

// Ctrl-C stops a command as SIGTERM does, with exit status 130.
func TestCtrlCStopsACommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	in := stopSetup(t)
	out := filepath.Join(t.TempDir(), "models")
	code, stderr, _ := signalled(t, in.bin, syscall.SIGINT, "fit", "--data", in.data, "-o", out, "--models", "iasp,iapp")
	if code != 130 || !strings.Contains(stderr, "coloc fit stopped by SIGINT (Ctrl-C) before it finished") {
		t.Fatalf("exit status %d, want 130; stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: %v, want nothing written", out, err)
	}
}

// A command whose context is done before it starts does nothing, and its
// error carries the signal's exit status; the same in process, as tests
// and main run commands.
func TestStoppedBeforeItStarts(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&interrupt.Signal{Sig: syscall.SIGTERM})
	out := filepath.Join(t.TempDir(), "gavel")
	var stdout, stderr bytes.Buffer
	err := runEnv(ctx, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, openGPU: defaultOpenGPU},
		[]string{"datasets", "import", "gavel", refGavel + "/upstream/simulation_throughputs.json", "-o", out})
	if !errors.Is(err, context.Canceled) && !errors.As(err, new(*interrupt.Signal)) {
		t.Fatalf("error %v, want the stop", err)
	}
	if s, ok := interrupt.Cause(ctx); !ok || s.ExitCode() != 143 {
		t.Errorf("cause %v", context.Cause(ctx))
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: %v, want nothing written", out, err)
	}
}

// coloc serve answers what coloc predict prints, and SIGTERM stops it
// cleanly: it drains the requests in flight and exits with status 0, as a
// service manager expects of a requested stop.
func TestServeAnswersAndStops(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	in := stopSetup(t)
	c := exec.Command(in.bin, "serve", "--models", in.models, "--data", in.data, "--addr", "127.0.0.1:0")
	a, errb, done := startServe(t, c)
	defer c.Process.Kill()
	base := "http://" + a
	resp, err := http.Post(base+"/v1/predict", "application/json", strings.NewReader(`{"a": "ResNet-50 (batch size 64)", "b": "LM (batch size 20)", "device": "v100"}`))
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Predictions []json.RawMessage }
	err = json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(in.bin, "predict", "--models", in.models, "--device", "v100", "--json", "ResNet-50 (batch size 64)", "LM (batch size 20)").Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(got.Predictions) || len(lines) == 0 {
		t.Fatalf("served %d predictions, coloc predict %d", len(got.Predictions), len(lines))
	}
	for i, l := range lines {
		var a, b map[string]any
		json.Unmarshal([]byte(l), &a)
		json.Unmarshal(got.Predictions[i], &b)
		for _, k := range []string{"model", "a_next_to_b", "b_next_to_a", "a_next_to_b_estimate", "b_next_to_a_estimate"} {
			if fmt.Sprint(a[k]) != fmt.Sprint(b[k]) {
				t.Errorf("prediction %d, %s: served %v, coloc predict %v", i, k, b[k], a[k])
			}
		}
	}
	c.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit %v, want status 0", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("coloc serve still running 60 s after SIGTERM")
	}
	if !strings.Contains(errb.String(), "draining requests in flight") {
		t.Errorf("stderr:\n%s", errb.String())
	}
}

// startServe starts c, a `coloc serve`, and returns the address it says
// it listens on, its stderr (so far and to come) and c.Wait's result to
// come; the caller kills it. A serve that exits first fails the test.
func startServe(t *testing.T, c *exec.Cmd) (string, *bytes.Buffer, <-chan error) {
	t.Helper()
	var errb bytes.Buffer
	pr, pw := io.Pipe()
	c.Stderr = io.MultiWriter(&errb, pw)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		err := c.Wait()
		pw.Close()
		done <- err
	}()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if _, a, ok := strings.Cut(sc.Text(), " on http://"); ok {
				addr <- a
			}
		}
	}()
	select {
	case a := <-addr:
		return a, &errb, done
	case err := <-done:
		t.Fatalf("coloc serve exited (%v) before listening:\n%s", err, errb.String())
	case <-time.After(2 * time.Minute):
		c.Process.Kill()
		t.Fatalf("coloc serve did not say where it listens:\n%s", errb.String())
	}
	return "", nil, nil
}
