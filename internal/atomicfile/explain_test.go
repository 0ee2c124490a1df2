package atomicfile

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// A mount point as an output directory is refused before any work, saying
// why; the errors of a rename across file systems and of a busy target
// say what they mean.
func TestMountPointsAndCrossDevice(t *testing.T) {
	st, err1 := os.Stat("/proc")
	root, err2 := os.Stat("/")
	if err1 != nil || err2 != nil || st.Sys().(*syscall.Stat_t).Dev == root.Sys().(*syscall.Stat_t).Dev {
		t.Skip("no /proc mounted here to stand for a mount point")
	}
	ran := false
	err := Dir("/proc", func(string) error { ran = true; return nil })
	if ran || err == nil || !strings.Contains(err.Error(), "it is a mount point") || !strings.Contains(err.Error(), "write into a directory inside it") {
		t.Errorf("a mount point as the output: ran %v, %v", ran, err)
	}
	for errno, want := range map[syscall.Errno]string{
		syscall.EXDEV:  "on different file systems",
		syscall.EBUSY:  "is a mount point or otherwise in use",
		syscall.ENOSPC: "the file system is full",
		syscall.EROFS:  "mounted read-only",
	} {
		err := Explain(&os.LinkError{Op: "rename", Old: "a", New: "b", Err: errno})
		if !strings.Contains(err.Error(), want) || !errors.Is(err, errno) {
			t.Errorf("%v: %v, want it to say %q and wrap the errno", errno, err, want)
		}
	}
}
