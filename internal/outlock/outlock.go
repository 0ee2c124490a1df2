// Package outlock keeps two processes from writing one output at once.
//
// A lock is an exclusive flock(2) on a lock file. The kernel drops it when
// its holder exits, however it exits (kill -9 included), so a lock file left
// behind never blocks. The file names the holder (its PID and command line)
// for the message that refuses a second writer. A second writer is refused
// at once, never queued: two commands writing one output were started by
// mistake, and the one refused says which process holds it.
//
// File locks a lock file that stays (a campaign directory's). Output locks
// the output path of a command, a file or a directory: its lock file is
// .NAME.lock beside it, in the parent directory, which no replacement of
// the output itself moves (a directory written through atomicfile.Dir is
// replaced by renames, so a lock inside it would not be the next writer's).
// That lock file is removed again when the lock is released.
package outlock

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrLocked is wrapped by the error of a writer refused because another
// process holds the lock.
var ErrLocked = errors.New("output in use")

// DefaultSettle is how long a lock whose recorded holder has exited is
// waited for: a process that holder was starting when it died keeps the
// lock's file open from fork until exec closes it (close-on-exec), which
// takes microseconds, and can take tens of milliseconds on a loaded
// machine. Ten seconds is far beyond that and short next to any command; a
// lock still held after it is held by something else, and is refused.
const DefaultSettle = 10 * time.Second

// Options say how a refusal reads and how long an orphaned lock is waited
// for.
type Options struct {
	// What names the output in messages ("campaign directory out/c").
	What string
	// Fix is what the refused user can do, after "wait for it to finish or
	// stop it, or " ("choose another --out").
	Fix string
	// Settle is DefaultSettle when zero.
	Settle time.Duration
}

// Lock is a held lock; Unlock releases it.
type Lock struct {
	f      *os.File
	path   string
	remove bool // remove the lock file on Unlock (Output's)
}

// File takes the lock of the lock file at path, creating the file; its
// directory must exist.
//
// A lock held while the PID in the file names no running process (its
// holder was killed, and a child it was starting still has the file open)
// is waited for, up to opts.Settle: a command rerun right after a kill -9
// would otherwise be refused by its own dying predecessor.
func File(path string, opts Options) (*Lock, error) {
	return take(path, opts, false)
}

// Output takes the lock of the output path target (a file or a directory,
// which need not exist; its parent is created). Two names of one output (a
// symbolic link and its target) share one lock.
//
// An existing directory whose parent this user cannot write (a scratch
// directory on a cluster, a mount point under a read-only directory) is
// locked by InsideLock in it instead: whoever writes into it alone, as a
// campaign does, can still lock it, and every writer of it falls back the
// same way.
func Output(target string, opts Options) (*Lock, error) {
	path, err := lockPath(target)
	if err != nil {
		return nil, err
	}
	l, err := take(path, opts, true)
	if err != nil && (errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)) {
		if st, serr := os.Stat(target); serr == nil && st.IsDir() {
			return take(filepath.Join(target, InsideLock), opts, true)
		}
	}
	return l, err
}

// InsideLock is the lock file of an output directory whose parent cannot
// hold one (see Output).
const InsideLock = ".coloc.output.lock"

// lockPath is the lock file of target: .NAME.lock in the directory that
// holds target, once symbolic links are followed.
func lockPath(target string) (string, error) {
	abs, err := filepath.Abs(target)
	if err != nil {
		return "", fmt.Errorf("locking %s: %w", target, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	if parent == abs {
		return "", fmt.Errorf("locking %s: a file system's root is not an output", target)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("locking %s: %w", target, err)
	}
	if real, err := filepath.EvalSymlinks(parent); err == nil {
		parent = real
	}
	return filepath.Join(parent, "."+base+".lock"), nil
}

func take(path string, opts Options, remove bool) (*Lock, error) {
	if opts.Settle == 0 {
		opts.Settle = DefaultSettle
	}
	if opts.What == "" {
		opts.What = path
	}
	deadline := time.Now().Add(opts.Settle)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("locking %s: %w", opts.What, explain(err, path))
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			if remove && !samePath(f, path) {
				// The holder we waited for removed the file as it let go:
				// this lock is on a file no one else will open.
				f.Close()
				continue
			}
			l := &Lock{f: f, path: path, remove: remove}
			l.record()
			return l, nil
		}
		f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		pid, command := Holder(path)
		if pid > 0 && running(pid) {
			who := fmt.Sprintf("process %d", pid)
			if command != "" {
				who += " (" + command + ")"
			}
			return nil, fmt.Errorf("%w: %s is being written by %s; wait for it to finish or stop it, or %s",
				ErrLocked, opts.What, who, orFix(opts.Fix))
		}
		if time.Now().After(deadline) {
			holder := "a process that has exited"
			if pid > 0 {
				holder = fmt.Sprintf("process %d, which has exited", pid)
			}
			return nil, fmt.Errorf("%w: %s is locked, and the lock was taken by %s; after %s it is still held, by a process that has the file %s open (fuser %s names it); stop that process, or %s",
				ErrLocked, opts.What, holder, opts.Settle, filepath.Base(path), path, orFix(opts.Fix))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func orFix(fix string) string {
	if fix == "" {
		return "write somewhere else"
	}
	return fix
}

// explain adds what a read-only or missing directory means to an error
// creating a lock file.
func explain(err error, path string) error {
	switch {
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("%w (the file system of %s is mounted read-only)", err, filepath.Dir(path))
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%w (no permission to create %s)", err, path)
	}
	return err
}

// samePath reports whether f is still the file at path (not removed or
// replaced since it was opened).
func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// record writes the holder's PID and command line into the lock file.
func (l *Lock) record() {
	line := strconv.Itoa(os.Getpid()) + "\n" + commandLine() + "\n"
	if err := l.f.Truncate(0); err == nil {
		_, _ = l.f.WriteAt([]byte(line), 0)
	}
}

// Unlock releases the lock (removing Output's lock file first). It may be
// called more than once.
func (l *Lock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	if l.remove {
		os.Remove(l.path) // under the lock: a waiter sees the file gone and retries
	}
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
	l.f = nil
}

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

// Holder is the PID and command line written in a lock file: 0 and "" when
// it holds none. The command line is optional (older lock files hold only
// the PID).
func Holder(path string) (pid int, command string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, ""
	}
	first, rest, _ := bytes.Cut(b, []byte("\n"))
	pid, err = strconv.Atoi(strings.TrimSpace(string(first)))
	if err != nil || pid <= 0 {
		return 0, ""
	}
	command, _, _ = strings.Cut(string(rest), "\n")
	return pid, printable(command)
}

// commandLine is this process's command line, its program by base name,
// cut to a length a message can hold.
func commandLine() string {
	args := append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...)
	return printable(strings.Join(args, " "))
}

// printable keeps a recorded command line to one line of visible text.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}

// running reports whether process pid exists and has not exited. A zombie
// (exited, not yet waited for) has closed its files already, so it holds
// no lock: where /proc tells, it counts as exited.
func running(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if state, ok := procState(pid); ok {
		return state != 'Z' && state != 'X'
	}
	_, readable := procState(os.Getpid())
	return !readable // gone since kill(2), or no /proc to ask
}

// procState is the state letter of pid in /proc/PID/stat ("pid (comm)
// state ...", where comm may hold spaces and parentheses).
func procState(pid int) (byte, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, false
	}
	return b[i+2], true
}
