package fleet

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// hostile returns strings that would run `touch canary` if a generator
// wrote them into a shell script or a manifest unquoted: a newline, a
// command substitution, backticks, quotes and semicolons.
func hostile(canary string) []string {
	c := "touch " + canary
	return []string{
		"x\n" + c,
		"x\r\n" + c,
		"$(" + c + ")",
		"`" + c + "`",
		"x'; " + c + "; '",
		`x"; ` + c + " #",
		"x;" + c,
		"x && " + c,
		"x\\\n" + c,
		"x\n---\napiVersion: v1\nkind: Pod",
	}
}

// runCaptured runs script (or, with eval, the shell text script) in bash
// with exec replaced by a function that records its arguments, and
// returns them: the command the script would have run.
func runCaptured(t *testing.T, script string, env ...string) []string {
	t.Helper()
	tmp := t.TempDir()
	file, args := filepath.Join(tmp, "script"), filepath.Join(tmp, "args")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("bash", "-n", file).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v: %s\n%s", err, out, script)
	}
	cmd := exec.Command("bash", "-c", `exec() { printf '%s\0' "$@" >"$ARGS"; }; . "$1"`, "bash", file)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "ARGS=" + args}, env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("running the script: %v: %s\n%s", err, out, script)
	}
	b, err := os.ReadFile(args)
	if err != nil {
		t.Fatalf("the script ran no exec: %v\n%s", err, script)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

func requireBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
}

// TestSlurmScriptHostile puts each hostile string into each string of a
// fleet that reaches the sbatch script. Either the generator refuses it
// (names, #SBATCH values), or the script parses, runs exactly the shard's
// command with the string as one argument, and runs nothing else.
func TestSlurmScriptHostile(t *testing.T) {
	requireBash(t)
	tmp := t.TempDir()
	canary := filepath.Join(tmp, "canary")
	fields := []struct {
		name   string
		quoted bool // accepted and quoted, rather than refused
		set    func(f *Fleet, dir *string, s string)
	}{
		{"suite name", false, func(f *Fleet, _ *string, s string) { f.Suite.Name = s }},
		{"fleet name", false, func(f *Fleet, _ *string, s string) { f.Name = s }},
		{"job name", false, func(f *Fleet, _ *string, s string) { f.Slurm.JobName = s }},
		{"partition", false, func(f *Fleet, _ *string, s string) { f.Slurm.Partition = s }},
		{"constraint", false, func(f *Fleet, _ *string, s string) { f.Slurm.Constraint = s }},
		{"time", false, func(f *Fleet, _ *string, s string) { f.Slurm.Time = s }},
		{"directory", false, func(_ *Fleet, dir *string, s string) { *dir += "/" + s }},
		{"coloc", true, func(f *Fleet, _ *string, s string) { f.Slurm.Coloc = "/opt/" + s }},
		{"python", true, func(f *Fleet, _ *string, s string) { f.Slurm.Python = "/opt/" + s }},
		{"suite path", true, func(f *Fleet, _ *string, s string) { f.Slurm.Suite = "/opt/" + s }},
		{"run flag", true, func(f *Fleet, _ *string, s string) { f.Args = append(f.Args, "--label", s) }},
	}
	for _, fd := range fields {
		for _, s := range hostile(canary) {
			f, dir := gpuFleet(t), filepath.Join(tmp, "camp")
			fd.set(f, &dir, s)
			script, err := SlurmScript(dir, f)
			control := strings.ContainsAny(s, "\r\n")
			if err != nil {
				if fd.quoted && !control {
					t.Errorf("%s %q: refused (%v), want it quoted", fd.name, s, err)
				}
				continue
			}
			if !fd.quoted || control {
				t.Errorf("%s %q: accepted, want it refused", fd.name, s)
			}
			got := runCaptured(t, script, "SLURM_ARRAY_TASK_ID=2")
			want := append(append([]string{f.Slurm.Coloc, "profile", "run", "--suite", f.Slurm.Suite, "--python", f.Slurm.Python}, f.Args...),
				"--out", filepath.Join(dir, shardsDir, "2"), "--shard", "2/3")
			if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				t.Errorf("%s %q: the script runs\n%q\nwant\n%q", fd.name, s, got, want)
			}
			if _, err := os.Stat(canary); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s %q: the script ran the injected command:\n%s", fd.name, s, script)
			}
		}
	}
}

