package profile

import (
	"fmt"
	"path/filepath"

	"github.com/coloc-dev/coloc/internal/outlock"
)

// lockFile is the lock a running campaign holds on its directory: an
// exclusive flock(2) (internal/outlock), so that two campaigns never write
// one directory at once. The kernel drops the lock when its holder exits,
// however it exits (kill -9 included), so a lock file left behind never
// blocks. The file names the holder, for the message that refuses a second
// campaign.
const lockFile = ".coloc.lock"

// errLocked is wrapped by the error of a campaign refused because another
// process holds its directory's lock.
var errLocked = outlock.ErrLocked

// lockSettle is how long lockDir waits for a lock whose recorded holder
// has exited (outlock.DefaultSettle; tests shorten it).
var lockSettle = outlock.DefaultSettle

// lockDir takes the lock of dir, which must exist. unlock releases it.
func lockDir(dir string) (unlock func(), err error) {
	l, err := outlock.File(filepath.Join(dir, lockFile), outlock.Options{
		What:   fmt.Sprintf("campaign directory %s", dir),
		Fix:    "choose another --out",
		Settle: lockSettle,
	})
	if err != nil {
		return nil, err
	}
	return l.Unlock, nil
}
