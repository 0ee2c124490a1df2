package fleet

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestDevice(t *testing.T) {
	for _, tc := range []struct {
		device string
		gpus   int
		set    bool
		want   string // device/gpus, or the error
	}{
		{"", 1, false, "cuda/1"},
		{"", 0, true, "cpu/0"},
		{"cpu", 1, false, "cpu/0"}, // the default of the GPU flag
		{"cpu", 2, true, "--gpus-per-node 2 with --device cpu"},
		{"cuda", 0, true, "--device cuda with --gpus-per-node 0"},
		{"cuda", 4, true, "cuda/4"},
		{"", -1, true, "--gpus-per-node -1: want 0 or more"},
		{"tpu", 1, false, `--device "tpu": want cuda or cpu`},
	} {
		dev, gpus, err := Device(tc.device, tc.gpus, tc.set, "gpus-per-node")
		got := fmt.Sprintf("%s/%d", dev, gpus)
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q, %d GPUs (given %v): got %q, want %q", tc.device, tc.gpus, tc.set, got, tc.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	f := gpuFleet(t)
	got := f.Describe()
	want := regexp.MustCompile(`^fleet h200: suite \S+, \d+ runs on cuda \(2 GPUs a shard\), 3 shards of \S+ at most \(estimated; \S+ in all\)\n`)
	if !want.MatchString(got) {
		t.Errorf("%q", got)
	}
}

// A merge with a shard not started lists its runs as missing and says how
// to run them again; the failed runs of the other shard are listed with
// the first line of their error.
func TestMergeWriteText(t *testing.T) {
	s := loadSuite(t, "bad")
	po := planOpts("all", 1, 0, 1)
	dir, _ := newTestFleet(t, s, po, 2)
	runShard(t, dir, s, po, 1, 2, "cpu")
	res, err := Merge(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	res.WriteText(&b, dir)
	text := b.String()
	for _, re := range []string{
		`^fleet camp: suite bad, 5 runs in 2 shards\n`,
		`\n1 +done +cpu `,
		`\n2 +not started +- +- +0/\d\n`,
		`\nmerged into .*: \d of 5 runs finished \(\d ok, [1-9] failed, 0 infeasible\) on cpu; tables: runs \d rows`,
		`\nfailed: \S*bad\S* \(shard 1\): [^\n]+\n`,
		`\nmissing: \d runs\n`,
		`\nshards 2 are unfinished\n$`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("merge text lacks %s:\n%s", re, text)
		}
	}
}
