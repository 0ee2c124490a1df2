package policies

import (
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/sim"
)

// Each workload is matched to references other than itself, and the GPU
// types are ranked by the references' relative solo throughput: the
// recommender of batch size 4096 runs faster on v100 itself, but its
// references (batch sizes 2048 and 1024) run 2x faster on k80, so k80
// comes first. With all of the model's types in the cluster the best type
// is the one model.Similarity.Suggest names.
func TestSuitsRanking(t *testing.T) {
	p, _ := tinyPolicy(t)
	s := p.s
	s.setTypes([]string{"k80", "v100"})
	tests := []struct {
		workload string
		refs     []string
		score    []float64 // k80, v100
		small    bool
	}{
		{r50x32, []string{r50x64, r50x128}, []float64{0.25, 1}, false},
		{r50x128, []string{r50x64, r50x32}, []float64{0.25, 1}, false},
		{rec512, []string{rec1024, rec2048}, []float64{1, 0.5}, true},
		{rec4096, []string{rec2048, rec1024}, []float64{1, 0.5}, true},
	}
	for _, tc := range tests {
		f := s.fitOf(tc.workload, 1)
		var refs []string
		for _, r := range f.w.refs {
			refs = append(refs, s.space.Jobs[r.job])
		}
		if !reflect.DeepEqual(refs, tc.refs) {
			t.Errorf("%s: references %v, want %v", tc.workload, refs, tc.refs)
		}
		for i, want := range tc.score {
			if !simNear(f.score[i], want) {
				t.Errorf("%s: score of %s %v, want %v", tc.workload, s.types[i], f.score[i], want)
			}
		}
		if f.w.small != tc.small {
			t.Errorf("%s: small %v, want %v (%g parameters)", tc.workload, f.w.small, tc.small, f.w.params)
		}
		nb, err := s.m.Nearest(tc.workload, 2)
		if err != nil {
			t.Fatal(err)
		}
		sug, err := s.m.Suggest(nb)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.types[f.rank[0]]; got != sug.DeviceType {
			t.Errorf("%s: best type %s, Suggest says %s", tc.workload, got, sug.DeviceType)
		}
	}
	// A job the model does not know, of a known family: described by its
	// family and batch size; its references are all ResNet-50s.
	f := s.fitOf("ResNet-50 (batch size 48)", 1)
	if len(f.w.refs) != 2 || f.w.small || s.types[f.rank[0]] != "v100" {
		t.Errorf("new ResNet-50: %d references, small %v, best %s", len(f.w.refs), f.w.small, s.types[f.rank[0]])
	}
	// One the model cannot describe: no references, every type alike.
	f = s.fitOf("Mystery", 1)
	if f.w.err == nil || len(f.w.refs) != 0 || f.w.small || !math.IsNaN(f.score[0]) || !reflect.DeepEqual(f.rank, []int{0, 1}) {
		t.Errorf("unknown workload: err %v, refs %d, small %v, scores %v, rank %v", f.w.err, len(f.w.refs), f.w.small, f.score, f.rank)
	}
	// Restricted to the cluster's types: on a v100-only cluster, v100 is
	// the best for everyone.
	s.setTypes([]string{"v100"})
	if f := s.fitOf(rec512, 1); !simNear(f.score[0], 1) {
		t.Errorf("v100-only cluster: recommender's v100 score %v, want 1", f.score[0])
	}
}

// recorder wraps a policy and records the GPU type each job first starts
// on.
type recorder struct {
	sim.Policy
	types map[int]string // job -> GPU type of its first placement
}

func (r *recorder) Schedule(v *sim.View) (*sim.Plan, error) {
	p, err := r.Policy.Schedule(v)
	if p != nil {
		for _, j := range v.Waiting {
			if gs := p.GPUsOf(j.ID); len(gs) > 0 {
				if _, seen := r.types[j.ID]; !seen {
					r.types[j.ID] = v.Topology.GPUs[gs[0]].Type
				}
			}
		}
	}
	return p, err
}

