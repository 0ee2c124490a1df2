package extender

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	kscheduler "k8s.io/kubernetes/pkg/scheduler"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/coloc-dev/coloc/integrations/kubernetes/colocapi"
	"github.com/coloc-dev/coloc/integrations/kubernetes/convention"
)

// colocStub answers /v1/score with fixed options and records requests.
type colocStub struct {
	mu   sync.Mutex
	reqs []colocapi.ScoreRequest
	opts []colocapi.Option
	fail bool
}

func (s *colocStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var q colocapi.ScoreRequest
	_ = json.NewDecoder(r.Body).Decode(&q)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, q)
	if s.fail {
		http.Error(w, `{"error":"down"}`, http.StatusServiceUnavailable)
		return
	}
	// Only the options of the nodes asked about, in the stub's order.
	var out []colocapi.Option
	for _, o := range s.opts {
		for _, n := range q.Nodes {
			if n.Name == o.Node {
				out = append(out, o)
			}
		}
	}
	_ = json.NewEncoder(w).Encode(colocapi.ScoreResponse{ModelsVersion: "stub", Options: out})
}

func gpuNode(name, typ string, count int, shared bool) *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		convention.LabelGPUType: typ, convention.LabelCount: itoa(count)}}}
	if shared {
		n.Labels[convention.LabelReplicas] = "2"
	}
	return n
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func workloadPod(name, workload string, gpus int64) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
		Annotations: map[string]string{}}}
	if workload != "" {
		p.Annotations[convention.AnnotationWorkload] = workload
	}
	p.Spec.Containers = []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
		Limits: v1.ResourceList{convention.ResourceGPU: *resource.NewQuantity(gpus, resource.DecimalSI)}}}}
	return p
}

func setup(t *testing.T, stub *colocStub, nodes []*v1.Node, pods map[string][]*v1.Pod) (*Server, *httptest.Server) {
	t.Helper()
	coloc := httptest.NewServer(stub)
	t.Cleanup(coloc.Close)
	byName := map[string]*v1.Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	s := &Server{
		Client: &colocapi.Client{URL: coloc.URL},
		Pods:   func(node string) ([]*v1.Pod, error) { return pods[node], nil },
		Node: func(name string) (*v1.Node, error) {
			if n, ok := byName[name]; ok {
				return n, nil
			}
			return nil, io.EOF
		},
	}
	ext := httptest.NewServer(s.Handler())
	t.Cleanup(ext.Close)
	return s, ext
}

var threeOpts = []colocapi.Option{
	{Node: "b", GPUs: []int{1}, Degree: 1, Score: 0.5, Reason: "alone"},
	{Node: "a", GPUs: []int{0}, Degree: 1, Score: 0.5, Reason: "alone"},
	{Node: "c", GPUs: []int{0}, Degree: 1, Partner: "A3C", Score: 0.3, Reason: "shares"},
	{Node: "d", Score: 0, Reason: "no allowed degree fits d"},
}

