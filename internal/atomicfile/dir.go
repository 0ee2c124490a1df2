package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Dir writes a directory of files that belong together as a whole: fn
// writes the new files into tmp, an empty temporary directory beside path;
// every file is synced, and tmp replaces path. If fn or any step fails,
// path is left as it was (or absent, when it was) and the temporary
// directory is removed.
//
// Entries of an existing path that fn did not write are carried over into
// the new directory as hard links (directories recreated, symbolic links
// copied), so the result is the old directory with fn's entries replaced:
// files a user keeps beside coloc's outputs stay, and the directory keeps
// its permissions. A symbolic link at path is followed: the directory it
// points to is replaced.
//
// The replacement is two renames (the old directory aside, the new one in
// place) followed by removing the old one. A crash between the renames
// leaves path absent and the old directory, whole, at .<name>.old-* beside
// it; a failed second rename is rolled back. When path is the working
// directory, the process moves into the new directory.
func Dir(path string, fn func(tmp string) error) (err error) {
	path, err = resolveDir(path)
	if err != nil {
		return err
	}
	if path, err = filepath.Abs(path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if filepath.Dir(path) == path {
		return fmt.Errorf("writing %s: cannot replace a file system's root", path)
	}
	parent := filepath.Dir(path)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, Explain(err))
	}
	if err := checkNotMount(path); err != nil {
		return err
	}
	tmp, err := MkdirTemp(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, Explain(err))
	}
	defer func() {
		if err != nil {
			Discard(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := fn(tmp); err != nil {
		return err
	}
	old, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return fmt.Errorf("writing %s: %w", path, err)
	case !old.IsDir():
		return fmt.Errorf("writing %s: exists and is not a directory", path)
	}
	if old != nil {
		if err := carryOver(path, tmp); err != nil {
			return fmt.Errorf("writing %s: keeping the entries of the old directory: %w", path, err)
		}
		if err := os.Chmod(tmp, old.Mode().Perm()); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	if err := syncTree(tmp); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// The renames are one commit: a process told to stop finishes them or
	// never starts them (Stop).
	if err := enter(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	err = replace(path, tmp, old != nil)
	leave(path, err == nil)
	if err == nil {
		untrack(tmp)
	}
	return err
}

// replace puts the finished directory tmp in place of path (which exists
// when hasOld).
func replace(path, tmp string, hasOld bool) error {
	parent, base := filepath.Dir(path), filepath.Base(path)
	if !hasOld {
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("writing %s: %w", path, Explain(err))
		}
		SyncDir(parent)
		return nil
	}
	aside, err := os.MkdirTemp(parent, "."+base+".old-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// MkdirTemp reserved a fresh name; rename needs it free (an empty
	// directory is replaced by rename on Linux, not everywhere).
	if err := os.Remove(aside); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(path, aside); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		if rerr := os.Rename(aside, path); rerr != nil {
			return fmt.Errorf("writing %s: %w (and putting the old directory back from %s: %v)", path, err, aside, rerr)
		}
		return fmt.Errorf("writing %s: %w", path, err)
	}
	SyncDir(parent)
	if wd, err := os.Getwd(); err == nil && wd == aside {
		os.Chdir(path)
	}
	// The new directory is in place; a leftover old copy is only litter.
	os.RemoveAll(aside)
	return nil
}

// resolveDir follows a symbolic link at path, so that Dir replaces the
// directory it points to rather than the link.
func resolveDir(path string) (string, error) {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return filepath.Clean(path), nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return real, nil
}

// carryOver links every entry of old that new does not hold into new,
// recursively for directories new does not hold.
func carryOver(old, new string) error {
	entries, err := os.ReadDir(old)
	if err != nil {
		return err
	}
	for _, e := range entries {
		dst := filepath.Join(new, e.Name())
		if _, err := os.Lstat(dst); err == nil {
			continue // fn wrote it: the new entry wins
		}
		if err := linkTree(filepath.Join(old, e.Name()), dst); err != nil {
			return err
		}
	}
	return nil
}

// linkTree recreates src at dst: files as hard links, directories as new
// directories of links, symbolic links as copies of the link.
func linkTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.Mkdir(to, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		default:
			return os.Link(p, to)
		}
	})
}

// syncTree syncs every regular file and directory under root (root last),
// so that after the rename the whole new directory is on disk.
func syncTree(root string) error {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			dirs = append(dirs, p)
		case d.Type().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			err = f.Sync()
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		SyncDir(dirs[i])
	}
	return err
}
