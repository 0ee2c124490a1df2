package plugin

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/coloc-dev/coloc/integrations/kubernetes/colocapi"
	"github.com/coloc-dev/coloc/integrations/kubernetes/convention"
)

// stub is a coloc serve that records each /v1/score request and answers
// with answer (or fails with status when it is set).
type stub struct {
	mu     sync.Mutex
	reqs   []colocapi.ScoreRequest
	answer []colocapi.Option
	status int
}

func (s *stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/score" || r.Method != http.MethodPost {
		http.Error(w, "no such endpoint", http.StatusNotFound)
		return
	}
	var q colocapi.ScoreRequest
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, q)
	st, ans := s.status, s.answer
	s.mu.Unlock()
	if st != 0 {
		w.WriteHeader(st)
		_, _ = w.Write([]byte(`{"error":"stub failure","field":"job.workload"}`))
		return
	}
	_ = json.NewEncoder(w).Encode(colocapi.ScoreResponse{ModelsVersion: "stub", Options: ans})
}

func (s *stub) last(t *testing.T) colocapi.ScoreRequest {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		t.Fatal("coloc serve was not asked")
	}
	return s.reqs[len(s.reqs)-1]
}

// handle is the part of the framework's Handle the plugin uses.
type handle struct {
	fwk.Handle
	cs  clientset.Interface
	rec *events.FakeRecorder
}

func (h *handle) ClientSet() clientset.Interface            { return h.cs }
func (h *handle) EventRecorder() events.EventRecorderLogger { return h.rec }

func gpuNode(name, product string, count, replicas int) *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
	if product != "" {
		n.Labels[convention.LabelProduct] = product
		n.Labels[convention.LabelReplicas] = itoa(replicas)
		n.Status.Allocatable = v1.ResourceList{convention.ResourceGPU: *resource.NewQuantity(int64(count*replicas), resource.DecimalSI)}
	}
	return n
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func pod(name, workload string, gpus int64, node, ann string) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
		Annotations: map[string]string{}, CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}}
	if workload != "" {
		p.Annotations[convention.AnnotationWorkload] = workload
	}
	if ann != "" {
		p.Annotations[convention.AnnotationGPUs] = ann
	}
	p.Spec.NodeName = node
	p.Spec.Containers = []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
		Limits: v1.ResourceList{convention.ResourceGPU: *resource.NewQuantity(gpus, resource.DecimalSI)}}}}
	return p
}

func nodeInfo(n *v1.Node, pods ...*v1.Pod) fwk.NodeInfo {
	ni := framework.NewNodeInfo(pods...)
	ni.SetNode(n)
	return ni
}

