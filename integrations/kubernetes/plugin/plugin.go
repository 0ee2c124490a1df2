// Package plugin is coloc's kube-scheduler framework plugin: it asks coloc
// serve where a GPU pod should go and makes the scheduler follow that
// answer.
//
// One scheduling cycle makes one request. PreFilter lists every node of
// the cycle's snapshot, reads each GPU node's type, count and tenants
// (package convention) and sends them with the pod's workload and degree
// to POST /v1/score; the answer (one option per node, ranked) is kept in
// the CycleState. Filter rejects a node whose option scores 0, with coloc's
// reason, a node that is no GPU node coloc knows, and, as a guard, a node
// where coloc would share a GPU that the device plugin does not share
// (fewer than two replicas; the request marks such nodes exclusive, so
// coloc offers only their free GPUs). Score gives the option's value per GPU scaled below
// MaxNodeScore, and NormalizeScore lifts the node coloc ranks first among
// those still feasible to MaxNodeScore, so ties among equal values go as
// coloc breaks them (fewer GPUs, then the node listed first; nodes are
// listed by name) and not by the scheduler's random pick. Reserve remembers
// the option's GPU indices and PreBind writes them to the pod's
// coloc.dev/gpus annotation, so later cycles know who shares with whom.
//
// A pod that names no workload is skipped (PreFilter and PreScore return
// Skip) and schedules as if the plugin were absent. When coloc serve cannot
// be reached or errs, the plugin fails open the same way, logs it and
// records a Warning event on the pod (reason ColocUnavailable): a placement
// service being down should not stop a cluster from scheduling.
//
// The plugin's args (Args) are decoded from the scheduler configuration
// here rather than with the scheduler's own helper, so this package
// imports only the staging modules (k8s.io/kube-scheduler, k8s.io/api,
// client-go) and no package of k8s.io/kubernetes.
package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"sigs.k8s.io/yaml"

	"github.com/coloc-dev/coloc/integrations/kubernetes/colocapi"
	"github.com/coloc-dev/coloc/integrations/kubernetes/convention"
)

// Name is the plugin's name in a scheduler profile.
const Name = "Coloc"

// Args are the plugin's args in the scheduler configuration
// (pluginConfig[].args).
type Args struct {
	// URL of coloc serve, e.g. http://127.0.0.1:8080 for a sidecar.
	URL string `json:"url"`
	// Timeout of one request to coloc serve (default 5s); past it the
	// plugin fails open.
	Timeout metav1.Duration `json:"timeout,omitempty"`
	// MaxPerGPU is 2 to let coloc pair jobs on a GPU, 1 to never share
	// (default 2).
	MaxPerGPU int `json:"maxPerGPU,omitempty"`
	// GPUTypes maps GPU Feature Discovery product names to coloc GPU
	// types, over the default map (convention.TypeMap).
	GPUTypes map[string]string `json:"gpuTypes,omitempty"`
}

// DecodeArgs reads the plugin's args: nil (every default but the URL,
// which is required) or a *runtime.Unknown holding JSON or YAML.
func DecodeArgs(obj runtime.Object) (Args, error) {
	var a Args
	switch o := obj.(type) {
	case nil:
	case *runtime.Unknown:
		if len(o.Raw) > 0 {
			if err := yaml.UnmarshalStrict(o.Raw, &a); err != nil {
				return a, fmt.Errorf("%s plugin args: %w", Name, err)
			}
		}
	default:
		return a, fmt.Errorf("%s plugin args: got a %T, want the plugin's args", Name, obj)
	}
	if a.URL == "" {
		return a, fmt.Errorf("%s plugin args: url: missing (coloc serve's URL, e.g. http://127.0.0.1:8080)", Name)
	}
	if a.Timeout.Duration < 0 {
		return a, fmt.Errorf("%s plugin args: timeout: %s, want a positive duration", Name, a.Timeout.Duration)
	}
	if a.Timeout.Duration == 0 {
		a.Timeout.Duration = colocapi.DefaultTimeout
	}
	if a.MaxPerGPU == 0 {
		a.MaxPerGPU = 2
	}
	if a.MaxPerGPU != 1 && a.MaxPerGPU != 2 {
		return a, fmt.Errorf("%s plugin args: maxPerGPU: %d, want 1 or 2", Name, a.MaxPerGPU)
	}
	return a, nil
}

// Plugin is the framework plugin.
type Plugin struct {
	h      fwk.Handle
	args   Args
	types  convention.TypeMap
	client *colocapi.Client
	mem    *memory
}

var (
	_ fwk.PreFilterPlugin = (*Plugin)(nil)
	_ fwk.FilterPlugin    = (*Plugin)(nil)
	_ fwk.PreScorePlugin  = (*Plugin)(nil)
	_ fwk.ScorePlugin     = (*Plugin)(nil)
	_ fwk.ReservePlugin   = (*Plugin)(nil)
	_ fwk.PreBindPlugin   = (*Plugin)(nil)
)

// New is the plugin's factory (app.WithPlugin(plugin.Name, plugin.New)).
func New(_ context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	a, err := DecodeArgs(obj)
	if err != nil {
		return nil, err
	}
	return NewWithArgs(a, h), nil
}

