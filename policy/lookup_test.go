package policy

import (
	"bytes"
	"math"
	"reflect"
	"sort"
	"testing"
)

func loadFixture(t testing.TB) *Policy {
	t.Helper()
	p, err := Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDecisionAndDegree(t *testing.T) {
	p := loadFixture(t)
	for _, d := range p.File.Decisions {
		got, ok := p.Decision(d.Job)
		if !ok || !reflect.DeepEqual(got, d) {
			t.Errorf("Decision(%q) = %+v, %v; want the file's", d.Job, got, ok)
		}
		deg, ok := p.Degree(d.Job)
		if placed := d.Status == StatusPlaced; ok != placed || (placed && deg != d.Degree) {
			t.Errorf("Degree(%q) = %d, %v; status %s, degree %d", d.Job, deg, ok, d.Status, d.Degree)
		}
	}
	if _, ok := p.Decision("nobody"); ok {
		t.Error("an unknown job has a decision")
	}
	if _, ok := p.Degree("huge"); ok {
		t.Error("an unplaceable job has a degree")
	}
}

func TestNormalizedAndColocate(t *testing.T) {
	p := loadFixture(t)
	for _, x := range p.File.Pairs {
		if v, ok := p.Normalized(x.GPUType, x.Degree, x.Workload, x.Partner); !ok || v != x.Normalized {
			t.Errorf("Normalized(%s, %d, %s, %s) = %v, %v; want %v", x.GPUType, x.Degree, x.Workload, x.Partner, v, ok, x.Normalized)
		}
	}
	const lm, rec, resnet = "LM (batch size 20)", "Recommendation (batch size 2048)", "ResNet-50 (batch size 64)"
	if _, ok := p.Normalized("v100", 2, lm, rec); ok {
		t.Error("a pair at a degree the file does not have is found")
	}
	// Gavel measured LM next to Recommendation at 0.858 and the reverse
	// at 0.829 on a V100: both above the 0.8 threshold. LM next to
	// ResNet-50 keeps 0.383.
	tests := []struct {
		gpu       string
		a, b      string
		ok, known bool
	}{
		{"v100", lm, rec, true, true},
		{"v100", rec, lm, true, true},
		{"v100", lm, resnet, false, true},
		{"k80", resnet, resnet, false, false}, // infeasible in Gavel: not in the file
		{"a100", lm, rec, false, false},
	}
	for _, tc := range tests {
		ok, known := p.Colocate(tc.gpu, 1, tc.a, tc.b)
		if ok != tc.ok || known != tc.known {
			t.Errorf("Colocate(%s, %s, %s) = %v, %v; want %v, %v", tc.gpu, tc.a, tc.b, ok, known, tc.ok, tc.known)
		}
	}
}

func TestSoloScalingChooseDegree(t *testing.T) {
	p := loadFixture(t)
	for _, x := range p.File.Solo {
		if got, ok := p.Solo(x.Workload, x.GPUType, x.Degree); !ok || got != x {
			t.Errorf("Solo(%s, %s, %d) = %+v, %v", x.Workload, x.GPUType, x.Degree, got, ok)
		}
	}
	for _, x := range p.File.Scaling {
		got, ok := p.Scaling(x.Workload, x.GPUType)
		if !ok || !reflect.DeepEqual(got, x) {
			t.Errorf("Scaling(%s, %s) = %+v, %v", x.Workload, x.GPUType, got, ok)
		}
		if pt, ok := p.ChooseDegree(x.Workload, x.GPUType, 0); !ok || pt.Degree != x.Chosen {
			t.Errorf("ChooseDegree(%s, %s, no limit) = %d, want the file's chosen degree %d", x.Workload, x.GPUType, pt.Degree, x.Chosen)
		}
	}
	// Transformer (batch size 64) on V100, Gavel's efficiencies at 1, 2,
	// 4, 8 GPUs: 1, 0.92, 0.57, 0.72; threshold 0.7.
	const tr = "Transformer (batch size 64)"
	for _, tc := range []struct{ free, want int }{{0, 8}, {8, 8}, {7, 2}, {4, 2}, {2, 2}, {1, 1}} {
		if pt, ok := p.ChooseDegree(tr, "v100", tc.free); !ok || pt.Degree != tc.want {
			t.Errorf("ChooseDegree(%s, v100, %d) = %d, %v; want %d", tr, tc.free, pt.Degree, ok, tc.want)
		}
	}
	// Gavel's single-GPU throughputs: each of these runs fastest on the
	// V100 but Recommendation (batch size 2048), faster on the K80.
	for w, want := range map[string]string{tr: "v100", "LM (batch size 20)": "v100", "ResNet-50 (batch size 64)": "v100", "Recommendation (batch size 2048)": "k80"} {
		best, ok := p.FastestGPUType(w)
		if !ok || best.GPUType != want || best.Degree != 1 {
			t.Errorf("FastestGPUType(%s) = %+v, %v; want %s", w, best, ok, want)
		}
		for _, x := range p.File.Solo {
			if x.Workload == w && x.Degree == 1 && x.Throughput > best.Throughput {
				t.Errorf("%s: %s is faster than %s", w, x.GPUType, best.GPUType)
			}
		}
	}
	if _, ok := p.FastestGPUType("GPT-9"); ok {
		t.Error("a GPU type for an unknown workload")
	}
	// Only the cluster's GPU types count: without K80 nodes, V100.
	q, err := Decode(bytes.NewReader(edit(t, "cluster.nodes[1].gpu_type", "p100", "decisions[4].gpu_type", "p100")), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	if best, ok := q.FastestGPUType("Recommendation (batch size 2048)"); !ok || best.GPUType != "v100" {
		t.Errorf("FastestGPUType without K80 nodes = %+v, %v; want v100", best, ok)
	}
	if _, ok := p.ChooseDegree(tr, "a100", 4); ok {
		t.Error("a degree on a GPU type without a curve")
	}
	if _, ok := p.Solo(tr, "v100", 3); ok {
		t.Error("a solo throughput at a degree never measured")
	}
}

func TestNearest(t *testing.T) {
	p := loadFixture(t)
	refs := p.File.Similarity.References
	// A ResNet-50 at a batch size the references lack: its own family first.
	q := Descriptor{Params: 25557032, FLOPsPerSample: 8.18e9, BatchSize: 48, Layers: map[string]int{"conv": 53, "norm": 53, "linear": 1}, Class: "cnn", Precision: "fp32"}
	nb := p.Nearest(q, 0)
	if len(nb) != p.File.Thresholds.SimilarityK || nb[0].Reference.Workload != "ResNet-50 (batch size 64)" {
		t.Fatalf("Nearest(ResNet-50 at batch 48) = %+v, want %d neighbours, ResNet-50 (batch size 64) first", nb, p.File.Thresholds.SimilarityK)
	}
	all := p.Nearest(q, 100)
	if len(all) != len(refs) {
		t.Fatalf("%d neighbours of %d references", len(all), len(refs))
	}
	if !sort.SliceIsSorted(all, func(i, j int) bool { return all[i].Distance < all[j].Distance }) {
		t.Errorf("neighbours not nearest first: %+v", all)
	}
	// A reference's own descriptors are at distance 0 from it (up to the
	// rounding of 10^x and back).
	for _, r := range refs {
		d := descriptorOf(t, p, r)
		nb := p.Nearest(d, 1)
		if nb[0].Reference.Workload != r.Workload || nb[0].Distance > 1e-12 {
			t.Errorf("nearest to %s's own descriptors: %s at %v", r.Workload, nb[0].Reference.Workload, nb[0].Distance)
		}
	}
	// Nothing known but layer counts (an unknown kind counts 0): every
	// reference without conv and lstm layers is at distance 0, ties by name.
	none := p.Nearest(Descriptor{}, 100)
	for i := 1; i < len(none); i++ {
		a, b := none[i-1], none[i]
		if a.Distance == b.Distance && a.Reference.Workload > b.Reference.Workload {
			t.Errorf("tie not broken by name: %s before %s", a.Reference.Workload, b.Reference.Workload)
		}
	}
	if none[0].Distance != 0 || math.IsInf(none[len(none)-1].Distance, 0) {
		t.Errorf("distances of an empty descriptor: %+v", none)
	}
}

// descriptorOf inverts the encoding of a fixture reference.
func descriptorOf(t *testing.T, p *Policy, r Reference) Descriptor {
	d := Descriptor{Layers: map[string]int{}}
	s := p.File.Similarity
	for k, name := range s.Numeric {
		if r.Num[k] == nil {
			continue
		}
		v := *r.Num[k]
		switch name {
		case "log10_params":
			d.Params = math.Pow(10, v)
		case "log10_flops_per_sample":
			d.FLOPsPerSample = math.Pow(10, v)
		case "log10_batch_size":
			d.BatchSize = int(math.Round(math.Pow(10, v)))
		default:
			d.Layers[name[len("layers_"):]] = int(v)
		}
	}
	for k, name := range s.Categorical {
		switch name {
		case "class":
			d.Class = r.Cat[k]
		case "precision":
			d.Precision = r.Cat[k]
		}
	}
	if got := s.normalize(s.encode(d)); !reflect.DeepEqual(got.Cat, r.Cat) {
		t.Fatalf("%s: descriptor does not encode back", r.Workload)
	}
	return d
}
