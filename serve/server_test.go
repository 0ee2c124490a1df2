package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
)

const refData = "../datasets/reference/gavel"

var (
	fitOnce sync.Once
	fitDir  string
	fitErr  error
)

// fitted fits iasp, iapp and the similarity model on the reference data
// once for the package's tests (without calibration: seconds).
func fitted(t testing.TB) string {
	t.Helper()
	fitOnce.Do(func() {
		fitDir, fitErr = os.MkdirTemp("", "coloc-serve-models")
		if fitErr != nil {
			return
		}
		fitErr = fitInto(fitDir, model.DefaultSeed)
	})
	if fitErr != nil {
		t.Fatal(fitErr)
	}
	return fitDir
}

func fitInto(dir string, seed uint64) error {
	ds, err := datasets.Open(refData)
	if err != nil {
		return err
	}
	d, err := model.DataOfWith(ds, model.DataOptions{})
	if err != nil {
		return err
	}
	f, err := model.FitCalibrated(d, []string{"iasp", "iapp", "similarity"}, seed, model.TrustOptions{Coverage: 0.9}, 0)
	if err != nil {
		return err
	}
	_, err = model.WriteDir(dir, d, f)
	return err
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fitDir != "" {
		os.RemoveAll(fitDir)
	}
	os.Exit(code)
}

