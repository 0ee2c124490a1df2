// Package inputfile opens the files coloc reads from its users: only
// regular files, and whole reads only up to a stated size.
//
// A path may name something that is not a file: a named pipe (opening it
// waits for a writer that may never come), a device (/dev/zero never ends,
// /dev/random neither), a directory, a socket; a symbolic link may point
// at any of them. Open refuses them all, without blocking: the file is
// opened non-blocking and checked with fstat, so what is checked is what
// is read. ReadAll also refuses a file larger than the reader's limit,
// naming the limit, instead of reading gigabytes into memory. SHA256 hashes
// a regular file by streaming it, for the provenance of what was read.
package inputfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is wrapped by the error refusing a path that is not a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error refusing a file above a limit.
var ErrTooLarge = errors.New("file too large")

// Open opens the regular file at path for reading; anything else is
// refused (ErrNotRegular) by what it is.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w (it is %s); coloc reads its inputs from files", path, ErrNotRegular, kind(st.Mode()))
	}
	// Reads of a regular file never block; clear the flag all the same,
	// so the descriptor behaves as os.Open's would.
	_ = syscall.SetNonblock(int(f.Fd()), false)
	return f, nil
}

// ReadAll reads the whole regular file at path, refusing one larger than
// limit bytes (ErrTooLarge); what names the file in that message ("a model
// file", "a cluster spec").
func ReadAll(path, what string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, tooLarge(path, what, st.Size(), limit)
	}
	// The file may grow while it is read: never read past the limit.
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, tooLarge(path, what, int64(len(b)), limit)
	}
	return b, nil
}

// SHA256 returns the hexadecimal SHA-256 of the regular file at path,
// read through rather than whole (a trace or a samples table may be
// large). Errors name the path.
func SHA256(path string) (string, error) {
	f, err := Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func tooLarge(path, what string, size, limit int64) error {
	return fmt.Errorf("%s: %w: %s, more than the %s %s may hold", path, ErrTooLarge, Size(size), Size(limit), what)
}

// Size prints a byte count the way messages name limits: 512 bytes,
// 64 MiB, 1 GiB, 1.5 GiB.
func Size(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d bytes", n)
	case n < k*k:
		return trim(float64(n)/k) + " KiB"
	case n < k*k*k:
		return trim(float64(n)/(k*k)) + " MiB"
	default:
		return trim(float64(n)/(k*k*k)) + " GiB"
	}
}

func trim(v float64) string {
	s := fmt.Sprintf("%.1f", v)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s
}

// kind says what a non-regular file is, in words.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file (" + m.Type().String() + ")"
}

// CheckDir checks, without opening them, the entries of dir (not those of
// its subdirectories) before a reader opens them by name: each must be a
// directory or a regular file of at most limit bytes (what names such a
// file in messages). A symbolic link is judged by what it points to.
func CheckDir(dir, what string, limit int64) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := dir + string(os.PathSeparator) + e.Name()
		st, err := os.Stat(p)
		switch {
		case err != nil:
			return err
		case st.IsDir():
		case !st.Mode().IsRegular():
			return fmt.Errorf("%s: %w (it is %s); coloc reads its inputs from files", p, ErrNotRegular, kind(st.Mode()))
		case st.Size() > limit:
			return tooLarge(p, what, st.Size(), limit)
		}
	}
	return nil
}
