package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/internal/optional"
)

// TestReadmeExamples runs README's "One example per stage" block as
// written, in order, in a directory that holds the repository's inputs
// (datasets, benchmarks, examples) and a fresh out/: each command must
// exit 0 (coloc serve must start, answer README's curl example of
// /v1/score and stop on SIGTERM). The profiling example needs PyTorch
// (Debian's python3-torch); about two minutes on two cores.
func TestReadmeExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every README example (minutes)")
	}
	cmds := readmeBlock(t, "## One example per stage")
	if len(cmds) < 10 {
		t.Fatalf("README's example block has %d commands: %q", len(cmds), cmds)
	}
	bin := buildColoc(t)
	dir := t.TempDir()
	for _, d := range []string{"datasets", "benchmarks", "examples"} {
		abs, _ := filepath.Abs(filepath.Join("..", "..", d))
		if err := os.Symlink(abs, filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	curl := readmeCurl(t)
	for _, line := range cmds {
		args, err := splitShell(line)
		if err != nil || len(args) == 0 || args[0] != "coloc" {
			t.Fatalf("README example %q: %v (want a coloc command)", line, err)
		}
		name := strings.Join(args[1:min(3, len(args))], " ")
		t.Run(name, func(t *testing.T) {
			if args[1] == "profile" && args[2] == "run" {
				if _, err := exec.Command("/usr/bin/python3", "-c", "import torch").CombinedOutput(); err != nil {
					optional.Missing(t, "torch", "COLOC_REQUIRE_TORCH", "README's profiling example needs /usr/bin/python3 with torch (apt-get install python3-torch)")
				}
			}
			c := exec.Command(bin, args[1:]...)
			c.Dir = dir
			if args[1] == "profile" && args[2] == "run" {
				// README's python3 is one with torch: Debian's, which
				// another python3 earlier on PATH may hide.
				c.Env = append(os.Environ(), "PATH=/usr/bin:"+os.Getenv("PATH"))
			}
			if args[1] == "serve" {
				serveReadme(t, c, curl)
				return
			}
			start := time.Now()
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", line, err, out)
			}
			t.Logf("%s: %.1f s", name, time.Since(start).Seconds())
		})
	}
}

// serveReadme starts coloc serve as README does, sends README's curl
// body of /v1/score, and stops it with SIGTERM.
func serveReadme(t *testing.T, c *exec.Cmd, curlBody string) {
	t.Helper()
	addr, errb, done := startServe(t, c)
	defer c.Process.Kill()
	resp, err := http.Post("http://"+addr+"/v1/score", "application/json", strings.NewReader(curlBody))
	if err != nil {
		t.Fatalf("README's curl example: %v", err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(out, []byte(`"options"`)) {
		t.Errorf("README's curl example: %s\n%s", resp.Status, out)
	}
	c.Process.Signal(syscall.SIGTERM)
	if err := <-done; err != nil {
		t.Errorf("coloc serve after SIGTERM: %v\n%s", err, errb.String())
	}
}

// readmeBlock returns the commands of the first indented code block after
// the heading: continuation lines joined, comments dropped.
func readmeBlock(t *testing.T, heading string) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no %q", heading)
	}
	var cmds []string
	var cur strings.Builder
	in := false
	for _, l := range strings.Split(rest, "\n") {
		code, isCode := strings.CutPrefix(l, "    ")
		if !isCode {
			if in && strings.TrimSpace(l) == "" {
				continue
			}
			if in {
				break
			}
			continue
		}
		in = true
		code = strings.TrimSpace(code)
		if i := strings.Index(code, "   # "); i >= 0 {
			code = strings.TrimSpace(code[:i])
		}
		if more, cont := strings.CutSuffix(code, `\`); cont {
			cur.WriteString(more)
			continue
		}
		cur.WriteString(code)
		cmds = append(cmds, cur.String())
		cur.Reset()
	}
	return cmds
}

// readmeCurl is the JSON body of README's curl example of /v1/score.
func readmeCurl(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "curl -s localhost:8080/v1/score -d '")
	if i < 0 {
		t.Fatal("README has no curl example of /v1/score")
	}
	body, _, _ := strings.Cut(s[i+len("curl -s localhost:8080/v1/score -d '"):], "'")
	return body
}

// splitShell splits a command line as sh would for plain words, single
// and double quotes (no expansions: README's examples use none).
func splitShell(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	quote, word := rune(0), false
	for _, c := range s {
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(c)
		case c == '\'' || c == '"':
			quote, word = c, true
		case c == ' ' || c == '\t':
			if word {
				out = append(out, cur.String())
				cur.Reset()
				word = false
			}
		default:
			cur.WriteRune(c)
			word = true
		}
	}
	if quote != 0 {
		return nil, os.ErrInvalid
	}
	if word {
		out = append(out, cur.String())
	}
	return out, nil
}