func newServer(t *testing.T, o Options) *Server {
	t.Helper()
	if o.Models == "" {
		o.Models = fitted(t)
	}
	o.Data = []string{refData}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func post(t *testing.T, h http.Handler, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
	return w
}

// postDecide posts body to /v1/decide and returns the decoded answer,
// failing the test on any status but 200.
func postDecide(t *testing.T, h http.Handler, body string) DecideResponse {
	t.Helper()
	w := post(t, h, "/v1/decide", body)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	var got DecideResponse
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// /v1/predict answers what `coloc predict --json` prints: the rows of
// place.PredictPair over every model of the directory.
func TestPredictIsCololcPredict(t *testing.T) {
	s := newServer(t, Options{})
	w := post(t, s.Handler(), "/v1/predict", `{"a": "ResNet-50 (batch size 64)", "b": "LM (batch size 20)", "device": "v100"}`)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	var got PredictResponse
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	ms, err := model.LoadDir(fitted(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := place.PredictPair(ms, "ResNet-50 (batch size 64)", "LM (batch size 20)", "v100")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(got.Predictions)
	b, _ := json.Marshal(want)
	if len(want) != 3 || string(a) != string(b) {
		t.Errorf("served %s\nwant    %s", a, b)
	}
	if got.Version != s.Version() || len(got.Version) != 12 {
		t.Errorf("version %q, server %q", got.Version, s.Version())
	}
	// One model only.
	w = post(t, s.Handler(), "/v1/predict", `{"a": "ResNet-50 (batch size 64)", "b": "LM (batch size 20)", "device": "v100", "models": ["iapp"]}`)
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || len(got.Predictions) != 1 || got.Predictions[0].Model != "iapp" {
		t.Errorf("models [iapp]: %d %s", w.Code, w.Body)
	}
}

// /v1/decide answers the decision core's decisions, those `coloc policy
// export` writes for the same cluster and jobs.
func TestDecideIsPolicyExport(t *testing.T) {
	s := newServer(t, Options{})
	asJSON := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := yaml.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(j)
	}
	// The example list (GPUs to spare: nobody shares) and the busy one
	// (more GPUs asked than the cluster has: jobs share).
	for _, jobsFile := range []string{"../examples/jobs.yaml", "../examples/jobs-busy.yaml"} {
		body := `{"cluster": ` + asJSON("../examples/cluster.yaml") + `, "jobs": ` + asJSON(jobsFile) + `}`
		got := postDecide(t, s.Handler(), body)
		spec, err := cluster.Load("../examples/cluster.yaml")
		if err != nil {
			t.Fatal(err)
		}
		list, err := jobs.Load(jobsFile)
		if err != nil {
			t.Fatal(err)
		}
		f := coreExport(t, spec, list)
		a, _ := json.Marshal(got.Decisions)
		b, _ := json.Marshal(f.Decisions)
		if len(f.Decisions) != len(list.Jobs) || string(a) != string(b) {
			t.Errorf("served %s\nexport  %s", a, b)
		}
		placed, shared := 0, 0
		for _, d := range got.Decisions {
			if d.Status == policy.StatusPlaced {
				placed++
			}
			shared += len(d.ColocatedWith)
		}
		if placed == 0 || got.Objective == nil || got.Objective.Rule != policy.RuleDecisionCore {
			t.Errorf("%s: placed %d, objective %+v", jobsFile, placed, got.Objective)
		}
		if jobsFile == "../examples/jobs-busy.yaml" && shared == 0 {
			t.Errorf("%s: no job shares a GPU", jobsFile)
		}
	}
}

// Bad requests get a 4xx naming the problem, and the field where there is
// one; nothing gets a 5xx.
func TestBadRequests(t *testing.T) {
	s := newServer(t, Options{MaxBody: 4096})
	for _, c := range []struct {
		name, method, path, body string
		code                     int
		field, msg               string
	}{
		{"malformed", "POST", "/v1/predict", `{"a": `, 400, "", "malformed JSON"},
		{"empty", "POST", "/v1/predict", ``, 400, "", "empty body"},
		{"unknown member", "POST", "/v1/predict", `{"a": "x", "b": "y", "device": "v100", "gpu": 1}`, 400, "gpu", "unknown field"},
		{"wrong type", "POST", "/v1/predict", `{"a": 1, "b": "y", "device": "v100"}`, 400, "a", "want string"},
		{"missing", "POST", "/v1/predict", `{"a": "ResNet-50 (batch size 64)", "device": "v100"}`, 400, "b", "missing"},
		{"unknown job", "POST", "/v1/predict", `{"a": "ResNet-50 (batch size 64)", "b": "no such job", "device": "v100"}`, 400, "b", "no such job"},
		{"trailing", "POST", "/v1/predict", `{"a": "x", "b": "y", "device": "v100"} {}`, 400, "", "trailing"},
		{"oversized", "POST", "/v1/predict", `{"a": "` + strings.Repeat("x", 5000) + `"}`, 413, "", "over the server's 4096 bytes"},
		{"method", "GET", "/v1/predict", ``, 405, "", "want POST"},
		{"no endpoint", "GET", "/v2/anything", ``, 404, "", "no endpoint"},
		{"bad cluster", "POST", "/v1/decide", `{"cluster": {"version": 9}, "jobs": {"version": 1, "jobs": []}}`, 400, "cluster", "version"},
		{"no jobs", "POST", "/v1/decide", `{"cluster": {"version": 1}}`, 400, "jobs", "missing"},
		{"bad durations", "POST", "/v1/decide", `{"cluster": {"version": 1, "name": "c", "nodes": [{"name": "v", "gpu_type": "v100", "gpus": 1, "gpu_memory_gb": 16}]}, "jobs": {"version": 1, "jobs": []}, "durations": "foresight"}`, 400, "durations", "want attained or known"},
	} {
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, httptest.NewRequest(c.method, c.path, strings.NewReader(c.body)))
		var e struct{ Error, Field string }
		json.Unmarshal(w.Body.Bytes(), &e)
		if w.Code != c.code || e.Field != c.field || !strings.Contains(e.Error, c.msg) {
			t.Errorf("%s: %d %s, want %d field %q message containing %q", c.name, w.Code, w.Body, c.code, c.field, c.msg)
		}
	}
}

var (
	metricLine = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")*\})? -?[0-9.eE+-]+$|^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? \+Inf$`)
	helpLine   = regexp.MustCompile(`^# (HELP [a-zA-Z_:][a-zA-Z0-9_:]* .+|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram|summary|untyped))$`)
)

// /metrics is Prometheus text: every line a sample or a HELP/TYPE
// comment, each family typed before its samples, the requests counted by
// path and status, the histogram cumulative and ending at +Inf.
func TestMetricsAreValidPrometheusText(t *testing.T) {
	s := newServer(t, Options{})
	post(t, s.Handler(), "/v1/predict", `{"a": "ResNet-50 (batch size 64)", "b": "LM (batch size 20)", "device": "v100"}`)
	post(t, s.Handler(), "/v1/predict", `{`)
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("content type %q", ct)
	}
	typed := map[string]string{}
	samples := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(w.Body.Bytes()))
	var lastBucket float64 = -1
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") {
			if !helpLine.MatchString(l) {
				t.Errorf("bad comment line %q", l)
			}
			if f := strings.Fields(l); f[1] == "TYPE" {
				typed[f[2]] = f[3]
			}
			continue
		}
		if !metricLine.MatchString(l) {
			t.Errorf("bad sample line %q", l)
			continue
		}
		name := l[:strings.IndexAny(l, "{ ")]
		family := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
		if typed[family] == "" && typed[name] == "" {
			t.Errorf("sample %q before its TYPE", l)
		}
		key, val, _ := strings.Cut(l, "} ")
		samples[key+"}"] = val
		if strings.HasPrefix(l, `coloc_serve_request_duration_seconds_bucket{path="/v1/predict"`) {
			var v float64
			json.Unmarshal([]byte(val), &v)
			if v < lastBucket {
				t.Errorf("histogram not cumulative at %q", l)
			}
			lastBucket = v
		}
	}
	for k, want := range map[string]string{
		`coloc_serve_requests_total{path="/v1/predict",code="200"}`:                      "1",
		`coloc_serve_requests_total{path="/v1/predict",code="400"}`:                      "1",
		`coloc_serve_request_duration_seconds_bucket{path="/v1/predict",le="+Inf"}`:      "2",
		`coloc_serve_models_info{dir="` + fitted(t) + `",version="` + s.Version() + `"}`: "1",
	} {
		if samples[k] != want {
			t.Errorf("%s = %q, want %s\n%s", k, samples[k], want, w.Body)
		}
	}
}

