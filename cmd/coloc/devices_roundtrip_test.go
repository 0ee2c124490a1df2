package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/policy"
)

// deviceNames are device type names coloc's detection produces or users
// write; none may be read as a degree or otherwise parsed.
var deviceNames = []string{"rtx3090", "rtx6000", "a100-80gb", "l40s", "h200"}

// syntheticCSV writes a solo and a pairs CSV of nJobs workloads with two
// solo counters on every device of deviceNames: the normalized throughput
// of a next to b falls with both jobs' SM utilisation (known structure,
// a little noise). Job w7 has no pair at all (never paired: out of
// distribution), and a fifth of the other pairs are left out.
func syntheticCSV(t *testing.T, dir string) (solo, pairs string) {
	t.Helper()
	const nJobs = 8
	r := rand.New(rand.NewPCG(14, 14))
	var sb, pb strings.Builder
	sb.WriteString("workload,device_type,degree,throughput [samples/s],sm_util [%],mem_util [%]\n")
	pb.WriteString("workload,partner,device_type,degree,solo_throughput [samples/s],colocated_throughput [samples/s]\n")
	for di, dev := range deviceNames {
		sm := make([]float64, nJobs)
		tput := make([]float64, nJobs)
		for j := 0; j < nJobs; j++ {
			sm[j] = 20 + 75*r.Float64()
			tput[j] = 100 * float64(j+1) * (1 + float64(di)/4)
			fmt.Fprintf(&sb, "w%d,%s,1,%.3f,%.2f,%.2f\n", j, dev, tput[j], sm[j], 10+80*r.Float64())
		}
		for a := 0; a < nJobs-1; a++ {
			for b := 0; b < nJobs-1; b++ {
				if r.Float64() < 0.2 {
					continue
				}
				y := 0.95 - 0.45*(sm[a]/100)*(sm[b]/100) + 0.01*r.NormFloat64()
				fmt.Fprintf(&pb, "w%d,w%d,%s,1,%.3f,%.4f\n", a, b, dev, tput[a], y*tput[a])
			}
		}
	}
	solo, pairs = filepath.Join(dir, "solo.csv"), filepath.Join(dir, "pairs.csv")
	for path, body := range map[string]string{solo: sb.String(), pairs: pb.String()} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return solo, pairs
}

// Device type names round-trip through import -> fit -> predict -> policy
// export, and no prediction outside the plausible range reaches the policy
// file unflagged.
func TestDeviceNamesRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models on 5 devices")
	}
	dir := t.TempDir()
	solo, pairs := syntheticCSV(t, dir)
	data, models := filepath.Join(dir, "data"), filepath.Join(dir, "models")
	mustRun(t, "datasets", "import", "csv", "--table", "solo", solo, "-o", data)
	mustRun(t, "datasets", "import", "csv", "--table", "pairs", pairs, "-o", data)
	mustRun(t, "datasets", "validate", data)
	mustRun(t, "fit", "--data", data, "-o", models, "--models", "pmf,linear,iasp,similarity", "--folds", "3")
	for _, dev := range deviceNames {
		out, _ := mustRun(t, "predict", "--models", models, "--device", dev, "w0", "w1")
		if !strings.Contains(out, "normalized throughput on "+dev) || strings.Contains(out, "unseen") {
			t.Errorf("predict on %s:\n%s", dev, out)
		}
		out, errOut := mustRun(t, "predict", "--models", models, "--device", dev, "w0", "w7")
		if !strings.Contains(out, "unseen:w7") || !strings.Contains(errOut, "w7 had no training pair on "+dev) ||
			!strings.Contains(errOut, "profiling a few of its pairs there") {
			t.Errorf("predict w7 (never paired) on %s: no unseen flag:\n%s\n%s", dev, out, errOut)
		}
	}
	var cl, jobs strings.Builder
	cl.WriteString("version: 1\nname: five\nnodes:\n")
	jobs.WriteString("version: 1\nname: five\njobs:\n")
	for i, dev := range deviceNames {
		fmt.Fprintf(&cl, "  - name: n%d\n    gpu_type: %s\n    gpus: 2\n    gpu_memory_gb: 24\n", i, dev)
	}
	for j := 0; j < 8; j++ {
		fmt.Fprintf(&jobs, "  - id: j%d\n    workload: w%d\n    steps: 1000\n", j, j)
	}
	clusterFile, jobsFile := filepath.Join(dir, "cluster.yaml"), filepath.Join(dir, "jobs.yaml")
	os.WriteFile(clusterFile, []byte(cl.String()), 0o644)
	os.WriteFile(jobsFile, []byte(jobs.String()), 0o644)
	for _, cm := range []string{"iasp", "pmf", "linear"} {
		out := filepath.Join(dir, "policy-"+cm+".json")
		stdout, stderr := mustRun(t, "policy", "export", "--cluster", clusterFile, "--jobs", jobsFile, "--models", models,
			"--data", data, "--cluster-model", cm, "--node-model", cm, "-o", out)
		if !strings.Contains(stdout, "predicted pairs:") {
			t.Errorf("%s: export summary lacks the prediction counts:\n%s", cm, stdout)
		}
		if !strings.Contains(stderr, "unseen pairs rest on their workload's features alone") {
			t.Errorf("%s: export with unseen pairs gives no note on what removes their error:\n%s", cm, stderr)
		}
		mustRun(t, "policy", "validate", out)
		pol, err := policy.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		f := pol.File
		s := f.Provenance.Predictions
		types := map[string]int{}
		unseen := 0
		for _, p := range f.Pairs {
			types[p.GPUType]++
			if p.Source == "measured" {
				continue
			}
			if !(p.Normalized >= s.RangeLow && p.Normalized <= s.RangeHigh) {
				t.Errorf("%s: %s|%s on %s: %v outside the range [%v, %v]", cm, p.Workload, p.Partner, p.GPUType, p.Normalized, s.RangeLow, s.RangeHigh)
			}
			if p.Raw != 0 && !(p.Raw < s.RangeLow || p.Raw > s.RangeHigh) {
				t.Errorf("%s: raw %v kept for a value inside the range", cm, p.Raw)
			}
			if !(p.Low > 0 && p.Low <= p.Normalized && p.Normalized <= p.High) || math.IsNaN(p.High) {
				t.Errorf("%s: %s|%s on %s: interval [%v, %v] around %v", cm, p.Workload, p.Partner, p.GPUType, p.Low, p.High, p.Normalized)
			}
			if strings.Contains(p.Workload+p.Partner, "w7") {
				unseen++
				if !strings.Contains(strings.Join(p.Flags, ","), policy.FlagUnseen) {
					t.Errorf("%s: %s|%s on %s not flagged unseen", cm, p.Workload, p.Partner, p.GPUType)
				}
			}
		}
		for _, dev := range deviceNames {
			if types[dev] == 0 {
				t.Errorf("%s: the policy file has no pair on %s", cm, dev)
			}
		}
		if unseen == 0 || s.Unseen != unseen {
			t.Errorf("%s: %d pairs with w7, summary counts %d unseen", cm, unseen, s.Unseen)
		}
		t.Logf("%s: %d predicted, %d clamped, %d unseen, range [%.3f, %.3f]", cm, s.Predicted, s.Clamped, s.Unseen, s.RangeLow, s.RangeHigh)
	}
}