// TestK8sManifestHostile puts each hostile string into each string of a
// fleet that reaches the manifest. Either the generator refuses it, or the
// manifest is one YAML document, a Job of one container, whose script runs
// exactly the shard's command and nothing else.
func TestK8sManifestHostile(t *testing.T) {
	requireBash(t)
	canary := filepath.Join(t.TempDir(), "canary")
	fields := []struct {
		name   string
		quoted bool
		set    func(f *Fleet, s string)
	}{
		{"suite name", false, func(f *Fleet, s string) { f.Suite.Name = s }},
		{"fleet name", false, func(f *Fleet, s string) { f.Name = s }},
		{"job name", false, func(f *Fleet, s string) { f.K8s.JobName = s }},
		{"namespace", false, func(f *Fleet, s string) { f.K8s.Namespace = s }},
		{"image", false, func(f *Fleet, s string) { f.K8s.Image = "registry.example.com/" + s }},
		{"claim", false, func(f *Fleet, s string) { f.K8s.PVC = s }},
		{"cpus", false, func(f *Fleet, s string) { f.K8s.CPUs = s }},
		{"node selector key", false, func(f *Fleet, s string) { f.K8s.NodeSelector = map[string]string{s: "a"} }},
		{"node selector value", false, func(f *Fleet, s string) { f.K8s.NodeSelector = map[string]string{"a": s} }},
		{"mount path", true, func(f *Fleet, s string) { f.K8s.MountPath = "/mnt/" + s }},
		{"coloc", true, func(f *Fleet, s string) { f.K8s.Coloc = "/opt/" + s }},
		{"python", true, func(f *Fleet, s string) { f.K8s.Python = "/opt/" + s }},
		{"suite path", true, func(f *Fleet, s string) { f.K8s.Suite = "/opt/" + s }},
		{"run flag", true, func(f *Fleet, s string) { f.Args = append(f.Args, "--label", s) }},
	}
	for _, fd := range fields {
		for _, s := range hostile(canary) {
			f := k8sFleet(t)
			fd.set(f, s)
			b, err := K8sManifest(f)
			control := strings.ContainsAny(s, "\r\n")
			if err != nil {
				if fd.quoted && !control {
					t.Errorf("%s %q: refused (%v), want it quoted", fd.name, s, err)
				}
				continue
			}
			if !fd.quoted || control {
				t.Errorf("%s %q: accepted, want it refused", fd.name, s)
			}
			dec := yaml.NewDecoder(bytes.NewReader(b))
			var docs []map[string]any
			for {
				var d map[string]any
				if err := dec.Decode(&d); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatalf("%s %q: manifest does not parse: %v\n%s", fd.name, s, err, b)
				}
				docs = append(docs, d)
			}
			if len(docs) != 1 || docs[0]["kind"] != "Job" {
				t.Fatalf("%s %q: %d documents (want one Job):\n%s", fd.name, s, len(docs), b)
			}
			doc := docs[0]
			cs := at(t, doc, "spec", "template", "spec", "containers").([]any)
			if len(cs) != 1 || at(t, doc, "metadata", "annotations", "coloc.dev/suite") != f.Suite.Name {
				t.Errorf("%s %q: %d containers, suite annotation %v", fd.name, s, len(cs), at(t, doc, "metadata", "annotations", "coloc.dev/suite"))
			}
			if got := at(t, doc, "spec", "template", "spec", "containers", 0, "volumeMounts", 0, "mountPath"); got != f.K8s.MountPath {
				t.Errorf("%s %q: mountPath %q", fd.name, s, got)
			}
			script := at(t, doc, "spec", "template", "spec", "containers", 0, "command", 2).(string)
			got := runCaptured(t, script, "JOB_COMPLETION_INDEX=1")
			want := append(append([]string{f.K8s.Coloc, "profile", "run", "--suite", f.K8s.Suite, "--python", f.K8s.Python}, f.Args...),
				"--out", path.Join(f.K8s.MountPath, shardsDir, "2"), "--shard", "2/3")
			if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				t.Errorf("%s %q: the pod runs\n%q\nwant\n%q", fd.name, s, got, want)
			}
			if _, err := os.Stat(canary); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s %q: the pod's script ran the injected command:\n%s", fd.name, s, script)
			}
		}
	}
}