// A reload swaps in models fit again; a reload that fails keeps serving
// the models it had; both are counted.
func TestReload(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(fitted(t))); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, Options{Models: dir})
	v1 := s.Version()
	if err := fitInto(dir, 7); err != nil {
		t.Fatal(err)
	}
	if !s.changed() {
		t.Error("the watcher does not see the new index")
	}
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	v2 := s.Version()
	if v2 == v1 {
		t.Errorf("version %s after a refit with another seed", v2)
	}
	os.Remove(dir + "/iapp.json")
	if err := s.Reload(); err == nil {
		t.Error("a reload without iapp.json succeeded")
	}
	if s.Version() != v2 {
		t.Errorf("a failed reload changed the version to %s", s.Version())
	}
	if w := post(t, s.Handler(), "/v1/predict", `{"a": "ResNet-50 (batch size 64)", "b": "LM (batch size 20)", "device": "v100"}`); w.Code != http.StatusOK {
		t.Errorf("after a failed reload: %d %s", w.Code, w.Body)
	}
	if s.metrics.reloads["ok"] != 1 || s.metrics.reloads["error"] != 1 {
		t.Errorf("reloads %v", s.metrics.reloads)
	}
}

// Run answers on its listener, reloads on a signal, and returns once its
// context is done, after the requests in flight.
func TestRunServesAndStops(t *testing.T) {
	s := newServer(t, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	reload := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, ln, reload) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("readyz %d", resp.StatusCode)
	}
	reload <- struct{}{}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its context was done")
	}
	if _, err := http.Get("http://" + ln.Addr().String() + "/healthz"); err == nil {
		t.Error("the server still answers after a stop")
	}
}

// No request body, however malformed, makes a handler fail with a 5xx.
func FuzzRequests(f *testing.F) {
	for _, seed := range []string{
		`{"a": "ResNet-50 (batch size 64)", "b": "LM (batch size 20)", "device": "v100"}`,
		`{"a": "x", "b": "y", "device": "v100x2", "models": ["iasp"]}`,
		`{"cluster": {"version": 1, "name": "c", "nodes": [{"name": "v", "gpu_type": "v100", "gpus": 2, "gpu_memory_gb": 16}]}, "jobs": {"version": 1, "jobs": [{"id": "a", "workload": "LM (batch size 20)", "degrees": [1], "steps": 100}]}}`,
		`{"cluster": "x", "jobs": [1]}`, `[]`, `null`, `{"a": "\u0000"}`,
	} {
		f.Add(seed)
	}
	s, err := New(Options{Models: fitted(f), Data: []string{refData}, MaxBody: 1 << 16})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range []string{"/v1/predict", "/v1/decide"} {
			w := httptest.NewRecorder()
			s.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
			if w.Code >= 500 {
				t.Errorf("%s %q: %d %s", path, body, w.Code, w.Body)
			}
		}
	})
}

// /v1/score ranks nodes for an arriving job: a free GPU of the type it
// runs fastest on first, then a slower free one, and a full node only
// beside a tenant worth sharing with.
func TestScore(t *testing.T) {
	s := newServer(t, Options{})
	body := `{"job": {"workload": "ResNet-50 (batch size 64)", "degrees": [1]}, "nodes": [
		{"name": "k", "gpu_type": "k80", "gpus": 4},
		{"name": "v-full", "gpu_type": "v100", "gpus": 1, "tenants": [{"workload": "ResNet-18 (batch size 16)", "gpus": [0]}]},
		{"name": "v", "gpu_type": "v100", "gpus": 4, "tenants": [{"workload": "LM (batch size 20)", "gpus": [0]}]}]}`
	w := post(t, s.Handler(), "/v1/score", body)
	if w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var got ScoreResponse
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Options) != 3 || got.Options[0].Node != "v" || got.Options[0].Score != 1 || got.Options[0].GPUs[0] != 1 {
		t.Fatalf("options %+v: want v's free GPU 1 first, at score 1", got.Options)
	}
	for _, o := range got.Options[1:] {
		switch o.Node {
		case "k":
			if !(o.Score > 0 && o.Score < 1) || o.Partner != "" {
				t.Errorf("k80: %+v, want alone at a score below 1", o)
			}
		case "v-full":
			if o.Score > 0 && (o.Partner == "" || o.Normalized+o.PartnerNormalized <= 1) {
				t.Errorf("full V100: %+v, want sharing worth more than the tenant alone, or no option", o)
			}
		}
	}
	for body, field := range map[string]string{
		`{"job": {"degrees": [1]}, "nodes": [{"name": "n", "gpu_type": "v100", "gpus": 1}]}`:                                              "job.workload",
		`{"job": {"workload": "x", "degrees": [0]}, "nodes": [{"name": "n", "gpu_type": "v100", "gpus": 1}]}`:                             "job.degrees[0]",
		`{"job": {"workload": "x", "degrees": [1]}, "nodes": [{"name": "n", "gpu_type": "v100", "gpus": 1, "tenants": [{"gpus": [3]}]}]}`: "nodes[0].tenants[0].gpus",
		`{"job": {"workload": "x", "degrees": [1]}}`:                                                                                      "nodes",
	} {
		w := post(t, s.Handler(), "/v1/score", body)
		var e struct{ Field string }
		json.Unmarshal(w.Body.Bytes(), &e)
		if w.Code != http.StatusBadRequest || e.Field != field {
			t.Errorf("%s: %d %s, want 400 naming %s", body, w.Code, w.Body, field)
		}
	}
}

