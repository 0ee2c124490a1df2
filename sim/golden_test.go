package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/coloc-dev/coloc/place/cluster"
)

var printGolden = flag.Bool("golden", false, "print the digests of TestBaselineDecisionsPinned")

// The baselines' decisions are pinned: a digest of every job's start,
// finish, placement and sharing on a generated trace that queues, under
// each baseline in both degree modes (at most 2 GPUs
// in policy mode). The simulator's indexes (waiting
// and running lists, free and lone GPU counts, plan buffers, rule memos)
// only make it faster; a change of any decision or time changes a digest.
// When a decision changes on purpose, run the test with -golden and
// replace the digests.
func TestBaselineDecisionsPinned(t *testing.T) {
	truth, _ := reference(t)
	spec, err := cluster.Load(filepath.Join("..", "examples", "cluster-gavel-48.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tp, err := NewTopology(spec)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := Generate(GenOptions{Jobs: 1500, Seed: 7, Workloads: truth.Workloads(), Rates: truth, RefType: "v100", MeanGap: 600})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, mode := range []string{DegreeTrace, DegreePolicy} {
		for _, p := range Baselines() {
			name := p.Name + "/" + mode
			pol, err := p.New(Env{Seed: 1, Solo: SoloOnly(truth), Truth: truth})
			if err != nil {
				t.Fatal(err)
			}
			o := DefaultOptions
			o.Degree = mode
			if mode == DegreePolicy {
				o.MaxDegree = 2
			}
			res, err := Run(tp, jobs, truth, pol, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			h := sha256.New()
			for _, j := range res.Jobs {
				fmt.Fprintf(h, "%d %s %d %s %v %v %d %v\n", j.ID, j.Status, j.Degree, j.GPUType, j.Start, j.Finish, j.Restarts, j.Shared)
			}
			got := hex.EncodeToString(h.Sum(nil))[:16]
			if *printGolden {
				fmt.Printf("%q: %q,\n", name, got)
			}
			if w, ok := goldenDigests[name]; !ok || w != got {
				want[name] = got
			}
		}
	}
	for name, got := range want {
		t.Errorf("%s: digest %s, pinned %s", name, got, goldenDigests[name])
	}
}

// goldenDigests were printed by the simulator before its indexes (the
// code that rebuilt every list at every event) and are reproduced by it
// since.
var goldenDigests = map[string]string{
	"fifo/trace":         "545e25fff1b644bc",
	"backfill/trace":     "042bbbcaf101faed",
	"random-pack/trace":  "c7c516a9f487fe39",
	"greedy-pack/trace":  "773e1710b7cf63b0",
	"fifo/policy":        "78446619e3f04ead",
	"backfill/policy":    "8fb7285a69a6df9f",
	"random-pack/policy": "1150eeb1563ea265",
	"greedy-pack/policy": "482dbe57b5965d63",
}
