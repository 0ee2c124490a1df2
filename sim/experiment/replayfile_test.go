package experiment

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/sim"
)

// replayOf runs policies on in (seed 1) and describes the replay.
func replayOf(t *testing.T, in Inputs, policies ...string) *Replay {
	t.Helper()
	x := Experiment{Policies: policies, Options: sim.DefaultOptions, Env: sim.Env{Seed: 1}}
	tr, _, err := x.Load(in)
	if err != nil {
		t.Fatal(err)
	}
	res, err := x.Run()
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReplay(in, tr, &x, res)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// equalNaN is reflect.DeepEqual but for floats: equal bits, or both NaN.
func equalNaN(a, b reflect.Value) bool {
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y)
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return equalNaN(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !equalNaN(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range a.NumField() {
			if !equalNaN(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return a.Uint() == b.Uint()
	}
	panic("equalNaN: no comparison for " + a.Type().String())
}

// firstDiff describes where got first differs from want.
func firstDiff(want, got *Replay) string {
	eq := func(a, b any) bool { return equalNaN(reflect.ValueOf(a), reflect.ValueOf(b)) }
	if len(want.Results) != len(got.Results) {
		return fmt.Sprintf("%d results, wrote %d", len(got.Results), len(want.Results))
	}
	for i, w := range want.Results {
		g := got.Results[i]
		if len(w.Jobs) == len(g.Jobs) {
			for k := range w.Jobs {
				if !eq(w.Jobs[k], g.Jobs[k]) {
					return fmt.Sprintf("%s job %d: read %+v, wrote %+v", w.Policy, k, g.Jobs[k], w.Jobs[k])
				}
			}
		}
		if !eq(*w, *g) {
			wc, gc := *w, *g
			wc.Jobs, gc.Jobs = nil, nil
			return fmt.Sprintf("%s: read %+v (%d jobs), wrote %+v (%d jobs)", w.Policy, gc, len(g.Jobs), wc, len(w.Jobs))
		}
	}
	wc, gc := *want, *got
	wc.Results, gc.Results = nil, nil
	return fmt.Sprintf("read %+v, wrote %+v", gc, wc)
}

// A replay read back is the replay written, every float64 to the bit and
// a time that did not happen (NaN) NaN again; the results lose their
// timeline only. The cases cover jobs that shared GPUs, restarted, ran on
// assumed pair rates, and jobs that could not run (no JCT, a reason).
func TestReplayRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name     string
		in       Inputs
		policies []string
	}{
		{"trace", Inputs{Trace: "../../examples/traces/physical_cluster/small_test.trace", Cluster: "../../examples/cluster-gavel-16.yaml", Data: gavelData},
			[]string{"fifo", "gavel-las", "greedy-pack", "oracle"}},
		{"assumed", Inputs{Trace: "../../examples/traces/physical_cluster/minimize_makespan.trace", Cluster: "../../examples/cluster-gavel-16.yaml", Data: gavelData,
			AssumeMultiGPUPairs: true}, []string{"greedy-pack"}},
		{"joblist", Inputs{Trace: "../../examples/jobs.yaml", Cluster: "../../examples/cluster.yaml", Data: gavelData}, []string{"fifo", "oracle"}},
	} {
		r := replayOf(t, c.in, c.policies...)
		path := filepath.Join(dir, c.name+".json")
		if err := WriteReplay(path, r); err != nil {
			t.Fatal(err)
		}
		got, err := ReadReplay(path)
		if err != nil {
			t.Fatal(err)
		}
		want := *r
		want.Results = nil
		for _, res := range r.Results {
			cp := *res
			cp.Timeline = nil
			want.Results = append(want.Results, &cp)
		}
		if !equalNaN(reflect.ValueOf(want), reflect.ValueOf(*got)) {
			t.Errorf("%s: read back differs from what was written: %s", c.name, firstDiff(&want, got))
		}
		for i, p := range c.policies {
			if got.Results[i].Policy != p {
				t.Errorf("%s: result %d is %s, want %s", c.name, i, got.Results[i].Policy, p)
			}
		}
		if got.Trace.Path != c.in.Trace || got.Cluster.Path != c.in.Cluster || got.Data != gavelData || got.Seed != 1 {
			t.Errorf("%s: inputs %+v %+v %q seed %d", c.name, got.Trace, got.Cluster, got.Data, got.Seed)
		}
		for _, f := range []string{c.in.Trace, c.in.Cluster} {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			if s := hex.EncodeToString(sum[:]); s != got.Trace.SHA256 && s != got.Cluster.SHA256 {
				t.Errorf("%s: no sha256 %s of %s (trace %s, cluster %s)", c.name, s, f, got.Trace.SHA256, got.Cluster.SHA256)
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, key := range []string{`"format":"coloc.replay"`, `"version":1`, `"settings":{"round_s":`, `"avg_jct_s"`, `"p95_jct_s"`, `"makespan_s"`, `"arrival_s"`, `"jct_s"`, `"shared_s"`} {
			if !strings.Contains(text, key) {
				t.Errorf("%s: the file lacks %s", c.name, key)
			}
		}
		// What the cases are here to cover.
		res := got.Results[len(got.Results)-1]
		switch c.name {
		case "trace":
			if got.Trace.Format != "physical_cluster" || got.Trace.Jobs != 20 || got.Cluster.Name == "" ||
				!reflect.DeepEqual(got.Cluster.GPUs, []ReplayGPUs{{"k80", 8}, {"p100", 4}, {"v100", 4}}) {
				t.Errorf("trace: %+v on %+v", got.Trace, got.Cluster)
			}
			if gp := got.Results[2]; gp.Shared == 0 || gp.Completed != 20 {
				t.Errorf("greedy-pack: %d of %d jobs completed, %d shared; the case should share", gp.Completed, len(gp.Jobs), gp.Shared)
			}
		case "assumed":
			if res.Assumed == 0 || len(res.Warnings) == 0 {
				t.Errorf("assumed: %d jobs on assumed rates, warnings %q", res.Assumed, res.Warnings)
			}
		case "joblist":
			if res.Unrunnable == 0 || !strings.Contains(text, `"jct_s":null`) {
				t.Errorf("joblist: %d unrunnable; the case should hold a job without a JCT", res.Unrunnable)
			}
			for _, j := range res.Jobs {
				if j.Status == sim.StatusUnrunnable && (!math.IsNaN(j.JCT) || !math.IsNaN(j.Start) || j.Reason == "") {
					t.Errorf("joblist: unrunnable job %d: %+v", j.ID, j)
				}
			}
		}
	}
}

// A replay written by hand: two policies, three jobs, the last
// unrunnable.
func smallReplay() *Replay {
	sum := strings.Repeat("ab", 32)
	result := func(policy string) *sim.Result {
		nan := math.NaN()
		return &sim.Result{Policy: policy, Completed: 2, Unrunnable: 1, AvgJCT: 150.25, P95JCT: 200.5, Makespan: math.Nextafter(0.3, 1),
			GPUUtil: 1.0 / 3, EffectiveUtil: 2.0 / 7, Restarts: 1, Shared: 1, Extrapolated: 1, Assumed: 1, Warnings: []string{"1 job(s) not simulated: no rate"},
			Util: []sim.TypeUtil{{GPUType: "v100", GPUs: 4, Util: 1.0 / 3, Effective: 2.0 / 7}},
			Jobs: []sim.JobResult{
				{ID: 0, Line: 1, Workload: "a", Scale: 1, Degree: 1, Steps: 10, Arrival: 0, Start: 0, Finish: 100, JCT: 100, GPUType: "v100", Status: sim.StatusDone},
				{ID: 1, Line: 2, Workload: "b", Scale: 2, Degree: 2, Steps: 20, Arrival: 5, Start: 7, Finish: 205.5, JCT: 200.5, GPUType: "v100", Restarts: 1, Shared: 30.75, Status: sim.StatusDone,
					Extrapolated: true, Assumed: true},
				{ID: 2, Line: 3, Workload: "c", Scale: 8, Steps: 30, Arrival: 9, Start: nan, Finish: nan, JCT: nan, Status: sim.StatusUnrunnable, Reason: "no rate"},
			}}
	}
	return &Replay{
		Trace:   ReplayTrace{Path: "t.trace", SHA256: sum, Format: "msr", Jobs: 3},
		Cluster: ReplayCluster{Path: "c.yaml", SHA256: sum, Name: "c", GPUs: []ReplayGPUs{{"v100", 4}}},
		Data:    "data", Seed: math.MaxUint64, Results: []*sim.Result{result("fifo"), result("oracle")},
	}
}

// ReadReplay refuses a file that is not a whole replay of version 1, and
// says which file, and where the problem lies: the policy, the job.
func TestReadReplayErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := WriteReplay(good, smallReplay()); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadReplay(good); err != nil {
		t.Fatalf("the good file: %v", err)
	}
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	type obj = map[string]any
	job := func(f obj, policy, id int) obj {
		return f["results"].([]any)[policy].(obj)["jobs"].([]any)[id].(obj)
	}
	for _, c := range []struct {
		name   string
		change func(f obj)
		want   string
	}{
		{"format", func(f obj) { f["format"] = "coloc.sweep" }, `not a replay file: format "coloc.sweep", want "coloc.replay"`},
		{"no format", func(f obj) { delete(f, "format") }, `format ""`},
		{"version", func(f obj) { f["version"] = 2 }, "version 2 is not known to this coloc (it reads version 1)"},
		{"version and a new field", func(f obj) { f["version"], f["novelty"] = 2, true }, "version 2 is not known to this coloc"},
		{"unknown field", func(f obj) { f["novelty"] = true }, `unknown field "novelty"`},
		{"unknown job field", func(f obj) { job(f, 0, 1)["novelty"] = 1 }, `unknown field "novelty"`},
		{"no trace", func(f obj) { delete(f, "trace") }, "no trace"},
		{"no cluster", func(f obj) { delete(f, "cluster") }, "no cluster"},
		{"no results", func(f obj) { delete(f, "results") }, "no results"},
		{"no settings", func(f obj) { delete(f, "settings") }, "no settings"},
		{"empty results", func(f obj) { f["results"] = []any{} }, "no results"},
		{"trace sha256", func(f obj) { f["trace"].(obj)["sha256"] = "abc" }, `trace t.trace: sha256 "abc" is not 64 hex digits`},
		{"negative trace jobs", func(f obj) { f["trace"].(obj)["jobs"] = -3 }, "trace t.trace: -3 jobs, a negative count"},
		{"negative GPUs", func(f obj) { f["cluster"].(obj)["gpus"].([]any)[0].(obj)["count"] = -4 }, `cluster c.yaml: -4 GPUs of type "v100"`},
		{"no policy", func(f obj) { f["results"].([]any)[1].(obj)["policy"] = "" }, "result 2 of 2 has no policy"},
		{"duplicate policy", func(f obj) { f["results"].([]any)[1].(obj)["policy"] = "fifo" }, `policy "fifo": results 1 and 2, one result per policy`},
		{"jobs count", func(f obj) {
			r := f["results"].([]any)[1].(obj)
			r["jobs"] = r["jobs"].([]any)[:2]
		}, `policy "oracle": 2 jobs, but the trace has 3`},
		{"status", func(f obj) { job(f, 1, 2)["status"] = "running" }, `policy "oracle": job 2: status "running", want done or unrunnable`},
		{"negative restarts", func(f obj) { f["results"].([]any)[0].(obj)["restarts"] = -1 }, `policy "fifo": restarts -1 is negative`},
		{"negative job steps", func(f obj) { job(f, 0, 1)["steps"] = -20 }, `policy "fifo": job 1: steps -20 is negative`},
		{"done without JCT", func(f obj) { job(f, 0, 0)["jct_s"] = nil }, `policy "fifo": job 0: done without jct_s`},
		{"counts disagree", func(f obj) { f["results"].([]any)[0].(obj)["completed"] = 3 }, `policy "fifo": completed 3 and unrunnable 1, but 2 jobs are done and 1 unrunnable`},
		{"job order", func(f obj) { job(f, 0, 1)["id"] = 5 }, `policy "fifo": job 5 in place 1`},
		{"type", func(f obj) { job(f, 0, 1)["arrival_s"] = "soon" }, "cannot unmarshal string"},
	} {
		var f obj
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // the seed, a uint64, exactly
		if err := dec.Decode(&f); err != nil {
			t.Fatal(err)
		}
		c.change(f)
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = ReadReplay(path)
		if err == nil || !strings.Contains(err.Error(), path+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q naming the file", c.name, err, c.want)
		}
	}
	for _, c := range []struct {
		name, text, want string
	}{
		{"truncated", string(raw[:len(raw)/2]), "unexpected end of JSON input"},
		{"syntax", strings.Replace(string(raw), `"version":1,`, `"version":1,,`, 1), "line 1: invalid character ','"},
		{"trailing", string(raw) + "{}\n", "invalid character '{' after top-level value"},
		{"empty", "", "unexpected end of JSON input"},
		{"member twice", strings.Replace(string(raw), `"seed":`, `"seed":1,"seed":`, 1), `member "seed" appears twice`},
	} {
		path := filepath.Join(dir, c.name+".json")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadReplay(path)
		if err == nil || !strings.Contains(err.Error(), path+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q naming the file", c.name, err, c.want)
		}
	}
	if _, err := ReadReplay(filepath.Join(dir, "absent.json")); err == nil || !strings.Contains(err.Error(), "absent.json") {
		t.Errorf("an absent file: %v", err)
	}
	if _, err := ReadReplay(dir); !errors.Is(err, inputfile.ErrNotRegular) {
		t.Errorf("a directory: %v, want it refused as not a regular file", err)
	}
}

// WriteReplay writes only what ReadReplay reads back: an invalid replay
// or a number JSON cannot hold is an error naming the file, and the file
// is not written.
func TestWriteReplayRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		change func(r *Replay)
		want   string
	}{
		{"duplicate", func(r *Replay) { r.Results[1].Policy = "fifo" }, `policy "fifo": results 1 and 2`},
		{"infinity", func(r *Replay) { r.Results[0].Makespan = math.Inf(1) }, `policy "fifo": makespan_s is +Inf, which JSON cannot hold`},
		{"NaN utilisation", func(r *Replay) { r.Results[1].GPUUtil = math.NaN() }, `policy "oracle": gpu_util is NaN`},
		{"NaN shared", func(r *Replay) { r.Results[1].Jobs[1].Shared = math.NaN() }, `policy "oracle": job 1: shared_s is NaN`},
		{"no results", func(r *Replay) { r.Results = nil }, "no results"},
	} {
		r := smallReplay()
		c.change(r)
		path := filepath.Join(dir, c.name+".json")
		err := WriteReplay(path, r)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q naming the file", c.name, err, c.want)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: the file was written (%v)", c.name, err)
		}
	}
	// A result whose averages are NaN (no job completed) writes them as
	// null and reads them back NaN.
	r := smallReplay()
	r.Results[0].AvgJCT, r.Results[0].P95JCT = math.NaN(), math.NaN()
	path := filepath.Join(dir, "nan.json")
	if err := WriteReplay(path, r); err != nil {
		t.Fatal(err)
	}
	got, err := ReadReplay(path)
	if err != nil {
		t.Fatal(err)
	}
	if a := got.Results[0]; !math.IsNaN(a.AvgJCT) || !math.IsNaN(a.P95JCT) || a.Makespan != math.Nextafter(0.3, 1) {
		t.Errorf("read back avg %v p95 %v makespan %v", a.AvgJCT, a.P95JCT, a.Makespan)
	}
	if !equalNaN(reflect.ValueOf(*r), reflect.ValueOf(*got)) {
		t.Errorf("read back differs from what was written: %s", firstDiff(r, got))
	}
}
