package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Explain adds to an error of the file system what it means for an output
// written the atomicfile way (a temporary file or directory beside the
// target, renamed into place): a cross-device rename, a busy mount point,
// a full or read-only file system. Other errors are returned as they are.
func Explain(err error) error {
	var hint string
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EXDEV):
		hint = "the output and the temporary copy written beside it are on different file systems, so one cannot be renamed onto the other; is the output a mount point? write into a directory inside it"
	case errors.Is(err, syscall.EBUSY):
		hint = "the output is a mount point or otherwise in use, and cannot be replaced by a rename; write into a directory inside it"
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		hint = "the file system is full; nothing was replaced"
	case errors.Is(err, syscall.EROFS):
		hint = "the file system is mounted read-only"
	default:
		return err
	}
	return fmt.Errorf("%w (%s)", err, hint)
}

// checkNotMount refuses to replace a directory that is a mount point: Dir
// replaces a directory by renaming a new one into its place, which the
// kernel refuses for a mount point (EBUSY, or EXDEV across file systems).
// Saying so before any work is done is kinder than failing after it.
func checkNotMount(path string) error {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return nil
	}
	pst, err := os.Stat(filepath.Dir(path))
	if err != nil {
		return nil
	}
	a, ok1 := st.Sys().(*syscall.Stat_t)
	b, ok2 := pst.Sys().(*syscall.Stat_t)
	if ok1 && ok2 && a.Dev != b.Dev {
		return fmt.Errorf("writing %s: it is a mount point (another file system than %s); coloc replaces an output directory whole by renaming a new one into its place, which a mount point cannot be: write into a directory inside it (e.g. %s)",
			path, filepath.Dir(path), filepath.Join(path, "out"))
	}
	return nil
}
