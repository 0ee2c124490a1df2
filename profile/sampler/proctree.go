package sampler

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// Descendants returns pids followed by every live descendant of them, read
// from ROOT/PID/task/TID/children (Linux 3.5 and later with
// CONFIG_PROC_CHILDREN, as in Debian's and Ubuntu's kernels). Each PID
// appears once, in breadth-first order. Where the children files are
// missing it returns pids alone. It is how the Recorder follows the
// workers a launcher such as torchrun starts after the run began.
func Descendants(procRoot string, pids []int) []int {
	seen := make(map[int]bool, len(pids))
	out := make([]int, 0, len(pids))
	for _, p := range pids {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for i := 0; i < len(out); i++ {
		for _, c := range children(procRoot, out[i]) {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// children lists the children of every thread of pid (a child belongs to
// the thread that forked it).
func children(procRoot string, pid int) []int {
	taskDir := filepath.Join(procRoot, strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(taskDir)
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(taskDir, t.Name(), "children"))
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(b) {
			if c, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}
