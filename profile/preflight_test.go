package profile

import (
	"strings"
	"testing"
)

func TestPreflight(t *testing.T) {
	py := fake("py", "ok")
	py.Command = []string{PlaceholderPython, "{suite_dir}/needs_torch.py"}
	noScript := fake("noscript", "ok")
	noScript.Command = []string{PlaceholderPython, "{suite_dir}/missing.sh"}
	noCmd := fake("nocmd", "ok")
	noCmd.Command = []string{"coloc-no-such-command", "--x"}
	s := fakeSuite(t, fake("ok", "ok"), py, noScript, noCmd)
	tests := []struct {
		run  PlannedRun
		want []string
	}{
		{soloRun("ok"), nil},
		{pairRun("ok", "nocmd"), []string{`workload nocmd: the command "coloc-no-such-command" cannot be run`, "fix the command in"}},
		{soloRun("noscript"), []string{"workload noscript: its script", "missing.sh"}},
		// fakepython.sh is sh: `import torch` fails there as it does in a
		// Python without torch.
		{soloRun("py"), []string{"fakepython.sh cannot import torch", "install PyTorch", "--python"}},
	}
	for _, tc := range tests {
		r := &Runner{Suite: s, Options: fakeOptions(t)}
		err := r.Preflight([]PlannedRun{tc.run})
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.run.ID, err)
			}
			continue
		}
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %v, want %q", tc.run.ID, err, w)
			}
		}
	}
	r := &Runner{Suite: s, Options: fakeOptions(t)}
	r.Options.Python = "/nonexistent/python3"
	if err := r.Preflight([]PlannedRun{soloRun("ok")}); err == nil || !strings.Contains(err.Error(), "Python interpreter (--python)") {
		t.Errorf("missing interpreter: %v", err)
	}
}
