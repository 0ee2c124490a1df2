package profile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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

// lockDir takes the lock of dir, which must exist. unlock releases it.
func lockDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := "another process"
		if b, rerr := os.ReadFile(path); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil && pid > 0 {
				holder = fmt.Sprintf("process %d", pid)
			}
		}
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is held by %s (another coloc profile run on the same --out); wait for it to finish or stop it, or choose another --out",
				ErrLocked, dir, holder)
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
