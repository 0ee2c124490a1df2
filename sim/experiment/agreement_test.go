package experiment

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/coloc-dev/coloc/sim"
)

// gavelReference is testdata/gavel/reference.json: what Gavel's own
// simulator printed for fifo and max_min_fairness_perf on the 200-job
// cuts of the shipped msr traces (testdata/gavel/README.md says how it
// was run).
type gavelReference struct {
	Version     int               `json:"version"`
	GavelCommit string            `json:"gavel_commit"`
	Solver      string            `json:"solver"`
	Units       map[string]string `json:"units"`
	Runs        []struct {
		Trace        string  `json:"trace"`
		Cluster      string  `json:"cluster"`
		Policy       string  `json:"policy"`
		GavelPolicy  string  `json:"gavel_policy"`
		Seed         uint64  `json:"seed"`
		Jobs         int     `json:"jobs"`
		AvgJCT       float64 `json:"avg_jct_s"`
		Makespan     float64 `json:"makespan_s"`
		FirstArrival float64 `json:"first_arrival_s"`
		GavelArgs    string  `json:"gavel_args"`
	} `json:"runs"`
}

// agreement is the largest relative difference allowed between this
// simulator under Gavel's settings and Gavel's simulator, in average JCT
// and in makespan.
const agreement = 0.05

// With Gavel's settings, coloc's fifo and gavel-las reproduce Gavel's
// simulator within 5% in average JCT and makespan on every committed
// case (Gavel's makespan counts from time 0, this simulator's from the
// first arrival).
func TestAgreesWithGavelsSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every committed Gavel reference case")
	}
	dir := filepath.Join("testdata", "gavel")
	raw, err := os.ReadFile(filepath.Join(dir, "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref gavelReference
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if ref.Version != 1 || ref.Units["avg_jct_s"] != "s" || ref.Units["makespan_s"] != "s" {
		t.Fatalf("reference.json: version %d, units %v: want version 1 in seconds", ref.Version, ref.Units)
	}
	cases := map[string]bool{}
	for _, r := range ref.Runs {
		cases[r.Trace+"-"+r.Cluster] = true
	}
	if len(cases) < 12 {
		t.Fatalf("%d trace x cluster cases, want at least 12", len(cases))
	}
	specs := map[string]string{"gavel-16": "cluster-gavel-16.yaml", "gavel-48": "cluster-gavel-48.yaml", "gavel-108": "cluster-gavel.yaml"}
	for _, r := range ref.Runs {
		name := fmt.Sprintf("%s-%s-%s", r.Trace, r.Cluster, r.Policy)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec, ok := specs[r.Cluster]
			if !ok {
				t.Fatalf("unknown cluster %q", r.Cluster)
			}
			x := Experiment{Policies: []string{r.Policy}, Options: sim.DefaultOptions, Env: sim.Env{Seed: r.Seed}}
			in := Inputs{Trace: filepath.Join(dir, "traces", r.Trace+"-"+r.Cluster+".trace"),
				Cluster: filepath.Join("..", "..", "examples", spec), Data: filepath.Join("..", "..", "datasets", "reference", "gavel")}
			if err := ApplySettings(SettingsGavel, &x, &in, Explicit{NotGiven, NotGiven}); err != nil {
				t.Fatal(err)
			}
			if _, _, err := x.Load(in); err != nil {
				t.Fatal(err)
			}
			res, err := x.Run()
			if err != nil {
				t.Fatal(err)
			}
			got := res[0]
			if got.Completed != r.Jobs {
				t.Fatalf("completed %d jobs, Gavel %d", got.Completed, r.Jobs)
			}
			jct := got.AvgJCT / r.AvgJCT
			mk := got.Makespan / (r.Makespan - r.FirstArrival)
			if math.Abs(jct-1) > agreement || math.Abs(mk-1) > agreement {
				t.Errorf("over Gavel's simulator: average JCT %.4f, makespan %.4f (want within %v)", jct, mk, agreement)
			}
		})
	}
}
