package outlock

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A second lock of one output is refused naming the holder's PID and
// command line; released, the lock file is gone and the output can be
// locked again. A symbolic link to the output shares its lock.
func TestOutputRefusesASecondWriter(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sub", "models")
	l, err := Output(out, Options{What: "model directory " + out, Fix: "choose another -o"})
	if err != nil {
		t.Fatal(err)
	}
	if l.Path() != filepath.Join(dir, "sub", ".models.lock") {
		t.Errorf("lock file %s, want .models.lock beside the output", l.Path())
	}
	_, err = Output(out, Options{What: "model directory " + out, Fix: "choose another -o"})
	want := fmt.Sprintf("model directory %s is being written by process %d (%s", out, os.Getpid(), filepath.Base(os.Args[0]))
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "choose another -o") {
		t.Fatalf("second writer: %v\nwant ErrLocked containing %q", err, want)
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Output(link, Options{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("a symbolic link to a locked output: %v, want ErrLocked", err)
	}
	l.Unlock()
	l.Unlock() // twice is harmless
	if _, err := os.Stat(l.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left after Unlock: %v", err)
	}
	l2, err := Output(link, Options{})
	if err != nil {
		t.Fatalf("after Unlock: %v", err)
	}
	l2.Unlock()
}

// The lock of a holder killed with SIGKILL goes with it: the next writer
// gets the lock at once, though the dead holder's lock file is still there.
func TestOutputAfterTheHolderWasKilled(t *testing.T) {
	out := filepath.Join(t.TempDir(), "policy.json")
	holder := exec.Command(os.Args[0], "-test.run=^TestHelperHold$")
	holder.Env = append(os.Environ(), "OUTLOCK_HOLD="+out)
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "held" {
		t.Fatalf("helper: %q, %v", line, err)
	}
	_, err = Output(out, Options{})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("process %d", holder.Process.Pid)) {
		t.Fatalf("while held by process %d: %v", holder.Process.Pid, err)
	}
	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	if _, err := os.Stat(filepath.Join(filepath.Dir(out), ".policy.json.lock")); err != nil {
		t.Fatalf("the killed holder's lock file: %v (want it left behind)", err)
	}
	l, err := Output(out, Options{})
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	l.Unlock()
}

// TestHelperHold is the holder process of TestOutputAfterTheHolderWasKilled:
// it locks the output named in OUTLOCK_HOLD, says so and waits to be
// killed.
func TestHelperHold(t *testing.T) {
	out := os.Getenv("OUTLOCK_HOLD")
	if out == "" {
		t.Skip("helper process only")
	}
	if _, err := Output(out, Options{}); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("held")
	time.Sleep(time.Hour)
}

// heldByOther reports whether some open file description holds path's
// flock (probed on a file of its own, without writing to it).
func heldByOther(t *testing.T, path string) bool {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// A lock whose recorded holder has exited, held on by a process the holder
// started (as a child between fork and exec holds it), is waited for; one
// held past Options.Settle is refused, saying the recorded holder has exited.
func TestLockOfAnExitedHolder(t *testing.T) {
	flock, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("no flock(1) to hold the lock from another process")
	}
	path := filepath.Join(t.TempDir(), ".coloc.lock")
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := gone.Process.Pid
	if running(dead) {
		t.Fatalf("process %d was waited for, yet counts as running", dead)
	}
	hold := func(seconds string) *exec.Cmd {
		if err := os.WriteFile(path, []byte(fmt.Sprintf("%d\n", dead)), 0o644); err != nil {
			t.Fatal(err)
		}
		h := exec.Command(flock, "-x", "-o", path, "sleep", seconds)
		h.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := h.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-h.Process.Pid, syscall.SIGKILL); h.Wait() })
		for i := 0; !heldByOther(t, path); i++ {
			if i == 3000 {
				t.Fatal("flock(1) never took the lock")
			}
			time.Sleep(10 * time.Millisecond)
		}
		return h
	}

	hold("0.3")
	l, err := File(path, Options{})
	if err != nil {
		t.Fatalf("lock held briefly past its exited holder: %v, want it waited for", err)
	}
	if pid, _ := Holder(path); pid != os.Getpid() {
		t.Errorf("lock file names %d, want this process %d", pid, os.Getpid())
	}
	l.Unlock()

	hold("60")
	_, err = File(path, Options{Settle: 200 * time.Millisecond})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("process %d, which has exited", dead)) {
		t.Fatalf("lock held past Settle: %v, want ErrLocked saying process %d has exited", err, dead)
	}

	// A zombie (exited, not waited for) holds no files: it counts as exited.
	z := exec.Command("true")
	if err := z.Start(); err != nil {
		t.Fatal(err)
	}
	defer z.Wait()
	for i := 0; running(z.Process.Pid); i++ {
		if i == 3000 {
			t.Fatalf("process %d exited 30 s ago and still counts as running", z.Process.Pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An existing directory whose parent cannot be written is locked inside
// itself.
func TestOutputUnderAReadOnlyParent(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes any directory")
	}
	parent := t.TempDir()
	out := filepath.Join(parent, "scratch")
	os.Mkdir(out, 0o755)
	os.Chmod(parent, 0o555)
	defer os.Chmod(parent, 0o755)
	l, err := Output(out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Path() != filepath.Join(out, InsideLock) {
		t.Errorf("lock file %s, want %s inside the directory", l.Path(), InsideLock)
	}
	if _, err := Output(out, Options{}); !errors.Is(err, ErrLocked) {
		t.Errorf("second writer: %v", err)
	}
	l.Unlock()
}
