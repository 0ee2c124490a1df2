package policies

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim"
)

// firstPlan records the first plan of a policy and stops the replay.
type firstPlan struct {
	p    sim.Policy
	gpus map[int][]int
}

func (f *firstPlan) Name() string { return f.p.Name() }

func (f *firstPlan) Schedule(v *sim.View) (*sim.Plan, error) {
	p, err := f.p.Schedule(v)
	if err != nil || p == nil {
		return p, err
	}
	f.gpus = map[int][]int{}
	for _, j := range v.Waiting {
		f.gpus[j.ID] = p.GPUsOf(j.ID)
	}
	return nil, errSnapshot
}

// The export with the completion-time rule takes the decisions the online
// rule takes at its first scheduling point (checkExportIsOnline): seven
// jobs, two of which may take 1 or 2 GPUs, on four GPUs, so some share or
// wait.
func TestExportTakesTheOnlineRulesDecisions(t *testing.T) {
	if testing.Short() {
		t.Skip("fits IASP, IAPP and the similarity model (seconds)")
	}
	models, _ := gavelPlaceInputs(t)
	th := policy.DefaultThresholds
	rx := RuleExport{Durations: Known, Order: OrderShortest, MaxPerGPU: 2, Efficiency: th.ScalingEfficiency}
	o := sim.DefaultOptions
	o.Round = 0
	checkExportIsOnline(t, rx.Decider(), func(truth sim.Rates) sim.Policy { return ColocRule(sim.SoloOnly(truth), models, Known, 0) }, o, policy.RuleCompletionTime)
}

