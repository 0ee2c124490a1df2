package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Open refuses, without blocking, a named pipe with no writer, a device,
// a directory and a symbolic link to any of them; ReadAll refuses a file
// above its limit and reads one at the limit.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, what string }{
		{fifo, "a named pipe"}, {zero, "a character device"}, {dir, "a directory"},
	} {
		_, err := ReadAll(c.path, "a test file", 1<<20)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), c.what) {
			t.Errorf("%s: %v, want ErrNotRegular saying %s", c.path, err, c.what)
		}
	}
	file := filepath.Join(dir, "f")
	os.WriteFile(file, make([]byte, 2048), 0o644)
	_, err := ReadAll(file, "a test file", 1024)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "2 KiB, more than the 1 KiB a test file may hold") {
		t.Errorf("over the limit: %v", err)
	}
	if b, err := ReadAll(file, "a test file", 2048); err != nil || len(b) != 2048 {
		t.Errorf("at the limit: %d bytes, %v", len(b), err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{5: "5 bytes", 1 << 20: "1 MiB", 1536 << 20: "1.5 GiB", 64 << 20: "64 MiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %s, want %s", n, got, want)
		}
	}
}

// CheckDir refuses a directory holding a named pipe, a link to a device or
// a file above the limit, without opening any of them; subdirectories and
// regular files pass.
func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), []byte("{}"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if err := CheckDir(dir, "a model file", 1<<20); err != nil {
		t.Fatalf("a clean directory: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "big.json"), make([]byte, 2048), 0o644)
	if err := CheckDir(dir, "a model file", 1024); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a file above the limit: %v", err)
	}
	os.Remove(filepath.Join(dir, "big.json"))
	syscall.Mkfifo(filepath.Join(dir, "pipe.json"), 0o644)
	if err := CheckDir(dir, "a model file", 1<<20); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a named pipe") {
		t.Errorf("a named pipe: %v", err)
	}
	os.Remove(filepath.Join(dir, "pipe.json"))
	os.Symlink("/dev/zero", filepath.Join(dir, "zero.json"))
	if err := CheckDir(dir, "a model file", 1<<20); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a character device") {
		t.Errorf("a link to /dev/zero: %v", err)
	}
}

// SHA256 is the SHA-256 of the file's bytes, and refuses what Open
// refuses (here a directory), naming the path.
func TestSHA256(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The SHA-256 of "abc" (FIPS 180-2, appendix B.1).
	const want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if got, err := SHA256(path); err != nil || got != want {
		t.Errorf("SHA256 = %q, %v; want %q", got, err, want)
	}
	if _, err := SHA256(dir); err == nil || !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), dir) {
		t.Errorf("a directory: %v", err)
	}
}
