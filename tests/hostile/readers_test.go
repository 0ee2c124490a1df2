package hostile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/policy/schema"
	"github.com/coloc-dev/coloc/profile"
	"github.com/coloc-dev/coloc/profile/sampler"
	"github.com/coloc-dev/coloc/sim"
)

const repo = "../.."

// reader is one reader of outside input under test.
type reader struct {
	// name is the reader as docs/safety.md names it; file the name its
	// input gets (some readers look at the extension).
	name, file string
	// valid is an input the reader accepts.
	valid []byte
	// read reads the input at path as coloc does.
	read func(path string) error
	// same, when set, is called on an input the reader accepted though it
	// was changed (a bit flipped, cut short): it must read the same as
	// valid (the Arrow tables, whose checksums allow nothing else).
	same func(path string) error
	// numbers says every number written in valid is a value the reader
	// parses as a number, so that a number no format allows (NaN, 1_000,
	// 0x10, ...) written in its place must be refused.
	numbers bool
	// binary: no text edits, bit flips instead.
	binary bool
	// invalid are edits of valid the docs call invalid: each must be
	// refused.
	invalid []edit
	// setup, when set, prepares the directory the input is written into
	// (the other files a reader of a directory needs).
	setup func(dir string) error
}

// edit replaces old (which must be in the valid input) by new.
type edit struct{ what, old, new string }