// The scheduler's own extender client (pkg/scheduler's HTTPExtender), with
// and without nodeCacheCapable, reads our answers as intended.
func TestWithSchedulersClient(t *testing.T) {
	nodes := []*v1.Node{gpuNode("a", "k80", 1, false), gpuNode("b", "v100", 2, true),
		gpuNode("c", "v100", 1, false), gpuNode("d", "p100", 1, false), {ObjectMeta: metav1.ObjectMeta{Name: "cpu"}}}
	tenant := workloadPod("t", "A3C", 1)
	tenant.Annotations[convention.AnnotationGPUs] = "0"
	stub := &colocStub{opts: threeOpts}
	_, ext := setup(t, stub, nodes, map[string][]*v1.Pod{"b": {tenant}})
	var infos []fwk.NodeInfo
	for _, n := range nodes {
		ni := framework.NewNodeInfo()
		ni.SetNode(n)
		infos = append(infos, ni)
	}
	me := workloadPod("me", "LM (batch size 20)", 1)
	for _, cacheCapable := range []bool{false, true} {
		e, err := kscheduler.NewHTTPExtender(&schedulerapi.Extender{URLPrefix: ext.URL, FilterVerb: "filter",
			PrioritizeVerb: "prioritize", Weight: 1, NodeCacheCapable: cacheCapable})
		if err != nil {
			t.Fatal(err)
		}
		kept, failed, unresolvable, err := e.Filter(me, infos)
		if err != nil {
			t.Fatalf("cacheCapable %v: Filter: %v", cacheCapable, err)
		}
		var names []string
		for _, ni := range kept {
			names = append(names, ni.Node().Name)
		}
		if !reflect.DeepEqual(names, []string{"a", "b"}) {
			t.Errorf("cacheCapable %v: kept %v, want [a b]", cacheCapable, names)
		}
		if len(unresolvable) != 0 || len(failed) != 3 || !strings.Contains(failed["d"], "no allowed degree fits d") ||
			!strings.Contains(failed["c"], "advertises no GPU sharing") || !strings.Contains(failed["cpu"], "no GPU type") {
			t.Errorf("cacheCapable %v: failed %v unresolvable %v", cacheCapable, failed, unresolvable)
		}
		prio, weight, err := e.Prioritize(me, infos)
		if err != nil || weight != 1 {
			t.Fatalf("Prioritize: %v weight %d", err, weight)
		}
		got := map[string]int64{}
		for _, h := range *prio {
			got[h.Host] = h.Score
		}
		// b ranks first (10); a gets 0.5 of 9; c and d fail, cpu too.
		if want := map[string]int64{"a": 5, "b": 10, "c": 0, "d": 0, "cpu": 0}; !reflect.DeepEqual(got, want) {
			t.Errorf("cacheCapable %v: priorities %v, want %v", cacheCapable, got, want)
		}
	}
	q := stub.reqs[0]
	// b advertises two replicas per GPU; the others one: exclusive.
	want := []colocapi.Node{{Name: "a", GPUType: "k80", GPUs: 1, Exclusive: true},
		{Name: "b", GPUType: "v100", GPUs: 2, Tenants: []colocapi.Tenant{{Workload: "A3C", GPUs: []int{0}}}},
		{Name: "c", GPUType: "v100", GPUs: 1, Exclusive: true}, {Name: "d", GPUType: "p100", GPUs: 1, Exclusive: true}}
	if !reflect.DeepEqual(q.Nodes, want) || q.Job.Workload != "LM (batch size 20)" || !reflect.DeepEqual(q.Job.Degrees, []int{1}) {
		t.Errorf("request to coloc %+v", q)
	}
}

// The JSON field names of the protocol, as literal bytes: the extender
// types carry no json tags, so the keys are the Go field names.
func TestWireLiteral(t *testing.T) {
	stub := &colocStub{opts: threeOpts}
	_, ext := setup(t, stub, nil, nil)
	body := `{"Pod": {"metadata": {"name": "me", "namespace": "default", "annotations": {"coloc.dev/workload": "A3C"}},
	  "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}},
	  "Nodes": {"items": [{"metadata": {"name": "a", "labels": {"coloc.dev/gpu-type": "k80", "nvidia.com/gpu.count": "1"}}},
	                      {"metadata": {"name": "d", "labels": {"coloc.dev/gpu-type": "p100", "nvidia.com/gpu.count": "1"}}}]}}`
	post := func(verb string) map[string]any {
		resp, err := http.Post(ext.URL+"/"+verb, "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", verb, resp.StatusCode, b)
		}
		var m any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %s: %v", verb, b, err)
		}
		if l, ok := m.([]any); ok {
			return map[string]any{"list": l}
		}
		return m.(map[string]any)
	}
	f := post("filter")
	keys := []string{}
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if !reflect.DeepEqual(keys, []string{"Error", "FailedAndUnresolvableNodes", "FailedNodes", "NodeNames", "Nodes"}) {
		t.Errorf("filter answer keys %v", keys)
	}
	items := f["Nodes"].(map[string]any)["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["metadata"].(map[string]any)["name"] != "a" {
		t.Errorf("filter kept %v", items)
	}
	if fn := f["FailedNodes"].(map[string]any); len(fn) != 1 || !strings.Contains(fn["d"].(string), "no allowed degree") {
		t.Errorf("FailedNodes %v", fn)
	}
	p := post("prioritize")["list"]
	want := []any{map[string]any{"Host": "a", "Score": float64(10)}, map[string]any{"Host": "d", "Score": float64(0)}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("prioritize answer %v, want %v", p, want)
	}
	resp, err := http.Post(ext.URL+"/filter", "application/json", strings.NewReader("{not json"))
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("malformed body: %v %v", resp.StatusCode, err)
	}
}

