package place

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/policy"
)

// The decisions on examples/cluster.yaml and examples/jobs.yaml, checked
// against what the data say by hand (the comment at the top of
// examples/jobs.yaml). Every pair these jobs may form is measured, so the
// decisions do not depend on which models are loaded.
func TestExampleDecisionsByHand(t *testing.T) {
	in := loadInput(t, exampleSpec, exampleJobs, fastModels(t))
	f := export(t, in)
	d := in.Data
	gpu := func(dec policy.Decision) string {
		return dec.Placement[0].Node + ":" + joinInts(dec.Placement[0].GPUs)
	}

	// The 2-GPU all-reduce job: best fit would take the 2-GPU PCIe node;
	// the all-reduce cost sends it to the NVLink node.
	ar := decisionOf(t, f, "allreduce-heavy")
	if ar.Status != policy.StatusPlaced || ar.GPUType != "v100" || ar.Degree != 2 || len(ar.Placement) != 1 || gpu(ar) != "v100-nvlink:0,1" {
		t.Errorf("allreduce-heavy: %+v, want 2 V100 of v100-nvlink", ar)
	}
	params := features.KnownModels["Transformer"].Params
	if got, want := AllReduceBytes(params, 2), 4*params; got != want {
		t.Errorf("all-reduce of 2 GPUs: %v bytes, want 2 x 1/2 x 4 B x params = %v", got, want)
	}
	msNVLink := 4 * params / 300e9 * 1e3
	if !strings.Contains(ar.Reason, fmt.Sprintf("over nvlink: %.3g ms", msNVLink)) {
		t.Errorf("allreduce-heavy reason %q lacks the NVLink time %.3g ms", ar.Reason, msNVLink)
	}

	// resnet-scale: on each type the degree with the best throughput at
	// efficiency >= 0.7; P100 at 4 GPUs is the fastest of them.
	rs := decisionOf(t, f, "resnet-scale")
	best, bestType := policy.ScalingPoint{}, ""
	for _, typ := range []string{"k80", "p100", "v100"} {
		pts, _ := d.Curve("ResNet-50 (batch size 64)", typ, 0)
		n := map[string]int{"k80": 4, "p100": 4, "v100": 6}[typ]
		if p, ok := policy.ChooseDegree(pts, 0.7, n); ok && p.Throughput > best.Throughput {
			best, bestType = p, typ
		}
	}
	if rs.GPUType != bestType || rs.Degree != best.Degree || rs.PredictedThroughput != best.Throughput {
		t.Errorf("resnet-scale: %s x%d at %v, want %s x%d at %v", rs.GPUType, rs.Degree, rs.PredictedThroughput, bestType, best.Degree, best.Throughput)
	}
	if bestType != "p100" || best.Degree != 4 {
		t.Errorf("the data changed: best choice %s x%d, the example's comment says p100 x4", bestType, best.Degree)
	}

	// The three 10 GB jobs never share a GPU of 16 GB.
	big := []string{"big-a", "big-b", "big-c"}
	for i, a := range big {
		for _, b := range big[i+1:] {
			da, db := decisionOf(t, f, a), decisionOf(t, f, b)
			if da.GPUType == db.GPUType && gpu(da) == gpu(db) {
				t.Errorf("%s and %s share %s", a, b, gpu(da))
			}
			if slices.Contains(da.ColocatedWith, b) {
				t.Errorf("%s is co-located with %s", a, b)
			}
		}
	}
	if got := []string{gpu(decisionOf(t, f, "big-a")), gpu(decisionOf(t, f, "big-b")), gpu(decisionOf(t, f, "big-c"))}; !reflect.DeepEqual(got, []string{"v100-pcie:0", "v100-pcie:1", "k80:0"}) {
		t.Errorf("big jobs on %v", got)
	}
	for _, id := range []string{"resnet-1", "resnet-2"} {
		if dec := decisionOf(t, f, id); dec.GPUType != "v100" || dec.Placement[0].Node != "v100-nvlink" || len(dec.ColocatedWith) > 0 {
			t.Errorf("%s: %+v", id, dec)
		}
	}

	// new-bert is matched to a Transformer and shares big-a's V100 at the
	// measured normalized throughputs of that pair.
	nb := decisionOf(t, f, "new-bert")
	if nb.Reference == "" || features.FamilyOf(nb.Reference) != "Transformer" || nb.Workload != nb.Reference {
		t.Fatalf("new-bert: reference %q workload %q", nb.Reference, nb.Workload)
	}
	if !reflect.DeepEqual(nb.ColocatedWith, []string{"big-a"}) || !reflect.DeepEqual(decisionOf(t, f, "big-a").ColocatedWith, []string{"new-bert"}) {
		t.Errorf("new-bert with %v", nb.ColocatedWith)
	}
	y, status, _ := d.Pair(nb.Reference, "Transformer (batch size 16)", "v100", 1)
	if status != "ok" || nb.PredictedNormalized != y || !strings.Contains(nb.Reason, "(measured)") {
		t.Errorf("new-bert predicted %v, the measured pair is %v (%s); reason %q", nb.PredictedNormalized, y, status, nb.Reason)
	}
	rate, _ := d.Solo(nb.Reference, "v100", 1, false, 0)
	if math.Abs(nb.PredictedThroughput-rate*y) > 1e-12 {
		t.Errorf("new-bert throughput %v, want %v x %v", nb.PredictedThroughput, rate, y)
	}

	// Unplaceable, with the reason.
	for id, want := range map[string]string{
		"too-big":       "needs at least 16 GPUs of one type; the cluster has at most 6 (v100)",
		"private-model": `workload "my-private-model" has no measurements in the data and the job gives no model descriptor`,
	} {
		dec := decisionOf(t, f, id)
		if dec.Status != policy.StatusUnplaceable || !strings.Contains(dec.Reason, want) || len(dec.Placement) > 0 {
			t.Errorf("%s: %+v, want unplaceable: %s", id, dec, want)
		}
	}
	if len(f.Decisions) != len(in.Jobs.Jobs) {
		t.Errorf("%d decisions for %d jobs", len(f.Decisions), len(in.Jobs.Jobs))
	}
}