// A ResNet-50 and a recommender on a cluster of two k80 GPUs and one
// v100: each goes to the type its references suit best (ResNet-50 v100,
// recommender k80), whatever the arrival order; a second ResNet-50 finds
// the v100 taken and starts on the other k80 (free GPUs of a worse type
// before waiting).
// Recommender: 1000 steps at 100 it/s on k80: JCT 10 s. ResNet-50 bs 32:
// 400 steps at 40 it/s on v100: 10 s. ResNet-50 bs 64: 100 steps at 5
// it/s on k80: 20 s (no round falls before it ends).
func TestSimilarityTypeChoice(t *testing.T) {
	p, truth := tinyPolicy(t)
	tp := simTopo(t, "a k80 1 2", "b v100 1 1")
	jobs := []sim.TraceJob{
		{Workload: rec512, Steps: 1000, Scale: 1},
		{Workload: r50x32, Steps: 400, Scale: 1},
		{Workload: r50x64, Steps: 100, Scale: 1, Arrival: 0},
	}
	rec := &recorder{Policy: p, types: map[int]string{}}
	r := simRun(t, tp, jobs, truth, rec, simOpts())
	for id, want := range map[int]string{0: "k80", 1: "v100", 2: "k80"} {
		if rec.types[id] != want {
			t.Errorf("job %d (%s) started on %q, want %s", id, jobs[id].Workload, rec.types[id], want)
		}
	}
	for id, want := range map[int]float64{0: 10, 1: 10, 2: 20} {
		if got := r.Jobs[id].JCT; !simNear(got, want) {
			t.Errorf("job %d JCT %v, want %v", id, got, want)
		}
	}
}

// Packing on one v100 GPU. Two recommenders (small models) share it;
// two ResNet-50s (large) never do, nor does a recommender with a
// ResNet-50, in either order.
// Recommenders: 512 runs 2000 steps at 0.8 x 50 = 40 it/s while 1024 runs
// 500 steps at 0.8 x 25 = 20 it/s, which ends at 25 s; 512 has done 1000
// and runs the rest alone at 50 it/s: 45 s.
// ResNet-50s: bs 32, 400 steps at 40 it/s: 10 s; bs 64 waits, then 200
// steps at 20 it/s: 20 s.
func TestSimilarityPacksSmallModelsOnly(t *testing.T) {
	tests := []struct {
		name   string
		jobs   []sim.TraceJob
		jct    []float64
		shared []bool
	}{
		{"two small", []sim.TraceJob{{Workload: rec512, Steps: 2000, Scale: 1}, {Workload: rec1024, Steps: 500, Scale: 1}},
			[]float64{45, 25}, []bool{true, true}},
		{"two large", []sim.TraceJob{{Workload: r50x32, Steps: 400, Scale: 1}, {Workload: r50x64, Steps: 200, Scale: 1}},
			[]float64{10, 20}, []bool{false, false}},
		// rec 1000 steps at 50 it/s: 20 s; then ResNet-50 400 at 40: 30 s.
		{"small then large", []sim.TraceJob{{Workload: rec512, Steps: 1000, Scale: 1}, {Workload: r50x32, Steps: 400, Scale: 1}},
			[]float64{20, 30}, []bool{false, false}},
		{"large then small", []sim.TraceJob{{Workload: r50x32, Steps: 400, Scale: 1}, {Workload: rec512, Steps: 1000, Scale: 1}},
			[]float64{10, 30}, []bool{false, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, truth := tinyPolicy(t)
			r := simRun(t, simTopo(t, "b v100 1 1"), tc.jobs, truth, p, simOpts())
			for id := range tc.jobs {
				if got := r.Jobs[id].JCT; !simNear(got, tc.jct[id]) {
					t.Errorf("job %d JCT %v, want %v", id, got, tc.jct[id])
				}
				if got := r.Jobs[id].Shared > 0; got != tc.shared[id] {
					t.Errorf("job %d shared %v, want %v", id, got, tc.shared[id])
				}
			}
		})
	}
}

// With one job per GPU allowed the policy never packs.
func TestSimilarityRespectsMaxPerGPU(t *testing.T) {
	p, truth := tinyPolicy(t)
	o := simOpts()
	o.MaxPerGPU = 1
	jobs := []sim.TraceJob{{Workload: rec512, Steps: 2000, Scale: 1}, {Workload: rec1024, Steps: 500, Scale: 1}}
	r := simRun(t, simTopo(t, "b v100 1 1"), jobs, truth, p, o)
	// 2000 at 50: 40 s; then 500 at 25: 20 s more.
	if !simNear(r.Jobs[0].JCT, 40) || !simNear(r.Jobs[1].JCT, 60) || r.Shared != 0 {
		t.Errorf("JCTs %v, %v, shared %d; want 40, 60, 0", r.Jobs[0].JCT, r.Jobs[1].JCT, r.Shared)
	}
}

