package profile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// LockFile is the lock a running campaign holds on its directory: an
// exclusive flock(2), so that two campaigns never write one directory at
// once. The kernel drops the lock when its holder exits, however it exits
// (kill -9 included), so a lock file left behind never blocks. The file
// holds the holder's PID, for the message that refuses a second campaign.
const LockFile = ".coloc.lock"

// ErrLocked is wrapped by the error of a campaign refused because another
// process holds its directory's lock.
var ErrLocked = errors.New("campaign directory in use")

// lockSettle is how long lockDir waits for a lock whose recorded holder
// has exited: a process that holder was starting when it died keeps the
// lock's file open from fork until exec closes it (close-on-exec), which
// takes microseconds, and can take tens of milliseconds on a loaded
// machine. Ten seconds is far beyond that and short next to any run; a
// lock still held after it is held by something else, and is refused.
var lockSettle = 10 * time.Second

// lockDir takes the lock of dir, which must exist. unlock releases it.
//
// A lock held while the PID in the file names no running process (the
// campaign that took it was killed, and a child it was starting still
// has the file open) is waited for, up to lockSettle: a campaign resumed
// right after a kill -9 would otherwise be refused by its own dying
// predecessor.
func lockDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	deadline := time.Now().Add(lockSettle)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		pid := lockHolder(path)
		if pid > 0 && running(pid) {
			f.Close()
			return nil, fmt.Errorf("%w: %s is held by process %d (another coloc profile run on the same --out); wait for it to finish or stop it, or choose another --out",
				ErrLocked, dir, pid)
		}
		if time.Now().After(deadline) {
			f.Close()
			holder := "a process that has exited"
			if pid > 0 {
				holder = fmt.Sprintf("process %d, which has exited", pid)
			}
			return nil, fmt.Errorf("%w: %s is locked, and the lock was taken by %s; after %s it is still held, by a process that has the file %s open (fuser %s names it); stop that process, or choose another --out",
				ErrLocked, dir, holder, lockSettle, LockFile, path)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// lockHolder is the PID written in a lock file, 0 when it holds none.
func lockHolder(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// running reports whether process pid exists and has not exited. A zombie
// (exited, not yet waited for) has closed its files already, so it holds
// no lock: where /proc tells, it counts as exited.
func running(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if st, ok := procStat(pid); ok {
		return !st.exited()
	}
	return !procReadable() // gone since kill(2), or no /proc to ask
}