// Without their memory, the third Transformer would share with one of the
// first two (the pair keeps 0.88 each, above 0.8): memory is what keeps
// them apart.
func TestExampleMemoryIsWhatKeepsTheBigJobsApart(t *testing.T) {
	in := loadInput(t, exampleSpec, exampleJobs, fastModels(t))
	for i := range in.Jobs.Jobs {
		if strings.HasPrefix(in.Jobs.Jobs[i].ID, "big-") {
			in.Jobs.Jobs[i].MemoryGB = 0
		}
	}
	f := export(t, in)
	c := decisionOf(t, f, "big-c")
	if c.GPUType != "v100" || len(c.ColocatedWith) != 1 || !strings.HasPrefix(c.ColocatedWith[0], "big-") {
		t.Errorf("big-c without memory: %+v, want it to share with big-a or big-b", c)
	}
}

func TestExportDeterministicAndProvenance(t *testing.T) {
	in := loadInput(t, exampleSpec, exampleJobs, fastModels(t))
	a, err := Encode(export(t, in))
	if err != nil {
		t.Fatal(err)
	}
	in2 := loadInput(t, exampleSpec, exampleJobs, fastModels(t))
	b, _ := Encode(export(t, in2))
	if !bytes.Equal(a, b) {
		t.Error("two exports of the same inputs differ")
	}
	f := export(t, in)
	p := f.Provenance
	if p.Created != "2026-01-02T03:04:05Z" || p.Tool == "" {
		t.Errorf("provenance %+v", p)
	}
	names := func(s []policy.FileSum) []string {
		var out []string
		for _, x := range s {
			if len(x.SHA256) != 64 {
				t.Errorf("%s: sha256 %q", x.Name, x.SHA256)
			}
			out = append(out, x.Name[strings.LastIndex(x.Name, "/")+1:])
		}
		return out
	}
	if got := names(p.Models); !reflect.DeepEqual(got, []string{"index.json", "bias.json", "linear.json", "similarity.json"}) {
		t.Errorf("model files %v", got)
	}
	if got := names(p.Data); !reflect.DeepEqual(got, []string{"pairs.arrow", "scaling.arrow", "solo.arrow"}) {
		t.Errorf("data files %v", got)
	}
	if got := names(p.Inputs); !reflect.DeepEqual(got, []string{"cluster.yaml", "jobs.yaml"}) {
		t.Errorf("input files %v", got)
	}
	if f.Format != policy.Format || f.Version != policy.Version || f.ThroughputUnit != "iterations/s" || f.Thresholds != policy.DefaultThresholds {
		t.Errorf("header %s %d %s %+v", f.Format, f.Version, f.ThroughputUnit, f.Thresholds)
	}
	if len(f.Cluster.Nodes) != 4 || f.Cluster.Nodes[1].Name != "v100-nvlink" || f.Cluster.Nodes[1].LinkGBs != 300 {
		t.Errorf("cluster %+v", f.Cluster)
	}
}