func setup(t *testing.T, s *stub, objs ...runtime.Object) (*Plugin, *handle) {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	h := &handle{cs: fake.NewClientset(objs...), rec: events.NewFakeRecorder(10)}
	a, err := DecodeArgs(&runtime.Unknown{Raw: []byte(`{"url": "` + srv.URL + `", "gpuTypes": {"Odd-Board": "p100"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	return NewWithArgs(a, h), h
}

func TestDecodeArgs(t *testing.T) {
	a, err := DecodeArgs(&runtime.Unknown{Raw: []byte("url: http://coloc:8080\ntimeout: 2s\nmaxPerGPU: 1\n")})
	if err != nil || a.URL != "http://coloc:8080" || a.Timeout.Duration != 2*time.Second || a.MaxPerGPU != 1 {
		t.Errorf("YAML args: %+v %v", a, err)
	}
	a, err = DecodeArgs(&runtime.Unknown{Raw: []byte(`{"url": "http://c"}`)})
	if err != nil || a.Timeout.Duration != colocapi.DefaultTimeout || a.MaxPerGPU != 2 {
		t.Errorf("defaults: %+v %v", a, err)
	}
	for raw, want := range map[string]string{
		`{}`:                                  "url: missing",
		`{"url": "http://c", "maxPerGPU": 3}`: "maxPerGPU: 3",
		`{"url": "http://c", "bogus": 1}`:     "bogus",
	} {
		if _, err := DecodeArgs(&runtime.Unknown{Raw: []byte(raw)}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want one naming %q", raw, err, want)
		}
	}
	if _, err := DecodeArgs(nil); err == nil {
		t.Error("no args (no URL) accepted")
	}
}

// PreFilter sends one request naming every GPU node by name with its
// tenants, and the later points follow the answer.
func TestCycle(t *testing.T) {
	s := &stub{answer: []colocapi.Option{
		{Node: "b-v100", GPUs: []int{1}, Degree: 1, Score: 0.5, Reason: "alone"},
		{Node: "a-k80", GPUs: []int{0}, Degree: 1, Score: 0.5, Reason: "alone"},
		{Node: "c-v100", GPUs: []int{0}, Degree: 1, Partner: "A3C", Score: 0.2, Reason: "shares"},
		{Node: "d-p100", Score: 0, Reason: "no allowed degree fits"},
	}}
	p, _ := setup(t, s)
	tenant := pod("t", "A3C", 1, "b-v100", "0")
	other := pod("o", "", 1, "c-v100", "") // no annotation: packed on GPU 0
	nodes := []fwk.NodeInfo{
		nodeInfo(gpuNode("d-p100", "Odd-Board", 1, 1)),
		nodeInfo(gpuNode("c-v100", "Tesla-V100-SXM2-16GB", 1, 1), other),
		nodeInfo(gpuNode("b-v100", "Tesla-V100-SXM2-16GB", 2, 2), tenant),
		nodeInfo(gpuNode("a-k80", "Tesla-K80", 1, 1)),
		nodeInfo(gpuNode("cpu", "", 0, 0)),
	}
	me := pod("me", "LM (batch size 20)", 1, "", "")
	state := framework.NewCycleState()
	if _, st := p.PreFilter(context.Background(), state, me, nodes); !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	want := colocapi.ScoreRequest{Job: colocapi.Job{Workload: "LM (batch size 20)", Degrees: []int{1}}, MaxPerGPU: 2, Nodes: []colocapi.Node{
		// b-v100 advertises two replicas per GPU; the others one: exclusive.
		{Name: "a-k80", GPUType: "k80", GPUs: 1, Exclusive: true},
		{Name: "b-v100", GPUType: "v100", GPUs: 2, Tenants: []colocapi.Tenant{{Workload: "A3C", GPUs: []int{0}}}},
		{Name: "c-v100", GPUType: "v100", GPUs: 1, Tenants: []colocapi.Tenant{{Workload: "", GPUs: []int{0}}}, Exclusive: true},
		{Name: "d-p100", GPUType: "p100", GPUs: 1, Exclusive: true},
	}}
	if got := s.last(t); !reflect.DeepEqual(got, want) {
		t.Errorf("request\n got %+v\nwant %+v", got, want)
	}

	codes := map[string]fwk.Code{"a-k80": fwk.Success, "b-v100": fwk.Success,
		"c-v100": fwk.Unschedulable, // coloc would share, but the node has 1 replica
		"d-p100": fwk.Unschedulable, "cpu": fwk.UnschedulableAndUnresolvable}
	for _, ni := range nodes {
		st := p.Filter(context.Background(), state, me, ni)
		if st.Code() != codes[ni.Node().Name] {
			t.Errorf("Filter %s: %v, want %v", ni.Node().Name, st, codes[ni.Node().Name])
		}
		if ni.Node().Name == "d-p100" && !strings.Contains(st.Message(), "no allowed degree fits") {
			t.Errorf("Filter d-p100 does not give coloc's reason: %v", st)
		}
	}

	if st := p.PreScore(context.Background(), state, me, nodes); !st.IsSuccess() {
		t.Fatalf("PreScore: %v", st)
	}
	// a-k80 and b-v100 tie at 0.5; coloc ranks b-v100 first.
	var scores fwk.NodeScoreList
	for _, ni := range nodes[1:4] {
		v, st := p.Score(context.Background(), state, me, ni)
		if !st.IsSuccess() {
			t.Fatal(st)
		}
		scores = append(scores, fwk.NodeScore{Name: ni.Node().Name, Score: v})
	}
	if st := p.NormalizeScore(context.Background(), state, me, scores); !st.IsSuccess() {
		t.Fatal(st)
	}
	got := map[string]int64{}
	for _, s := range scores {
		got[s.Name] = s.Score
	}
	if want := map[string]int64{"b-v100": 100, "a-k80": 50, "c-v100": 20}; !reflect.DeepEqual(got, want) {
		t.Errorf("normalized scores %v, want %v", got, want)
	}
	// Without b-v100 (filtered out by another plugin) coloc's next goes first.
	scores = fwk.NodeScoreList{{Name: "c-v100", Score: 20}, {Name: "a-k80", Score: 50}}
	_ = p.NormalizeScore(context.Background(), state, me, scores)
	if scores[1].Score != 100 || scores[0].Score != 20 {
		t.Errorf("without coloc's first: %v", scores)
	}
}

// Reserve remembers the GPUs, the next cycle counts them on the assumed
// pod that has no annotation yet, and PreBind writes the annotation.
func TestReserveAndPreBind(t *testing.T) {
	me := pod("me", "LM (batch size 20)", 1, "", "")
	s := &stub{answer: []colocapi.Option{{Node: "n", GPUs: []int{2}, Degree: 1, Score: 1, Reason: "alone"}}}
	p, h := setup(t, s, me.DeepCopy())
	n := gpuNode("n", "Tesla-V100-SXM2-16GB", 4, 1)
	state := framework.NewCycleState()
	if _, st := p.PreFilter(context.Background(), state, me, []fwk.NodeInfo{nodeInfo(n)}); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := p.Reserve(context.Background(), state, me, "n"); !st.IsSuccess() {
		t.Fatal(st)
	}
	if _, st := p.PreBindPreFlight(context.Background(), state, me, "n"); !st.IsSuccess() {
		t.Fatalf("PreBindPreFlight: %v", st)
	}
	if st := p.PreBind(context.Background(), state, me, "n"); !st.IsSuccess() {
		t.Fatalf("PreBind: %v", st)
	}
	got, err := h.cs.CoreV1().Pods("default").Get(context.Background(), "me", metav1.GetOptions{})
	if err != nil || got.Annotations[convention.AnnotationGPUs] != "2" {
		t.Fatalf("annotation after PreBind: %v %v", got.Annotations, err)
	}

	assumed := me.DeepCopy()
	assumed.Spec.NodeName = "n"
	next := pod("next", "A3C", 1, "", "")
	if _, st := p.PreFilter(context.Background(), framework.NewCycleState(), next, []fwk.NodeInfo{nodeInfo(n, assumed)}); !st.IsSuccess() {
		t.Fatal(st)
	}
	wantT := []colocapi.Tenant{{Workload: "LM (batch size 20)", GPUs: []int{2}}}
	if q := s.last(t); !reflect.DeepEqual(q.Nodes[0].Tenants, wantT) {
		t.Errorf("tenants of the next cycle %+v, want %+v", q.Nodes[0].Tenants, wantT)
	}

	p.Unreserve(context.Background(), state, me, "n")
	if _, st := p.PreBindPreFlight(context.Background(), state, me, "n"); !st.IsSkip() {
		t.Errorf("PreBindPreFlight after Unreserve: %v, want Skip", st)
	}
}

// A pod naming no workload, and any failure of coloc serve, skip the
// plugin: the pod schedules as if it were absent, and a failure is an
// event on the pod.
func TestFailOpen(t *testing.T) {
	s := &stub{status: http.StatusInternalServerError}
	p, h := setup(t, s)
	nodes := []fwk.NodeInfo{nodeInfo(gpuNode("n", "Tesla-V100-SXM2-16GB", 1, 1))}

	state := framework.NewCycleState()
	if _, st := p.PreFilter(context.Background(), state, pod("plain", "", 1, "", ""), nodes); !st.IsSkip() {
		t.Errorf("pod without workload: PreFilter %v, want Skip", st)
	}
	if len(s.reqs) != 0 {
		t.Error("coloc serve was asked about a pod that names no workload")
	}

	me := pod("me", "A3C", 1, "", "")
	if _, st := p.PreFilter(context.Background(), state, me, nodes); !st.IsSkip() {
		t.Errorf("coloc serve failing: PreFilter %v, want Skip", st)
	}
	if st := p.PreScore(context.Background(), state, me, nodes); !st.IsSkip() {
		t.Errorf("coloc serve failing: PreScore %v, want Skip", st)
	}
	if st := p.Filter(context.Background(), state, me, nodes[0]); !st.IsSuccess() {
		t.Errorf("coloc serve failing: Filter %v, want Success", st)
	}
	select {
	case e := <-h.rec.Events:
		if !strings.Contains(e, "ColocUnavailable") || !strings.Contains(e, "stub failure") {
			t.Errorf("event %q does not name the failure", e)
		}
	default:
		t.Error("no event on the pod")
	}

	// Unreachable: the same.
	p2 := NewWithArgs(Args{URL: "http://127.0.0.1:1", Timeout: metav1.Duration{Duration: time.Second}, MaxPerGPU: 2}, h)
	if _, st := p2.PreFilter(context.Background(), framework.NewCycleState(), me, nodes); !st.IsSkip() {
		t.Errorf("coloc serve unreachable: PreFilter %v, want Skip", st)
	}
}
