package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Three coloc processes write one directory at once, round after round:
// an import (a pairs table), a fit (a model index and its model) and a
// report (index.html and its figures). Each round's inputs differ, so each
// output names its round: the pairs table's SHA-256 is the import's
// content, and the fit's index and the report's footer both record it.
// Whatever the order the processes run in, nothing is lost: after every
// round the directory holds the output of the last successful run of each
// command, and a run that did not succeed was refused, naming the process
// that held the directory.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	rounds := 100
	if testing.Short() {
		rounds = 3
	}
	root := t.TempDir()
	out := filepath.Join(root, "out")
	type result struct {
		code   int
		stderr string
	}
	run := func(args ...string) result {
		var errb bytes.Buffer
		c := selfColoc(t, args...)
		c.Stderr = &errb
		err := c.Run()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			return result{ee.ExitCode(), errb.String()}
		case err != nil:
			t.Fatal(err)
		}
		return result{0, errb.String()}
	}
	sha := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			return "missing: " + err.Error()
		}
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:])
	}
	last := map[string]string{} // command -> SHA-256 of the pairs table of its last successful round
	refused := 0
	for r := 1; r <= rounds; r++ {
		in := filepath.Join(root, fmt.Sprintf("in-%d", r))
		os.Mkdir(in, 0o755)
		solo, pairs := filepath.Join(in, "solo.csv"), filepath.Join(in, "pairs.csv")
		var sb, pb strings.Builder
		sb.WriteString("workload,device_type,degree,throughput\n")
		pb.WriteString("workload,partner,device_type,degree,solo_throughput,colocated_throughput\n")
		names := []string{"a", "b", "c"}
		for i, w := range names {
			fmt.Fprintf(&sb, "%s,v100,1,%d\n", w, 100+r+i)
			for j, p := range names {
				fmt.Fprintf(&pb, "%s,%s,v100,1,%d,%d\n", w, p, 100+r+i, 50+r+i+j)
			}
		}
		os.WriteFile(solo, []byte(sb.String()), 0o644)
		os.WriteFile(pairs, []byte(pb.String()), 0o644)
		data := filepath.Join(in, "data")
		for _, args := range [][]string{
			{"datasets", "import", "csv", "--table", "solo", solo, "-o", data},
			{"datasets", "import", "csv", "--table", "pairs", pairs, "-o", data},
		} {
			if res := run(args...); res.code != 0 {
				t.Fatalf("coloc %s: %d\n%s", strings.Join(args, " "), res.code, res.stderr)
			}
		}
		want := sha(filepath.Join(data, "pairs.arrow"))

		cmds := map[string][]string{
			"import": {"datasets", "import", "csv", "--table", "pairs", pairs, "-o", out},
			"fit":    {"fit", "--data", data, "--models", "mean", "--folds", "0", "-o", out},
			"report": {"report", "--data", data, "-q", "-o", out},
		}
		results := map[string]result{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for name, args := range cmds {
			wg.Go(func() {
				res := run(args...)
				mu.Lock()
				results[name] = res
				mu.Unlock()
			})
		}
		wg.Wait()
		for name, res := range results {
			switch {
			case res.code == 0:
				last[name] = want
			case strings.Contains(res.stderr, "is being written by process"):
				refused++
			default:
				t.Fatalf("round %d: coloc %s failed without being refused (status %d):\n%s", r, name, res.code, res.stderr)
			}
		}
		if h, ok := last["import"]; ok {
			if got := sha(filepath.Join(out, "pairs.arrow")); got != h {
				t.Fatalf("round %d: pairs.arrow is %s, want the last import's %s", r, got, h)
			}
		}
		for name, file := range map[string]string{"fit": "index.json", "report": "index.html"} {
			if h, ok := last[name]; ok {
				b, _ := os.ReadFile(filepath.Join(out, file))
				if !bytes.Contains(b, []byte(h)) {
					t.Fatalf("round %d: %s does not name the data of the last successful %s (pairs %s): it was lost", r, file, name, h)
				}
			}
		}
	}
	t.Logf("%d rounds of 3 writers: %d runs refused, the rest wrote their outputs, none lost", rounds, refused)
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left in the parent directory: %s", e.Name())
		}
	}
}
