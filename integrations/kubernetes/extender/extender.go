// Package extender answers kube-scheduler's extender protocol (types of
// k8s.io/kube-scheduler/extender/v1) by asking coloc serve, for clusters
// that run the stock kube-scheduler rather than coloc-scheduler.
//
// POST /filter keeps the nodes where coloc has an option (the others are
// in failedNodes with coloc's reason); POST /prioritize scores each node's
// option in [0, MaxExtenderPriority], the node coloc ranks first at the
// maximum and the others at most one below, as the plugin does; POST /bind
// (optional, bindVerb) asks coloc again for the chosen node alone, writes
// the GPUs it picks to the pod's coloc.dev/gpus annotation and binds the
// pod. Each verb makes its own request to coloc serve: the protocol keeps
// no state between the calls of one cycle.
//
// Unlike the plugin, the extender sees no scheduler cache: it learns which
// pods are on a node from Server.Pods (an informer in the coloc-extender
// command), which lags the bindings. The pods it binds itself it counts at
// once (as the scheduler's cache assumes the pods it binds) until Pods
// shows them; pods another binder placed count once the informer has
// seen them. Without bindVerb, the pods it places carry no coloc.dev/gpus,
// are not assumed, and later requests pack them onto the lowest free
// GPUs.
//
// Failing open: a pod that names no workload, and any error from coloc
// serve, pass every node with the same priority, so the scheduler decides
// as if the extender were absent; the error is logged, not returned
// (an error answer would fail the scheduling cycle unless the extender is
// marked ignorable).
package extender

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/coloc-dev/coloc/integrations/kubernetes/colocapi"
	"github.com/coloc-dev/coloc/integrations/kubernetes/convention"
)

// Server answers the extender verbs.
type Server struct {
	Client *colocapi.Client
	Types  convention.TypeMap
	// MaxPerGPU is sent to coloc serve (0: 2).
	MaxPerGPU int
	// Pods returns the pods bound to a node.
	Pods func(node string) ([]*v1.Pod, error)
	// Node returns a node by name, for a scheduler configured with
	// nodeCacheCapable: true (which sends names only).
	Node func(name string) (*v1.Node, error)
	// GetPod returns a pod by namespace and name, for the bind verb.
	GetPod func(namespace, name string) (*v1.Pod, error)
	// Bind annotates and binds a pod (the bind verb); nil: no bind verb.
	Bind func(ctx context.Context, pod *v1.Pod, node string, annotations map[string]string) error
	// Log gets the errors that made the extender fail open (nil: slog's
	// default).
	Log *slog.Logger

	mu      sync.Mutex
	assumed map[types.UID]assumedPod // pods bound here that Pods may not show yet
}

// MaxBody bounds a request body: an ExtenderArgs with every Node object of
// a large cluster.
const MaxBody = 64 << 20

// Handler serves /filter, /prioritize and /bind.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /filter", func(w http.ResponseWriter, r *http.Request) {
		var a extenderv1.ExtenderArgs
		if !decode(w, r, &a) {
			return
		}
		writeJSON(w, s.Filter(r.Context(), &a))
	})
	mux.HandleFunc("POST /prioritize", func(w http.ResponseWriter, r *http.Request) {
		var a extenderv1.ExtenderArgs
		if !decode(w, r, &a) {
			return
		}
		writeJSON(w, s.Prioritize(r.Context(), &a))
	})
	mux.HandleFunc("POST /bind", func(w http.ResponseWriter, r *http.Request) {
		var a extenderv1.ExtenderBindingArgs
		if !decode(w, r, &a) {
			return
		}
		writeJSON(w, s.BindPod(r.Context(), &a))
	})
	return mux
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("%s: %v", r.URL.Path, err), http.StatusBadRequest)
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// nodesOf returns the Node objects of the args, from Nodes or NodeNames.
func (s *Server) nodesOf(a *extenderv1.ExtenderArgs) ([]*v1.Node, error) {
	var out []*v1.Node
	if a.Nodes != nil {
		for i := range a.Nodes.Items {
			out = append(out, &a.Nodes.Items[i])
		}
		return out, nil
	}
	if a.NodeNames == nil {
		return nil, nil
	}
	if s.Node == nil {
		return nil, fmt.Errorf("the scheduler sent node names only (nodeCacheCapable) and this extender has no node lister")
	}
	for _, n := range *a.NodeNames {
		node, err := s.Node(n)
		if err != nil {
			return nil, fmt.Errorf("node %s: %w", n, err)
		}
		out = append(out, node)
	}
	return out, nil
}

