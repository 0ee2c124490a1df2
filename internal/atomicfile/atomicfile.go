// Package atomicfile writes files so that readers see either the old file
// or the whole new one, never a part: the content goes to a temporary file
// beside the target, is synced, and is renamed into place, and the
// directory is synced so the rename survives a crash. Every file coloc
// writes goes through it. Dir does the same for a directory of files that
// belong together (a dataset, a model directory).
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes a file through fn. If fn or any step fails, the target is
// untouched and no temporary file is left behind. The file gets mode 0644.
func Write(path string, fn func(w io.Writer) error) error {
	return WriteMode(path, 0o644, fn)
}

// WriteMode is Write with the file mode given (0o755 for a script).
func WriteMode(path string, mode os.FileMode, fn func(w io.Writer) error) (err error) {
	f, err := CreateTemp(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, Explain(err))
	}
	defer func() {
		if err != nil {
			f.Close()
			Discard(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = fn(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err == nil {
		err = commit(f, path, mode)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, Explain(err))
	}
	return nil
}

// WriteBytes writes data to path atomically.
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Commit finishes a temporary file written beside path (by CreateTemp):
// mode 0644, sync, close, rename to path, sync the directory. On error the
// caller removes the temporary file (Discard).
func Commit(f *os.File, path string) error { return commit(f, path, 0o644) }

func commit(f *os.File, path string, mode os.FileMode) error {
	err := f.Chmod(mode)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = rename(f.Name(), path)
	}
	if err == nil {
		untrack(f.Name())
		SyncDir(filepath.Dir(path))
	}
	return err
}

// rename renames a finished temporary file into place as one commit.
func rename(tmp, path string) error {
	if err := enter(); err != nil {
		return err
	}
	err := os.Rename(tmp, path)
	leave(path, err == nil)
	return err
}

func splitPath(path string) (dir, base string) { return filepath.Dir(path), filepath.Base(path) }

// SyncDir syncs a directory so that a rename in it survives a crash; errors
// are ignored (some file systems refuse to sync directories).
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
