package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// A process that is told to stop (SIGTERM, Ctrl-C) must not leave an
// output half replaced: a directory moved aside by Dir's first rename and
// not yet replaced by its second, or a report whose files are half
// installed. Stop is how it makes sure. Every commit (the rename of Write,
// Commit, the renames of Dir, a Section of the caller's) enters the gate
// below; Stop waits for the commits in progress to finish, refuses every
// later one with ErrStopped, and removes the temporary files and
// directories of writes still under way (CreateTemp, MkdirTemp), so the
// process can exit at once with every output either as it was or wholly
// new, and no temporary file left behind.
//
// Stop is for a process's main function: it is final, for the whole
// process.

// ErrStopped is the error of a commit refused because Stop was called.
var ErrStopped = errors.New("not written: the process is stopping")

var gate = struct {
	mu      sync.Mutex
	idle    *sync.Cond // signalled when active drops to 0
	closing bool       // Stop was called: no new commit may begin
	stopped bool       // Stop has returned
	active  int        // commits in progress
	commits int        // commits finished
	temps   map[string]bool
}{temps: map[string]bool{}}

func init() { gate.idle = sync.NewCond(&gate.mu) }

// enter begins a commit. Once Stop was called a commit may only begin
// while another is in progress (a commit inside a Section, or another
// goroutine's beside it), so that Stop's wait ends and a Section finishes
// whole.
func enter() error {
	gate.mu.Lock()
	defer gate.mu.Unlock()
	if gate.stopped || gate.closing && gate.active == 0 {
		return ErrStopped
	}
	gate.active++
	return nil
}

// leave ends a commit of path; ok says it happened. A commit inside a
// temporary directory (a file of a directory Dir or a report is staging)
// is not an output yet, and is not counted.
func leave(path string, ok bool) {
	gate.mu.Lock()
	defer gate.mu.Unlock()
	gate.active--
	if ok && !staged(path) {
		gate.commits++
	}
	if gate.active == 0 {
		gate.idle.Broadcast()
	}
}

// Section runs fn as one commit: Stop waits for it to finish, and fn
// never starts once Stop was called (ErrStopped). It is for a change of
// several files that must not be cut short (a report's install).
func Section(fn func() error) error {
	if err := enter(); err != nil {
		return err
	}
	err := fn()
	leave("", err == nil)
	return err
}

// Stop waits for the commits in progress, refuses every later one with
// ErrStopped, and removes the temporary files and directories of the
// writes still under way. Commits says whether anything was written.
func Stop() {
	gate.mu.Lock()
	defer gate.mu.Unlock()
	gate.closing = true
	for gate.active > 0 {
		gate.idle.Wait()
	}
	gate.stopped = true
	for p := range gate.temps {
		os.RemoveAll(p)
	}
	clear(gate.temps)
}

// Commits is the number of outputs committed in this process so far: a
// Section, a file renamed into place, a directory replaced; not the files
// written into a temporary directory on its way.
func Commits() int {
	gate.mu.Lock()
	defer gate.mu.Unlock()
	return gate.commits
}

// CreateTemp creates a temporary file beside path for a write that Commit
// will rename into place (os.CreateTemp in path's directory, named
// .NAME.tmp-*). Stop removes it if the write is still under way. A caller
// that gives up removes it with Discard.
func CreateTemp(path string) (*os.File, error) {
	dir, base := splitPath(path)
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, err
	}
	if !track(f.Name()) {
		f.Close()
		os.Remove(f.Name())
		return nil, ErrStopped
	}
	return f, nil
}

// MkdirTemp creates a temporary directory beside path (.NAME.tmp-*) for
// an output staged there; Stop removes it if the write is still under
// way. The caller removes it with Discard.
func MkdirTemp(path string) (string, error) {
	dir, base := splitPath(path)
	tmp, err := os.MkdirTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return "", err
	}
	if !track(tmp) {
		os.RemoveAll(tmp)
		return "", ErrStopped
	}
	return tmp, nil
}

// Discard removes a temporary file or directory of CreateTemp or
// MkdirTemp (and forgets it).
func Discard(tmp string) {
	untrack(tmp)
	os.RemoveAll(tmp)
}

func track(p string) bool {
	gate.mu.Lock()
	defer gate.mu.Unlock()
	if gate.stopped || gate.closing && gate.active == 0 {
		return false // as enter: only inside a commit in progress
	}
	gate.temps[p] = true
	return true
}

// staged reports whether path lies inside a temporary directory still
// tracked (gate.mu held).
func staged(path string) bool {
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if gate.temps[dir] {
			return true
		}
		if dir == filepath.Dir(dir) {
			return false
		}
	}
}

func untrack(p string) {
	gate.mu.Lock()
	defer gate.mu.Unlock()
	delete(gate.temps, p)
}
