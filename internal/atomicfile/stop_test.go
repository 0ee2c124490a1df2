package atomicfile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Stop is final for the process, so its test runs in a child process (the
// test binary again, running only TestStopInAChild).
func TestStop(t *testing.T) {
	c := exec.Command(os.Args[0], "-test.run=^TestStopInAChild$", "-test.v")
	c.Env = append(os.Environ(), "ATOMICFILE_STOP_CHILD="+t.TempDir())
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("child:\n%s", out)
}

// TestStopInAChild: Stop waits for a section in progress, which finishes
// whole (its own commits too); once Stop has returned, a write, a
// directory replacement and a section are refused and leave the old
// outputs as they were; the temporary file of a write under way is
// removed.
func TestStopInAChild(t *testing.T) {
	dir := os.Getenv("ATOMICFILE_STOP_CHILD")
	if dir == "" {
		t.Skip("run by TestStop in a child process")
	}
	file := filepath.Join(dir, "f")
	if err := WriteBytes(file, []byte("old")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := Dir(out, func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "a"), []byte("old"), 0o644) }); err != nil {
		t.Fatal(err)
	}
	pending, err := CreateTemp(filepath.Join(dir, "g"))
	if err != nil {
		t.Fatal(err)
	}

	inSection := make(chan struct{})
	release := make(chan struct{})
	sectionDone := make(chan error)
	go func() {
		sectionDone <- Section(func() error {
			close(inSection)
			<-release
			// A commit inside a section that began before Stop goes through.
			return WriteBytes(filepath.Join(dir, "in-section"), []byte("new"))
		})
	}()
	<-inSection
	stopped := make(chan struct{})
	go func() { Stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Stop returned while a section was in progress")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-sectionDone; err != nil {
		t.Fatalf("the section in progress: %v", err)
	}
	<-stopped
	if n := Commits(); n != 4 {
		t.Errorf("Stop counted %d commits, want 4 (the file, the directory, the section and the file written in it)", n)
	}
	if _, err := os.Stat(pending.Name()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary file of a write under way is still there: %v", err)
	}

	if err := WriteBytes(file, []byte("new")); !errors.Is(err, ErrStopped) {
		t.Errorf("a write after Stop: %v, want ErrStopped", err)
	}
	if err := Dir(out, func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "a"), []byte("new"), 0o644) }); !errors.Is(err, ErrStopped) {
		t.Errorf("a directory after Stop: %v, want ErrStopped", err)
	}
	if err := Section(func() error { t.Error("a section ran after Stop"); return nil }); !errors.Is(err, ErrStopped) {
		t.Errorf("a section after Stop: %v, want ErrStopped", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "old" {
		t.Errorf("file holds %q, want the old content", b)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "a")); string(b) != "old" {
		t.Errorf("directory's file holds %q, want the old content", b)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 3 {
		t.Errorf("directory holds %v, want f, in-section and out (no temporary left)", names)
	}
}