// A round moves a job to a better-suited type once GPUs there are free
// and the move pays for the restart penalty (10 s), and only then.
// One k80 and one v100. B (ResNet-50 bs 64, 1000 steps at 20 it/s) takes
// the v100 at t=0 and ends at 50. A (ResNet-50 bs 32) arrives at 1 and
// starts on the k80 at 10 it/s. At the round at t=100 A has done 990
// steps; its references run 4x faster on v100, so the estimate there is
// 40 it/s.
//   - 4000 steps: 3010 left, 301 s where it is against 75.25 + 10 s after
//     a move: it moves at 100, restores until 110 and ends at 110 + 75.25
//     = 185.25 (JCT 184.25, one restart).
//   - 1000 steps: 10 left, 1 s against 10.25 s: it stays and ends at 101.
func TestSimilarityRoundMove(t *testing.T) {
	for _, tc := range []struct {
		steps    int64
		jct      float64
		restarts int
		gpuType  string
	}{
		{4000, 184.25, 1, "v100"},
		{1000, 100, 0, "k80"},
	} {
		p, truth := tinyPolicy(t)
		jobs := []sim.TraceJob{
			{Workload: r50x64, Steps: 1000, Scale: 1},
			{Workload: r50x32, Steps: tc.steps, Scale: 1, Arrival: 1},
		}
		r := simRun(t, simTopo(t, "a k80 1 1", "b v100 1 1"), jobs, truth, p, simOpts())
		a := r.Jobs[1]
		if !simNear(r.Jobs[0].JCT, 50) || !simNear(a.JCT, tc.jct) || a.Restarts != tc.restarts || a.GPUType != tc.gpuType {
			t.Errorf("%d steps: B JCT %v; A JCT %v, %d restarts, ends on %s; want 50; %v, %d, %s",
				tc.steps, r.Jobs[0].JCT, a.JCT, a.Restarts, a.GPUType, tc.jct, tc.restarts, tc.gpuType)
		}
	}
	// Without rounds nothing moves: A runs 4000 steps at 10 it/s on k80.
	p, truth := tinyPolicy(t)
	o := simOpts()
	o.Round = 0
	r := simRun(t, simTopo(t, "a k80 1 1", "b v100 1 1"), []sim.TraceJob{
		{Workload: r50x64, Steps: 1000, Scale: 1},
		{Workload: r50x32, Steps: 4000, Scale: 1, Arrival: 1},
	}, truth, p, o)
	if !simNear(r.Jobs[1].JCT, 400) || r.Restarts != 0 {
		t.Errorf("no rounds: A JCT %v, %d restarts; want 400, 0", r.Jobs[1].JCT, r.Restarts)
	}
}

// A round unpacks: two recommenders share a v100 while a ResNet-50 holds
// the other; when it ends (t=50), the round at 100 moves one of the pair
// to the free v100. The policy predicts each one's normalized throughput
// next to the other from their references' pairs (batch size 2048 next
// to itself: 0.8, since each job's other reference is its partner, left
// out): saving 0.25 x left / solo rate - 10 s. At 100, 512 has 6000 of
// 10000 steps left at 50 it/s solo (saves 20 s) and 1024 has 2000 of 4000
// at 25 it/s (saves 10 s): 512 moves. It restores until 110 and ends at
// 110 + 6000/50 = 230; 1024 runs alone from 100: 100 + 2000/25 = 180.
func TestSimilarityRoundUnpacks(t *testing.T) {
	p, truth := tinyPolicy(t)
	jobs := []sim.TraceJob{
		{Workload: r50x32, Steps: 2000, Scale: 1},
		{Workload: rec512, Steps: 10000, Scale: 1},
		{Workload: rec1024, Steps: 4000, Scale: 1},
	}
	r := simRun(t, simTopo(t, "b v100 2 1"), jobs, truth, p, simOpts())
	want := []struct {
		jct      float64
		restarts int
	}{{50, 0}, {230, 1}, {180, 0}}
	for id, w := range want {
		if got := r.Jobs[id]; !simNear(got.JCT, w.jct) || got.Restarts != w.restarts {
			t.Errorf("job %d (%s): JCT %v, %d restarts; want %v, %d", id, got.Workload, got.JCT, got.Restarts, w.jct, w.restarts)
		}
	}
	if got := p.s.colocated(rec512, rec1024, "v100", 1); !simNear(got, 0.8) {
		t.Errorf("predicted normalized throughput %v, want 0.8", got)
	}
}