// NewWithArgs builds the plugin from decoded args.
func NewWithArgs(a Args, h fwk.Handle) *Plugin {
	return &Plugin{
		h:      h,
		args:   a,
		types:  convention.TypeMap(a.GPUTypes),
		client: &colocapi.Client{URL: a.URL, Timeout: a.Timeout.Duration},
		mem:    &memory{m: map[types.UID]held{}},
	}
}

// Name implements fwk.Plugin.
func (p *Plugin) Name() string { return Name }

const stateKey fwk.StateKey = Name

// cycle is what PreFilter learnt, read by the later extension points.
type cycle struct {
	job     colocapi.Job
	version string
	options map[string]colocapi.Option
	rank    map[string]int                 // node name: index in coloc's ranking
	gpus    map[string]convention.NodeGPUs // GPU nodes
	notGPU  map[string]string              // other nodes: why
}

// Clone implements fwk.StateData; the cycle is not changed after
// PreFilter, so it is shared.
func (c *cycle) Clone() fwk.StateData { return c }

func read(state fwk.CycleState) (*cycle, bool) {
	d, err := state.Read(stateKey)
	if err != nil {
		return nil, false
	}
	c, ok := d.(*cycle)
	return c, ok
}

// PreFilter asks coloc serve about the pod on every node of the cycle.
func (p *Plugin) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	logger := klog.FromContext(ctx)
	job, ok, err := convention.JobOf(pod)
	if !ok {
		return nil, fwk.NewStatus(fwk.Skip)
	}
	if err != nil {
		p.failOpen(ctx, pod, err)
		return nil, fwk.NewStatus(fwk.Skip)
	}
	c, q := p.request(pod, job, nodes)
	if len(q.Nodes) == 0 {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
			fmt.Sprintf("pod %s/%s names workload %q but no node has GPUs coloc knows (labels %s or %s)", pod.Namespace, pod.Name, job.Workload, convention.LabelProduct, convention.LabelGPUType))
	}
	ans, err := p.client.Score(ctx, q)
	if err != nil {
		p.failOpen(ctx, pod, err)
		return nil, fwk.NewStatus(fwk.Skip)
	}
	c.version = ans.ModelsVersion
	for i, o := range ans.Options {
		c.options[o.Node] = o
		c.rank[o.Node] = i
	}
	state.Write(stateKey, c)
	if best, ok := ans.Best(); ok {
		logger.V(4).Info("coloc's choice", "pod", klog.KObj(pod), "node", best.Node, "gpus", best.GPUs, "reason", best.Reason, "models", ans.ModelsVersion)
	}
	return nil, nil
}

// request builds the cycle's /v1/score request, nodes by name.
func (p *Plugin) request(pod *v1.Pod, job colocapi.Job, nodes []fwk.NodeInfo) (*cycle, *colocapi.ScoreRequest) {
	c := &cycle{job: job, options: map[string]colocapi.Option{}, rank: map[string]int{},
		gpus: map[string]convention.NodeGPUs{}, notGPU: map[string]string{}}
	q := &colocapi.ScoreRequest{Job: job, MaxPerGPU: p.args.MaxPerGPU}
	nodes = slices.DeleteFunc(slices.Clone(nodes), func(ni fwk.NodeInfo) bool { return ni == nil || ni.Node() == nil })
	slices.SortFunc(nodes, func(a, b fwk.NodeInfo) int { return strings.Compare(a.Node().Name, b.Node().Name) })
	p.mem.expire(time.Now())
	for _, ni := range nodes {
		node := ni.Node()
		g, err := convention.GPUsOf(node, p.types)
		if err != nil {
			c.notGPU[node.Name] = err.Error()
			continue
		}
		c.gpus[node.Name] = g
		var pods []*v1.Pod
		for _, pi := range ni.GetPods() {
			pods = append(pods, pi.GetPod())
		}
		q.Nodes = append(q.Nodes, convention.Node(node, g, pods, pod, p.mem.lookup))
	}
	return c, q
}

func (p *Plugin) failOpen(ctx context.Context, pod *v1.Pod, err error) {
	klog.FromContext(ctx).Error(err, "coloc fails open: the pod schedules as if the plugin were absent", "pod", klog.KObj(pod))
	if p.h != nil {
		if r := p.h.EventRecorder(); r != nil {
			r.Eventf(pod, nil, v1.EventTypeWarning, "ColocUnavailable", "Scheduling",
				"coloc was not followed for this pod (scheduled as usual): %v", err)
		}
	}
}

// PreFilterExtensions implements fwk.PreFilterPlugin: none, since coloc's
// answer is for the cycle's snapshot.
func (p *Plugin) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// Filter keeps the nodes where coloc has an option the node can honour.
func (p *Plugin) Filter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	c, ok := read(state)
	if !ok {
		return nil
	}
	name := ni.Node().Name
	if why, bad := c.notGPU[name]; bad {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, why)
	}
	o, ok := c.options[name]
	if !ok {
		// Not in this cycle's snapshot when PreFilter ran.
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("node %s: coloc was not asked about it this cycle", name))
	}
	if !(o.Score > 0) {
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("node %s: coloc: %s", name, o.Reason))
	}
	if o.Partner != "" && !c.gpus[name].Shares() {
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("node %s: coloc would share GPU(s) %v with %s, but the node advertises no GPU sharing (label %s below 2)", name, o.GPUs, o.Partner, convention.LabelReplicas))
	}
	return nil
}