// verdict is coloc's answer for one pod over the args' nodes.
type verdict struct {
	options map[string]colocapi.Option
	rank    map[string]int
	notGPU  map[string]string
	shares  map[string]bool
}

// ask returns coloc's verdict, or nil when the pod is not coloc's or coloc
// could not answer (fail open).
func (s *Server) ask(ctx context.Context, pod *v1.Pod, nodes []*v1.Node) *verdict {
	if pod == nil {
		return nil
	}
	job, ok, err := convention.JobOf(pod)
	if !ok {
		return nil
	}
	if err != nil {
		s.log().Error("coloc fails open", "pod", pod.Namespace+"/"+pod.Name, "err", err)
		return nil
	}
	v := &verdict{options: map[string]colocapi.Option{}, rank: map[string]int{}, notGPU: map[string]string{}, shares: map[string]bool{}}
	q := &colocapi.ScoreRequest{Job: job, MaxPerGPU: s.MaxPerGPU}
	if q.MaxPerGPU == 0 {
		q.MaxPerGPU = 2
	}
	nodes = slices.Clone(nodes)
	slices.SortFunc(nodes, func(a, b *v1.Node) int { return strings.Compare(a.Name, b.Name) })
	for _, n := range nodes {
		g, err := convention.GPUsOf(n, s.Types)
		if err != nil {
			v.notGPU[n.Name] = err.Error()
			continue
		}
		v.shares[n.Name] = g.Shares()
		var pods []*v1.Pod
		if s.Pods != nil {
			if pods, err = s.podsOn(n.Name); err != nil {
				s.log().Error("coloc fails open", "pod", pod.Namespace+"/"+pod.Name, "node", n.Name, "err", err)
				return nil
			}
		}
		q.Nodes = append(q.Nodes, convention.Node(n, g, pods, pod, nil))
	}
	if len(q.Nodes) == 0 {
		return v
	}
	ans, err := s.Client.Score(ctx, q)
	if err != nil {
		s.log().Error("coloc fails open", "pod", pod.Namespace+"/"+pod.Name, "err", err)
		return nil
	}
	for i, o := range ans.Options {
		v.options[o.Node] = o
		v.rank[o.Node] = i
	}
	return v
}

// why returns the reason a node fails, "" when it passes.
func (v *verdict) why(node string) string {
	if r, bad := v.notGPU[node]; bad {
		return r
	}
	o, ok := v.options[node]
	switch {
	case !ok:
		return "coloc was not asked about it"
	case !(o.Score > 0):
		return "coloc: " + o.Reason
	case o.Partner != "" && !v.shares[node]:
		return fmt.Sprintf("coloc would share GPU(s) %v with %s, but the node advertises no GPU sharing (label %s below 2)", o.GPUs, o.Partner, convention.LabelReplicas)
	}
	return ""
}

// Filter answers the filter verb.
func (s *Server) Filter(ctx context.Context, a *extenderv1.ExtenderArgs) *extenderv1.ExtenderFilterResult {
	nodes, err := s.nodesOf(a)
	if err != nil {
		return &extenderv1.ExtenderFilterResult{Error: err.Error()}
	}
	out := &extenderv1.ExtenderFilterResult{FailedNodes: extenderv1.FailedNodesMap{}}
	v := s.ask(ctx, a.Pod, nodes)
	var pass []string
	passList := &v1.NodeList{}
	for _, n := range nodes {
		if v != nil {
			if why := v.why(n.Name); why != "" {
				out.FailedNodes[n.Name] = why
				continue
			}
		}
		pass = append(pass, n.Name)
		passList.Items = append(passList.Items, *n)
	}
	if a.Nodes != nil {
		out.Nodes = passList
	} else {
		out.NodeNames = &pass
	}
	return out
}

