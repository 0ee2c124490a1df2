package place

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
)

const (
	gavelDir    = "../datasets/reference/gavel"
	exampleSpec = "../examples/cluster.yaml"
	exampleJobs = "../examples/jobs.yaml"
)

// fixedNow is the creation time of every export in the tests.
var fixedNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

var (
	fitOnce sync.Map // model list -> *fitResult
	tmpRoot string
)

type fitResult struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "place-test-")
	if err != nil {
		panic(err)
	}
	tmpRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fitGavel fits the named models on the reference Gavel data once per
// test binary (seed model.DefaultSeed) and returns their directory.
func fitGavel(tb testing.TB, names ...string) string {
	tb.Helper()
	key := strings.Join(names, ",")
	v, _ := fitOnce.LoadOrStore(key, &fitResult{})
	r := v.(*fitResult)
	r.once.Do(func() {
		d, err := model.LoadData(gavelDir)
		if err != nil {
			r.err = err
			return
		}
		fitted, err := model.FitAll(d, names, model.DefaultSeed)
		if err != nil {
			r.err = err
			return
		}
		r.dir = filepath.Join(tmpRoot, "models-"+strings.Join(names, "-"))
		_, r.err = model.WriteDir(r.dir, d, fitted)
	})
	if r.err != nil {
		tb.Fatal(r.err)
	}
	return r.dir
}

// fastModels are cheap to fit: the unit tests of decisions that rest on
// measured pairs use them; the IASP/IAPP defaults are tested where
// -short is off.
var fastNames = ModelNames{Cluster: "bias", Node: "linear"}

func fastModels(tb testing.TB) *Models {
	tb.Helper()
	m, err := LoadModels(fitGavel(tb, "bias", "linear", "similarity"), fastNames)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func gavelData(tb testing.TB) *Data {
	tb.Helper()
	d, err := LoadData([]string{gavelDir})
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func loadInput(tb testing.TB, specPath, jobsPath string, m *Models) Input {
	tb.Helper()
	spec, err := cluster.Load(specPath)
	if err != nil {
		tb.Fatal(err)
	}
	list, err := jobs.Load(jobsPath)
	if err != nil {
		tb.Fatal(err)
	}
	return Input{Cluster: spec, ClusterFile: specPath, Jobs: list, JobsFile: jobsPath, Data: gavelData(tb), Models: m}
}

func export(tb testing.TB, in Input) *policy.File {
	tb.Helper()
	f, err := Export(in, ExportOptions{Thresholds: policy.DefaultThresholds, Now: fixedNow})
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

func decisionOf(tb testing.TB, f *policy.File, id string) policy.Decision {
	tb.Helper()
	for _, d := range f.Decisions {
		if d.Job == id {
			return d
		}
	}
	tb.Fatalf("no decision for job %s", id)
	return policy.Decision{}
}

// jobList parses a job list given as text.
func jobList(tb testing.TB, text string) *jobs.List {
	tb.Helper()
	l, err := jobs.Parse(strings.NewReader(text), "test.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	return l
}