// Without a workload, or with coloc serve down, every node passes with the
// same priority.
func TestFailOpen(t *testing.T) {
	nodes := []*v1.Node{gpuNode("a", "k80", 1, false), gpuNode("d", "p100", 1, false)}
	args := func(p *v1.Pod) *extenderv1.ExtenderArgs {
		return &extenderv1.ExtenderArgs{Pod: p, Nodes: &v1.NodeList{Items: []v1.Node{*nodes[0], *nodes[1]}}}
	}
	for name, c := range map[string]struct {
		stub *colocStub
		pod  *v1.Pod
	}{
		"no workload": {&colocStub{opts: threeOpts}, workloadPod("p", "", 1)},
		"coloc down":  {&colocStub{fail: true}, workloadPod("p", "A3C", 1)},
	} {
		s, _ := setup(t, c.stub, nodes, nil)
		f := s.Filter(context.Background(), args(c.pod))
		if f.Error != "" || len(f.Nodes.Items) != 2 || len(f.FailedNodes) != 0 {
			t.Errorf("%s: filter %+v", name, f)
		}
		for _, h := range *s.Prioritize(context.Background(), args(c.pod)) {
			if h.Score != 0 {
				t.Errorf("%s: priority %+v", name, h)
			}
		}
	}
}

// The bind verb writes coloc's GPUs for the chosen node and binds.
func TestBind(t *testing.T) {
	nodes := []*v1.Node{gpuNode("b", "v100", 2, true)}
	me := workloadPod("me", "LM (batch size 20)", 1)
	s, ext := setup(t, &colocStub{opts: threeOpts}, nodes, nil)
	var gotNode string
	var gotAnn map[string]string
	s.GetPod = func(ns, name string) (*v1.Pod, error) { return me, nil }
	s.Bind = func(ctx context.Context, p *v1.Pod, node string, ann map[string]string) error {
		gotNode, gotAnn = node, ann
		return nil
	}
	b := `{"PodName": "me", "PodNamespace": "default", "PodUID": "` + string(me.UID) + `", "Node": "b"}`
	resp, err := http.Post(ext.URL+"/bind", "application/json", strings.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	if r["Error"] != "" || gotNode != "b" || gotAnn[convention.AnnotationGPUs] != "1" {
		t.Errorf("bind: answer %v, bound to %q with %v", r, gotNode, gotAnn)
	}
	// The next request counts the pod it bound before Pods shows it, and
	// once only after Pods does.
	stub := &colocStub{opts: threeOpts}
	coloc := httptest.NewServer(stub)
	defer coloc.Close()
	s.Client = &colocapi.Client{URL: coloc.URL}
	next := workloadPod("next", "A3C", 1)
	args := &extenderv1.ExtenderArgs{Pod: next, Nodes: &v1.NodeList{Items: []v1.Node{*nodes[0]}}}
	wantT := []colocapi.Tenant{{Workload: "LM (batch size 20)", GPUs: []int{1}}}
	s.Filter(context.Background(), args)
	if got := stub.reqs[len(stub.reqs)-1].Nodes[0].Tenants; !reflect.DeepEqual(got, wantT) {
		t.Errorf("tenants right after the bind %+v, want %+v", got, wantT)
	}
	bound := me.DeepCopy()
	bound.Spec.NodeName = "b"
	bound.Annotations[convention.AnnotationGPUs] = "1"
	s.Pods = func(node string) ([]*v1.Pod, error) { return []*v1.Pod{bound}, nil }
	s.Filter(context.Background(), args)
	if got := stub.reqs[len(stub.reqs)-1].Nodes[0].Tenants; !reflect.DeepEqual(got, wantT) {
		t.Errorf("tenants once the informer shows the pod %+v, want %+v", got, wantT)
	}

	b = `{"PodName": "me", "PodNamespace": "default", "PodUID": "other", "Node": "b"}`
	if res := s.BindPod(context.Background(), binding(t, b)); !strings.Contains(res.Error, "has UID") {
		t.Errorf("a UID mismatch bound: %+v", res)
	}
}

func binding(t *testing.T, s string) *extenderv1.ExtenderBindingArgs {
	t.Helper()
	var a extenderv1.ExtenderBindingArgs
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		t.Fatal(err)
	}
	return &a
}