// Prioritize answers the prioritize verb.
func (s *Server) Prioritize(ctx context.Context, a *extenderv1.ExtenderArgs) *extenderv1.HostPriorityList {
	out := extenderv1.HostPriorityList{}
	nodes, err := s.nodesOf(a)
	if err != nil {
		s.log().Error("coloc fails open", "err", err)
		return &out
	}
	v := s.ask(ctx, a.Pod, nodes)
	first, firstRank := "", math.MaxInt
	for _, n := range nodes {
		p := extenderv1.HostPriority{Host: n.Name}
		if v != nil && v.why(n.Name) == "" {
			o := v.options[n.Name]
			p.Score = min(int64(math.Round(o.Score*float64(extenderv1.MaxExtenderPriority-1))), extenderv1.MaxExtenderPriority-1)
			if r := v.rank[n.Name]; r < firstRank {
				first, firstRank = n.Name, r
			}
		}
		out = append(out, p)
	}
	for i := range out {
		if out[i].Host == first {
			out[i].Score = extenderv1.MaxExtenderPriority
		}
	}
	return &out
}

// BindPod answers the bind verb: coloc's GPUs on the chosen node go to
// the pod's annotation, then the pod is bound.
func (s *Server) BindPod(ctx context.Context, a *extenderv1.ExtenderBindingArgs) *extenderv1.ExtenderBindingResult {
	if s.Bind == nil {
		return &extenderv1.ExtenderBindingResult{Error: "this extender has no bind verb configured"}
	}
	pod, err := s.podByName(a)
	if err != nil {
		return &extenderv1.ExtenderBindingResult{Error: err.Error()}
	}
	ann := map[string]string{}
	if s.Node != nil {
		if node, err := s.Node(a.Node); err == nil {
			if v := s.ask(ctx, pod, []*v1.Node{node}); v != nil {
				if o, ok := v.options[a.Node]; ok && o.Score > 0 && len(o.GPUs) > 0 {
					ann[convention.AnnotationGPUs] = convention.FormatGPUs(o.GPUs)
				}
			}
		}
	}
	if err := s.Bind(ctx, pod, a.Node, ann); err != nil {
		return &extenderv1.ExtenderBindingResult{Error: fmt.Sprintf("binding pod %s/%s to node %s: %v", a.PodNamespace, a.PodName, a.Node, err)}
	}
	s.assume(pod, a.Node, ann)
	return &extenderv1.ExtenderBindingResult{}
}

// assumedTTL bounds how long a pod the extender bound is counted without
// Pods showing it.
const assumedTTL = 10 * time.Minute

type assumedPod struct {
	pod *v1.Pod
	at  time.Time
}

// assume counts a pod the extender just bound on its node until Pods
// shows it there, as the scheduler's cache assumes the pods it binds: the
// informer behind Pods lags the binding, and the next request may come
// first.
func (s *Server) assume(pod *v1.Pod, node string, ann map[string]string) {
	p := pod.DeepCopy()
	p.Spec.NodeName = node
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	for k, v := range ann {
		p.Annotations[k] = v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.assumed == nil {
		s.assumed = map[types.UID]assumedPod{}
	}
	s.assumed[p.UID] = assumedPod{pod: p, at: time.Now()}
}

// podsOn returns Pods(node) and the pods assumed there that it does not
// show yet; an assumed pod it shows bound is forgotten.
func (s *Server) podsOn(node string) ([]*v1.Pod, error) {
	pods, err := s.Pods(node)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range pods {
		if _, ok := s.assumed[p.UID]; ok && p.Spec.NodeName != "" {
			delete(s.assumed, p.UID)
		}
	}
	now := time.Now()
	for uid, a := range s.assumed {
		switch {
		case now.Sub(a.at) > assumedTTL:
			delete(s.assumed, uid)
		case a.pod.Spec.NodeName == node:
			pods = append(pods, a.pod)
		}
	}
	return pods, nil
}

// podByName returns the pod of a binding from GetPod, checked against its
// UID.
func (s *Server) podByName(a *extenderv1.ExtenderBindingArgs) (*v1.Pod, error) {
	if a.PodName == "" || a.Node == "" {
		return nil, fmt.Errorf("bind: want podName and node, got pod %q node %q", a.PodName, a.Node)
	}
	if s.GetPod == nil {
		return nil, fmt.Errorf("bind: pod %s/%s: this extender has no pod lister", a.PodNamespace, a.PodName)
	}
	pod, err := s.GetPod(a.PodNamespace, a.PodName)
	if err != nil {
		return nil, fmt.Errorf("bind: pod %s/%s: %w", a.PodNamespace, a.PodName, err)
	}
	if a.PodUID != "" && pod.UID != a.PodUID {
		return nil, fmt.Errorf("bind: pod %s/%s has UID %s, the scheduler asked for %s", a.PodNamespace, a.PodName, pod.UID, a.PodUID)
	}
	return pod, nil
}