// PreScore skips Score for the pods PreFilter skipped.
func (p *Plugin) PreScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	if _, ok := read(state); !ok {
		return fwk.NewStatus(fwk.Skip)
	}
	return nil
}

// scoreScale maps coloc's value per GPU (in (0, 1] alone, less shared)
// below MaxNodeScore, which NormalizeScore keeps for coloc's first choice.
const scoreScale = fwk.MaxNodeScore - 1

// Score returns the node's option value scaled to [0, MaxNodeScore-1].
func (p *Plugin) Score(ctx context.Context, state fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) (int64, *fwk.Status) {
	c, ok := read(state)
	if !ok {
		return 0, nil
	}
	return scaled(c.options[ni.Node().Name].Score), nil
}

func scaled(v float64) int64 {
	if !(v > 0) {
		return 0
	}
	return min(int64(math.Round(v*float64(scoreScale))), scoreScale)
}

// ScoreExtensions implements fwk.ScorePlugin.
func (p *Plugin) ScoreExtensions() fwk.ScoreExtensions { return p }

// NormalizeScore gives MaxNodeScore to the scored node coloc ranks first;
// the others keep their scaled value, below it.
func (p *Plugin) NormalizeScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	c, ok := read(state)
	if !ok || len(scores) == 0 {
		return nil
	}
	first := -1
	for i, s := range scores {
		r, ok := c.rank[s.Name]
		if !ok || !(c.options[s.Name].Score > 0) {
			continue
		}
		if first < 0 || r < c.rank[scores[first].Name] {
			first = i
		}
	}
	if first >= 0 {
		scores[first].Score = fwk.MaxNodeScore
	}
	return nil
}

// Reserve remembers the GPUs coloc chose on the node, so the next cycles
// count them before the pod's annotation is seen.
func (p *Plugin) Reserve(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) *fwk.Status {
	c, ok := read(state)
	if !ok {
		return nil
	}
	if o, ok := c.options[nodeName]; ok && len(o.GPUs) > 0 {
		p.mem.put(pod.UID, held{node: nodeName, gpus: slices.Clone(o.GPUs), at: time.Now()})
	}
	return nil
}

// Unreserve forgets the pod's GPUs.
func (p *Plugin) Unreserve(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) {
	p.mem.drop(pod.UID)
}

// PreBindPreFlight implements fwk.PreBindPlugin: PreBind runs for the pods
// coloc placed.
func (p *Plugin) PreBindPreFlight(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) (*fwk.PreBindPreFlightResult, *fwk.Status) {
	if _, ok := p.mem.get(pod.UID); !ok {
		return nil, fwk.NewStatus(fwk.Skip)
	}
	return &fwk.PreBindPreFlightResult{AllowParallel: true}, nil
}

// PreBind writes the pod's GPUs to its coloc.dev/gpus annotation.
func (p *Plugin) PreBind(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) *fwk.Status {
	h, ok := p.mem.get(pod.UID)
	if !ok || h.node != nodeName {
		return nil
	}
	if p.h == nil || p.h.ClientSet() == nil {
		return fwk.AsStatus(errors.New("no API client to annotate the pod"))
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		convention.AnnotationGPUs: convention.FormatGPUs(h.gpus),
	}}})
	if err != nil {
		return fwk.AsStatus(err)
	}
	if _, err := p.h.ClientSet().CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fwk.AsStatus(fmt.Errorf("pod %s/%s: writing annotation %s: %w", pod.Namespace, pod.Name, convention.AnnotationGPUs, err))
	}
	return nil
}

// held is a reservation whose annotation may not be visible yet.
type held struct {
	node string
	gpus []int
	at   time.Time
}

// memoryTTL is how long a reservation is remembered: past it, the pod's
// annotation (written before binding) is in the scheduler's cache.
const memoryTTL = 10 * time.Minute

type memory struct {
	mu sync.Mutex
	m  map[types.UID]held
}

func (m *memory) put(uid types.UID, h held) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[uid] = h
}

func (m *memory) get(uid types.UID) (held, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h, ok := m.m[uid]
	return h, ok
}

func (m *memory) drop(uid types.UID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, uid)
}

func (m *memory) expire(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for uid, h := range m.m {
		if now.Sub(h.at) > memoryTTL {
			delete(m.m, uid)
		}
	}
}

// lookup is a convention.Remembered: the GPUs reserved for a pod on the
// node it is (assumed) bound to.
func (m *memory) lookup(pod *v1.Pod) ([]int, bool) {
	h, ok := m.get(pod.UID)
	if !ok || h.node != pod.Spec.NodeName {
		return nil, false
	}
	return h.gpus, true
}