// The policy needs the model directory with a similarity model.
func TestNewSimilarityErrors(t *testing.T) {
	dir, truth := tinyModel(t)
	if _, err := NewSimilarity(sim.Env{Solo: sim.SoloOnly(truth)}, "", DefaultSimilarityOptions); err == nil {
		t.Error("no model directory accepted")
	}
	if _, err := NewSimilarity(sim.Env{Solo: sim.SoloOnly(truth)}, t.TempDir(), DefaultSimilarityOptions); err == nil {
		t.Error("a directory without index.json accepted")
	}
	if _, err := NewSimilarity(sim.Env{}, dir, DefaultSimilarityOptions); err == nil {
		t.Error("no solo rates accepted")
	}
	if _, err := NewSimilarity(sim.Env{Solo: sim.SoloOnly(truth)}, dir, SimilarityOptions{K: -1}); err == nil {
		t.Error("K = -1 accepted")
	}
	if _, err := NewSimilarity(sim.Env{Solo: sim.SoloOnly(truth)}, dir, SimilarityOptions{SmallParams: math.NaN()}); err == nil {
		t.Error("a NaN threshold accepted")
	}
	// The registry builds it, and refuses without models.
	info, err := sim.Lookup(Policies(Config{}), "similarity")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := info.New(sim.Env{Solo: sim.SoloOnly(truth)}); err == nil {
		t.Errorf("registry without models: %v", err)
	}
	info, _ = sim.Lookup(Policies(Config{Models: dir}), "similarity")
	if p, err := info.New(sim.Env{Solo: sim.SoloOnly(truth)}); err != nil || p.Name() != "similarity" {
		t.Errorf("registry: %v, %v", p, err)
	}
}

// Replays of shipped Gavel traces with the model fitted on the shipped
// data: every job is done or reported unrunnable, only small models share,
// two runs are identical, and the seed changes nothing.
func TestSimilarityShippedTraces(t *testing.T) {
	traces := [][2]string{{"physical_cluster/minimize_makespan.trace", "cluster-gavel.yaml"}}
	if !testing.Short() {
		traces = append(traces, [2]string{"msr/ed69ec.trace", "cluster-gavel-48.yaml"})
	}
	dir, truth := gavelModel(t)
	for _, c := range traces {
		name, tp := c[0], simTopoFile(t, c[1])
		tr, err := sim.LoadTrace(filepath.Join("..", "..", "examples", "traces", name))
		if err != nil {
			t.Fatal(err)
		}
		var results []*sim.Result
		for _, seed := range []uint64{1, 1, 2} {
			p, err := NewSimilarity(sim.Env{Seed: seed, Solo: sim.SoloOnly(truth)}, dir, DefaultSimilarityOptions)
			if err != nil {
				t.Fatal(err)
			}
			r, err := sim.Run(tp, tr.Jobs, truth, p, sim.DefaultOptions)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			results = append(results, r)
		}
		r := results[0]
		if r.Completed+r.Unrunnable != len(tr.Jobs) || r.Completed == 0 {
			t.Errorf("%s: %d done + %d unrunnable of %d", name, r.Completed, r.Unrunnable, len(tr.Jobs))
		}
		for _, j := range r.Jobs {
			if j.Shared > 0 && !(features.KnownModels[features.FamilyOf(j.Workload)].Params < DefaultSimilarityOptions.SmallParams) {
				t.Errorf("%s: job %d (%s, a large model) shared its GPUs for %g s", name, j.ID, j.Workload, j.Shared)
			}
			if j.Status == sim.StatusDone && !(j.JCT > 0 && j.Start >= j.Arrival && j.Finish >= j.Start) {
				t.Errorf("%s: job %d: arrival %v, start %v, finish %v", name, j.ID, j.Arrival, j.Start, j.Finish)
			}
		}
		if r.Shared == 0 || r.Restarts == 0 {
			t.Errorf("%s: %d shared jobs, %d restarts: packing or rounds never acted", name, r.Shared, r.Restarts)
		}
		if !reflect.DeepEqual(results[0], results[1]) || !reflect.DeepEqual(results[0].Jobs, results[2].Jobs) {
			t.Errorf("%s: two runs differ", name)
		}
	}
}

