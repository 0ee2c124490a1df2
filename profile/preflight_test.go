package profile

import (
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
)

func TestPreflight(t *testing.T) {
	py := fake("py", "ok")
	py.Command = []string{placeholderPython, "{suite_dir}/needs_torch.py"}
	noScript := fake("noscript", "ok")
	noScript.Command = []string{placeholderPython, "{suite_dir}/missing.sh"}
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
		err := r.preflight([]PlannedRun{tc.run})
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
	if err := r.preflight([]PlannedRun{soloRun("ok")}); err == nil || !strings.Contains(err.Error(), "Python interpreter (--python)") {
		t.Errorf("missing interpreter: %v", err)
	}
}

// TestPreflightComputeModes: runs a GPU's compute mode forbids are refused
// before any of them, with the fix named; the others pass.
func TestPreflightComputeModes(t *testing.T) {
	s := fakeSuite(t, fake("a", "ok"), fake("b", "ok"))
	scale := PlannedRun{ID: "scale.a.d2.r0", Mode: datasets.ModeScale, Workloads: []string{"a"}, Degree: 2}
	tests := []struct {
		kind, share string
		modes       []string // of GPUs 4 and 6
		run         PlannedRun
		want        []string // substrings of the error; nil: no error
	}{
		{"cuda", "", []string{"default", "default"}, pairRun("a", "b"), nil},
		{"cuda", "", []string{"exclusive_process", "default"}, soloRun("a"), nil},
		{"cuda", "", []string{"exclusive_process", "exclusive_process"}, scale, nil},
		{"cuda", datasets.ShareMPS, []string{"exclusive_process", "default"}, pairRun("a", "b"), nil},
		{"cuda", "", []string{"", ""}, pairRun("a", "b"), nil},
		{"cpu", "", []string{"prohibited", "prohibited"}, pairRun("a", "b"), nil},
		{"cuda", "", []string{"exclusive_process", "default"}, pairRun("a", "b"),
			[]string{"run pair.a+b.r0: GPU 4 is in compute mode exclusive_process", "every pair run would fail", "nvidia-smi -i 4 -c DEFAULT", "--share mps"}},
		{"cuda", datasets.ShareTimeSlice, []string{"exclusive_thread", "default"}, pairRun("a", "b"), []string{"GPU 4 is in compute mode exclusive_thread"}},
		{"cuda", datasets.ShareMPS, []string{"default", "prohibited"}, scale, []string{"run scale.a.d2.r0: GPU 6 is in compute mode prohibited", "nvidia-smi -i 6 -c DEFAULT"}},
	}
	for _, tc := range tests {
		o := fakeOptions(t)
		o.DeviceKind, o.Share = tc.kind, tc.share
		o.Devices = []Device{{Index: 4, Type: "h200", ComputeMode: tc.modes[0]}, {Index: 6, Type: "h200", ComputeMode: tc.modes[1]}}
		err := (&Runner{Suite: s, Options: o}).preflight([]PlannedRun{soloRun("b"), tc.run})
		name := tc.kind + " " + tc.share + " " + strings.Join(tc.modes, ",") + " " + tc.run.ID
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %v, want %q", name, err, w)
			}
		}
	}
}
