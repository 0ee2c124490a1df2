package policies

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim"
)

// replayedCore takes CoreExport's decisions the way its doc defines them:
// the simulator's coloc policy (corePolicy) inside sim.Run, stopped at its
// first scheduling point. CoreExport decides without the replay.
type replayedCore struct{ CoreExport }

func (x replayedCore) Decide(in place.Input, js []place.Resolved, emit func(policy.Decision) error) error {
	ex, err := newExportRun(in, js, x.AssumeMultiGPUPairs, x.Efficiency)
	if err != nil {
		return err
	}
	mem := newExportMemory(in, js)
	pol, err := newCorePolicy("coloc", sim.Env{}, Config{Durations: x.durations(), MinNormalized: x.MinNormalized}, memoryPairs(predictedPair(in.Models), mem))
	if err != nil {
		return err
	}
	p := pol.(*corePolicy)
	p.solo, p.allow = memoryRates{ex.rates, mem}, ex.allow
	solo := func(j *sim.Job, sh sim.Shape) float64 {
		s, ok := ex.rates.Solo(j.Workload, sh)
		if !ok || !(s > 0) {
			return 0
		}
		return s
	}
	pair := func(v *sim.View, j, q *sim.Job, sh sim.Shape) (float64, bool) {
		return p.pair(v, j.Workload, q.Workload, sh)
	}
	return ex.run(&snapshot{inner: p, soloOn: solo, pairOf: pair}, sim.DefaultOptions, x.MaxPerGPU, emit)
}

// CoreExport admits the jobs with the simulator's code and asks the core
// once, without replaying: its decisions are the replay's, on every
// shipped job list and trace, with and without foresight, assumed pairs,
// sharing off, and a floor on the normalized throughput. Placed, shared
// and waiting jobs all occur (a check that the cases decide something).
func TestCoreExportIsReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("fits IASP, IAPP and the similarity model, and exports every shipped list four ways, each twice (seconds)")
	}
	models, data := gavelPlaceInputs(t)
	th := policy.DefaultThresholds
	th.MinNormalized = 0
	settings := []CoreExport{
		{Durations: "attained", MaxPerGPU: 2},
		{Durations: "known", MaxPerGPU: 2, AssumeMultiGPUPairs: true},
		{Durations: "attained", MaxPerGPU: 1},
		{Durations: "attained", MaxPerGPU: 2, MinNormalized: 0.8, AssumeMultiGPUPairs: true},
	}
	seen := map[string]int{}
	shared, exports := 0, 0
	for _, in := range shippedExportInputs(t) {
		spec, list := in.spec, in.list
		for _, x := range settings {
			x.Efficiency = th.ScalingEfficiency
			name := fmt.Sprintf("%s with %+v", filepath.Base(in.jobs), x)
			pin := place.Input{Cluster: spec, ClusterFile: in.cluster, Jobs: list, JobsFile: in.jobs, Data: data, Models: models}
			opt := place.ExportOptions{Thresholds: th, Now: time.Unix(1, 0), DecisionsOnly: true}
			opt.Decide = x
			got, err := place.Export(pin, opt)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			opt.Decide = replayedCore{x}
			want, err := place.Export(pin, opt)
			if err != nil {
				t.Fatalf("%s: replayed: %v", name, err)
			}
			if len(got.Decisions) != len(list.Jobs) {
				t.Fatalf("%s: %d decisions for %d jobs", name, len(got.Decisions), len(list.Jobs))
			}
			for i := range want.Decisions {
				if !reflect.DeepEqual(got.Decisions[i], want.Decisions[i]) {
					t.Fatalf("%s: job %s decided\n%+v\nthe replay decides\n%+v", name, list.Jobs[i].ID, got.Decisions[i], want.Decisions[i])
				}
				seen[got.Decisions[i].Status]++
				if len(got.Decisions[i].ColocatedWith) > 0 {
					shared++
				}
			}
			if !reflect.DeepEqual(got.Warnings, want.Warnings) {
				t.Errorf("%s: warnings %q, the replay's %q", name, got.Warnings, want.Warnings)
			}
			exports++
		}
	}
	if seen[policy.StatusPlaced] == 0 || seen[policy.StatusWaiting] == 0 || seen[policy.StatusUnplaceable] == 0 || shared == 0 {
		t.Errorf("the cases decide too little to compare: %v, %d shared", seen, shared)
	}
	t.Logf("%d exports the same as the replay's: %v, %d shared", exports, seen, shared)
}