// simTopoFile loads a shipped cluster spec.
func simTopoFile(t testing.TB, name string) *sim.Topology {
	t.Helper()
	spec, err := cluster.Load(filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	tp, err := sim.NewTopology(spec)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// One replay of the msr trace ed69ec (951 jobs) per op, on the 108-GPU
// and the 48-GPU example clusters, with a fresh policy (fresh memos) from
// a model loaded once.
func BenchmarkSimilarityReplay(b *testing.B) {
	dir, truth := gavelModel(b)
	ls, err := model.LoadDir(dir, []string{"similarity"})
	if err != nil {
		b.Fatal(err)
	}
	m := ls[0].Model.(*model.Similarity)
	tr, err := sim.LoadTrace(filepath.Join("..", "..", "examples", "traces", "msr", "ed69ec.trace"))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []string{"cluster-gavel.yaml", "cluster-gavel-48.yaml"} {
		tp := simTopoFile(b, c)
		b.Run(c, func(b *testing.B) {
			for b.Loop() {
				p, err := NewSimilarityFrom(m, ls[0].File.Space, sim.SoloOnly(truth), DefaultSimilarityOptions)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := sim.Run(tp, tr.Jobs, truth, p, sim.DefaultOptions); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// aliased gives workloads the rates of others (as: workload -> the one
// whose rates it takes).
type aliased struct {
	sim.Rates
	as map[string]string
}

func (a aliased) name(w string) string {
	if o, ok := a.as[w]; ok {
		return o
	}
	return w
}

func (a aliased) Solo(w string, s sim.Shape) (float64, bool) { return a.Rates.Solo(a.name(w), s) }
func (a aliased) Colocated(w, p string, s sim.Shape) (float64, bool) {
	return a.Rates.Colocated(a.name(w), a.name(p), s)
}

// A run with workloads the model cannot describe ends with one warning
// naming them, in the order met, with why; a run without has none.
func TestSimilarityWarnsOfUndescribedWorkloads(t *testing.T) {
	dir, measured := tinyModel(t)
	truth := aliased{measured, map[string]string{"Mystery": rec512, "Enigma": rec512}}
	tp := simTopo(t, "a k80 1 2", "b v100 1 1")
	for _, tc := range []struct {
		jobs []string
		want []string
	}{
		{[]string{rec512, r50x32}, nil},
		{[]string{"Mystery", rec512, "Enigma", "Mystery"}, []string{`policy similarity: 2 workload(s) the model cannot describe, so their jobs rank every GPU type alike, count as not small and never move: Mystery (`, `), Enigma (`}},
	} {
		o := DefaultSimilarityOptions
		o.K = 2
		p, err := NewSimilarity(sim.Env{Seed: 1, Solo: sim.SoloOnly(truth)}, dir, o)
		if err != nil {
			t.Fatal(err)
		}
		var jobs []sim.TraceJob
		for i, w := range tc.jobs {
			jobs = append(jobs, sim.TraceJob{Workload: w, Steps: 100, Scale: 1, Arrival: float64(i)})
		}
		r := simRun(t, tp, jobs, truth, p, simOpts())
		var got []string
		for _, w := range r.Warnings {
			if strings.HasPrefix(w, "policy similarity:") {
				got = append(got, w)
			}
		}
		switch {
		case tc.want == nil && len(got) != 0:
			t.Errorf("jobs %v: warnings %q, want none", tc.jobs, got)
		case tc.want != nil && len(got) != 1:
			t.Errorf("jobs %v: warnings %q, want one", tc.jobs, got)
		case tc.want != nil:
			rest := got[0]
			for _, part := range tc.want {
				i := strings.Index(rest, part)
				if i < 0 {
					t.Fatalf("warning %q lacks %q (in order)", got[0], part)
				}
				rest = rest[i+len(part):]
			}
		}
		for _, j := range r.Jobs {
			if !(j.JCT > 0) {
				t.Errorf("jobs %v: job %d (%s) did not run: JCT %v", tc.jobs, j.ID, j.Workload, j.JCT)
			}
		}
	}
}