// BenchmarkScore5000Nodes answers POST /v1/score for one job against 5,000
// nodes of 8 GPUs, each with three tenants, with the reference data's
// models: decoding, scoring and encoding.
func BenchmarkScore5000Nodes(b *testing.B) {
	s, err := New(Options{Models: fitted(b), Data: []string{refData}, MaxBody: 64 << 20})
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	sb.WriteString(`{"job": {"workload": "ResNet-50 (batch size 64)", "degrees": [1, 2, 4]}, "nodes": [`)
	types := []string{"v100", "p100", "k80"}
	for i := range 5000 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"name": "n%d", "gpu_type": %q, "gpus": 8, "tenants": [{"workload": "LM (batch size 20)", "gpus": [0, 1]}, {"workload": "ResNet-18 (batch size 16)", "gpus": [2]}, {"workload": "A3C", "gpus": [3]}]}`, i, types[i%3])
	}
	sb.WriteString("]}")
	body := sb.String()
	b.ResetTimer()
	for range b.N {
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/score", strings.NewReader(body)))
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body.String()[:200])
		}
	}
}

// Every endpoint the server answers is documented in Usage (coloc serve
// --help) with its method, and a path it does not know answers 404.
func TestUsageDocumentsEveryEndpoint(t *testing.T) {
	o := Options{Slurm: recordedSlurm(t)}
	s := newServer(t, o)
	for path, method := range map[string]string{"/v1/predict": "POST", "/v1/decide": "POST", "/v1/score": "POST", "/v1/slurm/place": "POST", "/healthz": "GET", "/readyz": "GET", "/metrics": "GET"} {
		if !strings.Contains(Usage, method+" "+path) {
			t.Errorf("Usage lacks %s %s", method, path)
		}
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, httptest.NewRequest(method, path, strings.NewReader("{}")))
		if w.Code == http.StatusNotFound || w.Code == http.StatusMethodNotAllowed {
			t.Errorf("%s %s: %d", method, path, w.Code)
		}
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/v1/nothing", nil))
	if w.Code != http.StatusNotFound {
		t.Errorf("GET /v1/nothing: %d", w.Code)
	}
}

// A sharing option carries the node-level model's intervals of both
// predicted normalized throughputs, each around its value.
func TestScoreSharingHasIntervals(t *testing.T) {
	s := newServer(t, Options{})
	body := `{"job": {"workload": "A3C", "degrees": [1]}, "nodes": [
		{"name": "v", "gpu_type": "v100", "gpus": 1, "tenants": [{"workload": "A3C", "gpus": [0]}]}]}`
	w := post(t, s.Handler(), "/v1/score", body)
	var got ScoreResponse
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != http.StatusOK {
		t.Fatalf("%d %s %v", w.Code, w.Body, err)
	}
	o := got.Options[0]
	if o.Partner != "A3C" || o.Interval == nil || o.PartnerInterval == nil {
		t.Fatalf("%+v: want to share with A3C, with intervals (the premise of the test)", o)
	}
	if !(o.Interval[0] <= o.Normalized && o.Normalized <= o.Interval[1]) || !(o.PartnerInterval[0] <= o.PartnerNormalized && o.PartnerNormalized <= o.PartnerInterval[1]) {
		t.Errorf("%+v: a value outside its interval", o)
	}
	if !strings.Contains(w.Body.String(), `"predicted_interval":[`) {
		t.Errorf("no predicted_interval in %s", w.Body)
	}
}