func TestExportTables(t *testing.T) {
	in := loadInput(t, exampleSpec, exampleJobs, fastModels(t))
	f := export(t, in)
	d := in.Data
	// Pairs: every ordered pair of the workloads measured solo on a GPU
	// type, but the infeasible ones; measured where measured, else the
	// cluster model's prediction.
	count := map[string]int{}
	for _, p := range f.Pairs {
		count[p.GPUType+" "+p.Source]++
		y, status, ok := d.Pair(p.Workload, p.Partner, p.GPUType, p.Degree)
		switch {
		case p.Source == "measured":
			if !ok || status != "ok" || y != p.Normalized {
				t.Fatalf("%+v: data say %v %s", p, y, status)
			}
		case p.Source == "predicted:bias":
			if ok && status != "suspect" {
				t.Fatalf("%+v predicted, data status %s", p, status)
			}
		default:
			t.Fatalf("source %q", p.Source)
		}
	}
	// Gavel (see README): measured single-GPU pairs k80 589, p100 656,
	// v100 636 of which 80 are suspect; 26 x 26 ordered pairs per type.
	want := map[string]int{"k80 measured": 589, "p100 measured": 656, "v100 measured": 556, "v100 predicted:bias": 80}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("pairs by type and source %v, want %v", count, want)
	}
	// Solo rows: the data's on the cluster's types; scaling chosen by
	// ChooseDegree.
	for _, s := range f.Solo {
		if r, ok := d.Solo(s.Workload, s.GPUType, s.Degree, false, 0); !ok || r != s.Throughput {
			t.Fatalf("solo %+v, data %v", s, r)
		}
	}
	if len(f.Solo) == 0 || len(f.Scaling) != 26*3 {
		t.Errorf("%d solo rows, %d scaling curves (want 26 workloads x 3 types)", len(f.Solo), len(f.Scaling))
	}
	for _, s := range f.Scaling {
		best, _ := policy.ChooseDegree(s.Points, 0.7, 0)
		if s.Chosen != best.Degree || s.Points[0].Efficiency != 1 || s.Source != "gavel" {
			t.Errorf("scaling %+v", s)
		}
	}
	// The similarity reference set is the model's, with its normalization.
	sm := in.Models.Similarity
	s := f.Similarity
	if s.Distance != sm.Opts.Distance || len(s.References) != len(sm.Refs) || len(s.Lo) != len(s.Numeric) || len(s.Categorical) == 0 {
		t.Errorf("similarity %s, %d refs (model %d), %d lo for %d numeric", s.Distance, len(s.References), len(sm.Refs), len(s.Lo), len(s.Numeric))
	}
	for _, r := range s.References {
		if r.GPUType == "" || r.Degree < 1 || len(r.Num) != len(s.Numeric) || len(r.Cat) != len(s.Categorical) {
			t.Errorf("reference %+v", r)
		}
	}
}

// The example's decisions rest on measured pairs only: the default models
// (IASP, IAPP) give the same placements as the cheap ones.
func TestExampleSameWithDefaultModels(t *testing.T) {
	if testing.Short() {
		t.Skip("fits IASP and IAPP (a few seconds)")
	}
	m, err := LoadModels(fitGavel(t, "iasp", "iapp", "similarity"), DefaultModelNames)
	if err != nil {
		t.Fatal(err)
	}
	def := export(t, loadInput(t, exampleSpec, exampleJobs, m))
	fast := export(t, loadInput(t, exampleSpec, exampleJobs, fastModels(t)))
	for i, d := range def.Decisions {
		e := fast.Decisions[i]
		if d.Status != e.Status || !reflect.DeepEqual(d.Placement, e.Placement) || !reflect.DeepEqual(d.ColocatedWith, e.ColocatedWith) || d.PredictedNormalized != e.PredictedNormalized {
			t.Errorf("job %s: %+v with iasp/iapp, %+v with bias/linear", d.Job, d, e)
		}
	}
	predicted := 0
	for _, p := range def.Pairs {
		if p.Source == "predicted:iasp" {
			predicted++
		}
	}
	if predicted != 80 {
		t.Errorf("%d pairs predicted by iasp, want the 80 suspect v100 pairs", predicted)
	}
}