// readers are every reader of outside input, each with a valid input.
func readers(t *testing.T) []*reader {
	t.Helper()
	tmp := t.TempDir()
	ref := filepath.Join(repo, "datasets", "reference", "gavel")
	// An Arrow table written by coloc (with checksums), and the table it
	// holds.
	pairsTab, err := datasets.ImportCSV(strings.NewReader("workload,partner,device_type,degree,solo_throughput,colocated_throughput\nA,B,v100,1,10,4\nB,A,v100,1,8,5\nA,A,v100,1,10,6\n"), "p.csv", datasets.KindPairs)
	if err != nil {
		t.Fatal(err)
	}
	arrowPath := filepath.Join(tmp, "pairs.arrow")
	if err := datasets.Write(arrowPath, pairsTab); err != nil {
		t.Fatal(err)
	}
	arrowBytes := mustRead(t, arrowPath)

	// A model directory fit on Gavel's data: mean, no intervals.
	ds, err := datasets.Open(ref)
	if err != nil {
		t.Fatal(err)
	}
	d, err := model.DataOfWith(ds, model.DataOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fitted, err := model.FitCalibrated(d, []string{"mean"}, 1, model.TrustOptions{Coverage: 0.9}, 1)
	if err != nil {
		t.Fatal(err)
	}
	models := filepath.Join(tmp, "models")
	if _, err := model.WriteDir(models, d, fitted); err != nil {
		t.Fatal(err)
	}
	copyModels := func(dir string) error {
		return os.CopyFS(dir, os.DirFS(models))
	}

	pairList := filepath.Join(tmp, "next.pairs")
	if err := model.WritePairList(pairList, [][2]string{{"A", "B"}, {"B", "C"}}, nil, nil); err != nil {
		t.Fatal(err)
	}

	return []*reader{
		{
			name: "Arrow table (datasets.Read)", file: "pairs.arrow", valid: arrowBytes, binary: true,
			read: func(p string) error { _, err := datasets.Read(p); return err },
			same: func(p string) error {
				got, err := datasets.Read(p)
				if err != nil {
					return err
				}
				if !got.Verified() || got.Len() != pairsTab.Len() || fmt.Sprint(got.Columns[0].Str) != fmt.Sprint(pairsTab.Columns[0].Str) {
					return fmt.Errorf("read another table: %s", got.Describe())
				}
				return nil
			},
		},
		{
			name: "CSV import (datasets.ImportCSV)", file: "pairs.csv", numbers: true,
			valid: []byte("workload,partner,device_type,degree,solo_throughput,colocated_throughput\nA,B,v100,1,10,4\nB,A,v100,1,8,5.5\n"),
			read:  func(p string) error { return importCSV(p, datasets.KindPairs) },
			invalid: []edit{
				{"newline in a name", "A,B,v100", "\"A\nX\",B,v100"},
				{"escape in a device type", "B,A,v100", "B,A,\"v100\x1b[2J\""},
				{"fraction for a degree", "A,B,v100,1,", "A,B,v100,1.5,"},
				{"negative throughput", "1,8,5.5", "1,8,-5.5"},
				{"zero throughput", "1,10,4", "1,10,0"},
				{"unknown column", "colocated_throughput\n", "colocated_throughput,colour\n"},
			},
		},
		{
			name: "Pollux import (datasets.ImportPollux)", file: "m/placements.csv", numbers: true,
			valid: []byte("placement,local_bsz,step_time,sync_time\n1,4,0.5,0.1\n2,8,0.75,0.25\n"),
			read: func(p string) error {
				_, err := datasets.ImportPollux(filepath.Dir(filepath.Dir(p)), datasets.DefaultPolluxOptions)
				return err
			},
			invalid: []edit{
				{"a placement that is not digits", "\n2,8", "\n2x,8"},
				{"negative step time", "0.75", "-0.75"},
				{"zero batch", "1,4,", "1,0,"},
			},
		},
		{
			name: "Gavel throughputs (datasets.ImportGavel)", file: "throughputs.json", numbers: true,
			valid: []byte(`{"v100": {"('A', 1)": {"null": 5.0, "('B', 1)": [2.0, 3.0]}, "('B', 1)": {"null": 4.0, "('A', 1)": [3.0, 2.0]}}}`),
			read: func(p string) error {
				f, err := inputfile.Open(p) // as coloc datasets import gavel opens it
				if err != nil {
					return err
				}
				defer f.Close()
				_, err = datasets.ImportGavel(f, p)
				return err
			},
			invalid: []edit{
				{"a member named twice", `"null": 5.0,`, `"null": 5.0, "null": 6.0,`},
				{"negative throughput", `"null": 4.0`, `"null": -4.0`},
				{"escape in a job name", `"('B', 1)": {"null"`, `"('B\u001b[2J', 1)": {"null"`},
			},
		},
		{
			name: "suite file (profile.LoadSuite)", file: "suite.yaml", numbers: true,
			valid: []byte("version: 1\nname: s\nworkloads:\n  - name: a\n    class: cnn\n    command: [\"/bin/true\"]\n    batch_size: 32\n    steps: 100\n    protocol: none\n    memory_gb: 2.5\n    est_step_s: 0.5\n"),
			read:  func(p string) error { _, err := profile.LoadSuite(p); return err },
			invalid: []edit{
				{"fraction for a batch size", "batch_size: 32", "batch_size: 1.5"},
				{"a second YAML document", "est_step_s: 0.5\n", "est_step_s: 0.5\n---\nversion: 1\n"},
				{"newline in a name", "name: a\n", "name: \"a\\nb\"\n"},
				{"unknown key", "steps: 100", "stepz: 100"},
				{"steps past the limit", "steps: 100", "steps: 9223372036854775807"},
			},
		},
		{
			name: "cluster spec (cluster.Load)", file: "cluster.yaml", numbers: true,
			valid: []byte("version: 1\nname: c\nnodes:\n  - name: a\n    gpu_type: v100\n    gpus: 4\n    count: 2\n    gpu_memory_gb: 16\n    link: nvlink\n    link_gbytes_s: 300\n    network_gbytes_s: 3.125\n"),
			read:  func(p string) error { _, err := cluster.Load(p); return err },
			invalid: []edit{
				{"fraction for GPUs", "gpus: 4", "gpus: 2.5"},
				{"GPUs past the limit", "gpus: 4", "gpus: 65"},
				{"2^63 GPUs", "gpus: 4", "gpus: 9223372036854775807"},
				{"escape in a name", "name: a\n", "name: \"a\\x1b[2J\"\n"},
				{"a second YAML document", "3.125\n", "3.125\n---\nversion: 1\n"},
				{"a key twice", "gpus: 4", "gpus: 4\n    gpus: 8"},
			},
		},
		{
			name: "job list (jobs.Load)", file: "jobs.yaml", numbers: true,
			valid: []byte("version: 1\nname: j\njobs:\n  - id: a\n    workload: A\n    degrees: [1, 2]\n    steps: 1000\n    arrival_s: 10\n    memory_gb: 8\n    batch_size: 64\n  - id: b\n    model: {class: cnn, params: 25.5, flops_per_sample: 8.2, batch_size: 32}\n    duration: 6h\n"),
			read:  func(p string) error { _, err := jobs.Load(p); return err },
			invalid: []edit{
				{"fraction for a degree", "degrees: [1, 2]", "degrees: [1.5]"},
				{"fraction for a batch size", "batch_size: 64", "batch_size: 1.5"},
				{"a class no model has", "class: cnn", "class: quantum"},
				{"newline in an id", "id: a\n", "id: \"a\\nb\"\n"},
				{"arrival past the limit", "arrival_s: 10", "arrival_s: 1e300"},
				{"a second YAML document", "duration: 6h\n", "duration: 6h\n---\nversion: 1\n"},
			},
		},
		{
			name: "Gavel trace (sim.LoadTrace)", file: "jobs.trace", numbers: true,
			valid: []byte("A\tcmd\t-n\tx\t100\t0\t1\nB\tcmd\t-n\tx\t2500\t35.5\t4\n"),
			read:  func(p string) error { _, err := sim.LoadTrace(p); return err },
			invalid: []edit{
				{"arrival 1e300", "\t35.5\t", "\t1e300\t"},
				{"10^15 steps", "\t2500\t", "\t1000000000000000\t"},
				{"escape in a job type", "B\tcmd", "B\x1b[2J\tcmd"},
				{"fraction of GPUs", "\t4\n", "\t1.5\n"},
			},
		},
		{
			name: "Gavel trace as a job list (sim.LoadJobs)", file: "jobs.trace", numbers: true,
			valid: []byte("A\tcmd\t-n\tx\t100\t0\t1\nB\tcmd\t-n\tx\t2500\t35.5\t4\n"),
			read:  func(p string) error { _, err := sim.LoadJobs(p); return err },
			invalid: []edit{
				{"more jobs than a job list holds", "A\tcmd\t-n\tx\t100\t0\t1\n", strings.Repeat("A\tcmd\t-n\tx\t100\t0\t1\n", jobs.MaxJobs)},
			},
		},
		{
			name: "policy file (policy.Load)", file: "policy.json", numbers: true,
			valid: mustRead(t, filepath.Join(repo, "policy", "testdata", "small.json")),
			read:  func(p string) error { _, err := policy.Load(p); return err },
			invalid: []edit{
				{"2^63 GPUs on a node", `"gpus": 4,`, `"gpus": 9223372036854775807,`},
				{"escape in a job", `"job": "resnet-train"`, `"job": "resnet\u001b[2J"`},
				{"a member named twice", `"format": "coloc.policy",`, `"format": "coloc.policy", "format": "coloc.policy",`},
			},
		},
		{
			name: "policy file, schema (policy validate)", file: "policy.json", numbers: true,
			valid: mustRead(t, filepath.Join(repo, "policy", "testdata", "small.json")),
			read: func(p string) error {
				b, err := inputfile.ReadAll(p, "a policy file", policy.MaxFileBytes) // as coloc policy validate reads it
				if err != nil {
					return err
				}
				if _, problems := schema.Check(b, p); len(problems) > 0 {
					return fmt.Errorf("%v", problems[0])
				}
				return nil
			},
			invalid: []edit{
				{"2^63 GPUs on a node", `"gpus": 4,`, `"gpus": 9223372036854775807,`},
				{"newline in a node name", `"name": "v100-a"`, `"name": "v100-a\n"`},
			},
		},
		{
			name: "model index (place.CheckModelDir, model.LoadDir)", file: "models/index.json", numbers: true,
			valid: mustRead(t, filepath.Join(models, model.IndexFile)),
			setup: func(dir string) error { return copyModels(filepath.Join(dir, "models")) },
			read:  loadModels,
			invalid: []edit{
				{"no models", `"models": [`, `"models": [], "x": [`},
				{"a file outside the directory", `"file": "mean.json"`, `"file": "../mean.json"`},
				{"a checksum of another file", `"file": "mean.json",` + "\n   " + `"sha256": "`, `"file": "mean.json",` + "\n   " + `"sha256": "0`},
			},
		},
		{
			name: "model file (place.CheckModelDir, model.LoadDir)", file: "models/mean.json",
			valid: mustRead(t, filepath.Join(models, "mean.json")),
			setup: func(dir string) error { return copyModels(filepath.Join(dir, "models")) },
			read:  loadModels,
			invalid: []edit{
				{"one byte more", "}", "} "},
			},
		},
		{
			name: "workloads.json (datasets.Open)", file: "data/workloads.json", numbers: true,
			valid: []byte(`{"format":"coloc.workloads","version":1,"workloads":[{"workload":"A","class":"cnn","params":1.5e7,"forward_flops_per_sample":2.2e9,"batch_size":32}]}`),
			setup: func(dir string) error {
				return os.WriteFile(filepath.Join(dir, "data", "pairs.arrow"), arrowBytes, 0o644)
			},
			read: func(p string) error { _, err := datasets.Open(filepath.Dir(p)); return err },
			invalid: []edit{
				{"a member named twice", `"class":"cnn",`, `"class":"cnn","class":"rnn",`},
				{"escape in a workload", `"workload":"A"`, `"workload":"A\u001b[2J"`},
				{"a second object after the first", `32}]}`, `32}]} {"format":"coloc.workloads"}`},
			},
		},
		{
			name: "pair list (profile.ReadPairList)", file: "next.pairs", numbers: true,
			valid: mustRead(t, pairList),
			read:  func(p string) error { _, err := profile.ReadPairList(p); return err },
		},
		{
			name: "Nsight Compute CSV (sampler.ParseNCU)", file: "ncu.csv",
			valid: mustRead(t, filepath.Join(repo, "profile", "sampler", "testdata", "ncu", "resnet18_h200_raw.csv")),
			read: func(p string) error {
				f, err := inputfile.Open(p) // as coloc profile import-ncu opens it
				if err != nil {
					return err
				}
				defer f.Close()
				_, _, err = sampler.ParseNCU(f, p)
				return err
			},
		},
	}
}

// loadModels reads the model directory of the file at path as coloc's
// loaders do: checked, then loaded.
func loadModels(path string) error {
	dir := filepath.Dir(path)
	if err := place.CheckModelDir(dir); err != nil {
		return err
	}
	_, err := model.LoadDir(dir, nil)
	return err
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// importCSV reads a CSV file as coloc datasets import csv does.
func importCSV(path string, k datasets.Kind) error {
	f, err := inputfile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = datasets.ImportCSV(f, path, k)
	return err
}

// The valid inputs are valid: a hostile case fails for what it changed.
func TestValidInputsRead(t *testing.T) {
	for _, r := range readers(t) {
		dir := t.TempDir()
		path := filepath.Join(dir, r.file)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if r.setup != nil {
			if err := r.setup(dir); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(path, r.valid, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := r.read(path); err != nil {
			t.Errorf("%s: the valid input: %v", r.name, err)
		}
		for _, e := range r.invalid {
			if !bytes.Contains(r.valid, []byte(e.old)) {
				t.Errorf("%s: edit %q: %q is not in the valid input", r.name, e.what, e.old)
			}
		}
	}
}
