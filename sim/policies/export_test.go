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

// The export takes the decisions the online coloc rule takes at its first
// scheduling point: the same GPU type, degree, node, GPUs and partner for
// every job, and waiting where the rule waits. Two nodes (2 V100, 2 K80)
// and seven Gavel jobs arriving together, two of which may take 1 or 2
// GPUs: more jobs than GPUs, so some share or wait.
func TestExportTakesTheOnlineRulesDecisions(t *testing.T) {
	if testing.Short() {
		t.Skip("fits IASP, IAPP and the similarity model (seconds)")
	}
	const gavel = "../../datasets/reference/gavel"
	models, data := gavelPlaceInputs(t)
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
	th := policy.DefaultThresholds
	th.MinNormalized = 0
	rx := RuleExport{Durations: Known, Order: OrderShortest, MaxPerGPU: 2, Efficiency: th.ScalingEfficiency}
	f, err := place.Export(place.Input{Cluster: spec, Jobs: list, Data: data, Models: models}, place.ExportOptions{Thresholds: th, Decide: rx.Decider()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := policy.New(f, "export"); err != nil {
		t.Fatalf("the exported file does not validate: %v", err)
	}

	// The online rule on the same jobs, all arrived at 0.
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
	online := &firstPlan{p: ColocRule(sim.SoloOnly(truth), models, Known, 0)}
	o := sim.DefaultOptions
	o.Round, o.Degree = 0, sim.DegreePolicy
	if _, err := sim.Run(topo, trace, truth, online, o); !errors.Is(err, errSnapshot) {
		t.Fatalf("online replay: %v, want the first plan", err)
	}

	placed, waiting, shared := 0, 0, 0
	for i, dec := range f.Decisions {
		gpus := online.gpus[i]
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
		for k, other := range online.gpus {
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
		if dec.Rule == nil || dec.Rule.CompletionS <= 0 || dec.Rule.SoloThroughput <= 0 {
			t.Errorf("%s: rule record %+v, want the predictions behind it", dec.Job, dec.Rule)
		}
	}
	if f.Objective == nil || f.Objective.Rule != "completion-time" {
		t.Errorf("objective %+v", f.Objective)
	}
	// The case exercises more than one kind of decision.
	if placed == 0 || waiting+shared == 0 {
		t.Errorf("placed %d, waiting %d, shared %d: the case does not test what it should", placed, waiting, shared)
	}
	t.Logf("placed %d (%d sharing), waiting %d", placed, shared, waiting)
}