// The same for the decision core, durations unknown (the export's
// default): its decisions are the simulator's coloc's first plan.
func TestExportTakesTheOnlineCoresDecisions(t *testing.T) {
	if testing.Short() {
		t.Skip("fits IASP, IAPP and the similarity model (seconds)")
	}
	models, _ := gavelPlaceInputs(t)
	cx := CoreExport{MaxPerGPU: 2, Efficiency: policy.DefaultThresholds.ScalingEfficiency}
	online := func(truth sim.Rates) sim.Policy {
		p, err := newCorePolicy("coloc", sim.Env{Solo: sim.SoloOnly(truth)}, Config{}, predictedPair(models))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	checkExportIsOnline(t, cx.Decider(), online, sim.DefaultOptions, policy.RuleDecisionCore)
}

// On a recorded trace's first 24 jobs on Gavel's 16-GPU cluster (more
// GPUs asked than the cluster has, so jobs share and wait), the core's
// export still takes the simulator's coloc's first decisions.
func TestExportIsOnlineOnATracePrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("fits IASP, IAPP and the similarity model (seconds)")
	}
	models, _ := gavelPlaceInputs(t)
	spec, err := cluster.Load("../../examples/cluster-gavel-16.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := sim.LoadTrace("../../examples/traces/msr/103959.trace")
	if err != nil {
		t.Fatal(err)
	}
	list := &jobs.List{Version: jobs.Version}
	for i, j := range tr.Jobs[:24] {
		// The degrees up to the trace's scale factor, as the simulator's
		// policy mode allows them.
		var ds []int
		for d := 1; d <= j.Scale; d *= 2 {
			ds = append(ds, d)
		}
		list.Jobs = append(list.Jobs, jobs.Job{ID: fmt.Sprintf("t%d", i), Workload: j.Workload, Degrees: ds, Steps: j.Steps})
	}
	cx := CoreExport{MaxPerGPU: 2, Efficiency: policy.DefaultThresholds.ScalingEfficiency}
	online := func(truth sim.Rates) sim.Policy {
		p, err := newCorePolicy("coloc", sim.Env{Solo: sim.SoloOnly(truth)}, Config{}, predictedPair(models))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	checkExportIsOnlineFor(t, spec, list, cx.Decider(), online, sim.DefaultOptions, policy.RuleDecisionCore)
}

// checkExportIsOnline exports seven Gavel jobs on two nodes (2 V100, 2
// K80) with decider and replays them, all arrived at 0, under the policy
// online makes: every job gets the same GPU type, degree, node, GPUs and
// partner, or waits where the policy leaves it waiting.
func checkExportIsOnline(t *testing.T, decider place.Decider, online func(truth sim.Rates) sim.Policy, o sim.Options, rule string) {
	t.Helper()
	spec := &cluster.Spec{Version: 1, Name: "hand", Groups: []cluster.NodeGroup{
		{Name: "v", GPUType: "v100", GPUs: 2, MemoryGB: 16, Link: "nvlink", LinkGBs: 100, NetworkGB: 10},
		{Name: "k", GPUType: "k80", GPUs: 2, MemoryGB: 12, Link: "pcie", LinkGBs: 10, NetworkGB: 10}}}
	list := &jobs.List{Version: jobs.Version}
	for i, j := range []struct {
		w       string
		degrees []int
		steps   int64
	}{
		{"ResNet-18 (batch size 64)", []int{1}, 20000},
		{"LM (batch size 20)", []int{1, 2}, 30000},
		{"Transformer (batch size 64)", []int{1}, 5000},
		{"ResNet-50 (batch size 64)", []int{1, 2}, 8000},
		{"ResNet-18 (batch size 32)", []int{1}, 3000},
		{"LM (batch size 80)", []int{1}, 40000},
		{"Transformer (batch size 32)", []int{1}, 60000},
	} {
		list.Jobs = append(list.Jobs, jobs.Job{ID: fmt.Sprintf("j%d", i), Workload: j.w, Degrees: j.degrees, Steps: j.steps})
	}
	checkExportIsOnlineFor(t, spec, list, decider, online, o, rule)
}

// checkExportIsOnlineFor is checkExportIsOnline for any cluster and list.
func checkExportIsOnlineFor(t *testing.T, spec *cluster.Spec, list *jobs.List, decider place.Decider, online func(truth sim.Rates) sim.Policy, o sim.Options, rule string) {
	t.Helper()
	const gavel = "../../datasets/reference/gavel"
	models, data := gavelPlaceInputs(t)
	th := policy.DefaultThresholds
	th.MinNormalized = 0
	f, err := place.Export(place.Input{Cluster: spec, Jobs: list, Data: data, Models: models}, place.ExportOptions{Thresholds: th, Decide: decider})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := policy.New(f, "export"); err != nil {
		t.Fatalf("the exported file does not validate: %v", err)
	}

	// The online policy on the same jobs, all arrived at 0.
	ds, err := datasets.Open(gavel)
	if err != nil {
		t.Fatal(err)
	}
	truth, err := sim.NewMeasured(ds.Solo, ds.Pairs)
	if err != nil {
		t.Fatal(err)
	}
	topo, err := sim.NewTopology(spec)
	if err != nil {
		t.Fatal(err)
	}
	var trace []sim.TraceJob
	for _, j := range list.Jobs {
		trace = append(trace, sim.TraceJob{Workload: j.Workload, Steps: j.Steps, Scale: slices.Max(j.Degrees)})
	}
	first := &firstPlan{p: online(truth)}
	o.Degree = sim.DegreePolicy
	if _, err := sim.Run(topo, trace, truth, first, o); !errors.Is(err, errSnapshot) {
		t.Fatalf("online replay: %v, want the first plan", err)
	}

	placed, waiting, shared := 0, 0, 0
	for i, dec := range f.Decisions {
		gpus := first.gpus[i]
		if len(gpus) == 0 {
			waiting++
			if dec.Status != policy.StatusWaiting {
				t.Errorf("%s: exported %s, the online rule lets it wait", dec.Job, dec.Status)
			}
			continue
		}
		placed++
		sh, _ := topo.ShapeOf(gpus)
		var where []policy.NodeGPUs
		for _, g := range gpus {
			gp := topo.GPUs[g]
			node := topo.Nodes[gp.Node].Name
			if n := len(where); n == 0 || where[n-1].Node != node {
				where = append(where, policy.NodeGPUs{Node: node})
			}
			where[len(where)-1].GPUs = append(where[len(where)-1].GPUs, gp.Index)
		}
		var with []string
		for k, other := range first.gpus {
			if k != i && len(other) > 0 && slices.Equal(other, gpus) {
				with = append(with, list.Jobs[k].ID)
			}
		}
		slices.Sort(with)
		got := slices.Clone(dec.ColocatedWith)
		slices.Sort(got)
		if len(with) > 0 {
			shared++
		}
		if dec.Status != policy.StatusPlaced || dec.GPUType != sh.GPUType || dec.Degree != len(gpus) ||
			fmt.Sprint(dec.Placement) != fmt.Sprint(where) || !slices.Equal(got, with) {
			t.Errorf("%s: exported %s %d %s on %v with %v; online %d %s on %v with %v",
				dec.Job, dec.Status, dec.Degree, dec.GPUType, dec.Placement, got, len(gpus), sh.GPUType, where, with)
		}
		if rule == policy.RuleCompletionTime && (dec.Rule == nil || dec.Rule.CompletionS <= 0 || dec.Rule.SoloThroughput <= 0) {
			t.Errorf("%s: rule record %+v, want the predictions behind it", dec.Job, dec.Rule)
		}
		if dec.Reason == "" || dec.PredictedThroughput <= 0 {
			t.Errorf("%s: reason %q, predicted throughput %v", dec.Job, dec.Reason, dec.PredictedThroughput)
		}
	}
	if f.Objective == nil || f.Objective.Rule != rule {
		t.Errorf("objective %+v", f.Objective)
	}
	// The case exercises more than one kind of decision.
	if placed == 0 || waiting+shared == 0 {
		t.Errorf("placed %d, waiting %d, shared %d: the case does not test what it should", placed, waiting, shared)
	}
	t.Logf("placed %d (%d sharing), waiting %d", placed, shared, waiting)
}
