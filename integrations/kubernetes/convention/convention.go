// Package convention is how the Kubernetes integration reads coloc's view
// of a cluster from Kubernetes objects: which workload a pod runs, how many
// GPUs it takes, what GPUs a node has, and which GPU indices each pod on a
// node holds. The scheduler plugin and the extender share it, so both ask
// coloc serve the same question for the same objects.
//
// Choices and reasons:
//
//   - The workload is an annotation (AnnotationWorkload), not a label:
//     coloc's workload names carry spaces and parentheses ("ResNet-50 (batch
//     size 64)"), which label values cannot hold.
//   - A pod's degree (GPUs it runs on) is its request of the device
//     plugin's resource nvidia.com/gpu, the sum over its containers (limits
//     count where no request is given; extended resources have request ==
//     limit). It is fixed for the pod's life, so it is the only degree
//     offered to coloc.
//   - A node's GPU type is the label LabelGPUType when set, else GPU Feature
//     Discovery's product label (LabelProduct) mapped through a TypeMap:
//     the exact product first, then the first dash-separated token of the
//     product that is a known model name (Tesla-V100-SXM2-16GB: v100). Its
//     GPU count is GFD's LabelCount, else the allocatable nvidia.com/gpu
//     divided by LabelReplicas (time-slicing and MPS advertise each GPU
//     that many times).
//   - The GPUs a pod holds are recorded at binding in AnnotationGPUs
//     ("0,1"). A pod without it (bound by another scheduler, or before the
//     annotation could be written) is packed onto the lowest free indices,
//     in creation order: a node-level scheduler cannot see which device the
//     device plugin gave it.
package convention

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/coloc-dev/coloc/integrations/kubernetes/colocapi"
)

// The names the integration reads and writes.
const (
	// AnnotationWorkload on a pod names its coloc workload, e.g.
	// "ResNet-50 (batch size 64)". A pod without it is not coloc's.
	AnnotationWorkload = "coloc.dev/workload"
	// AnnotationGPUs on a pod lists the node's GPU indices it was given,
	// comma-separated ("0,1"); written by the plugin before binding.
	AnnotationGPUs = "coloc.dev/gpus"
	// LabelGPUType on a node names its coloc GPU type (v100), overriding the
	// product map.
	LabelGPUType = "coloc.dev/gpu-type"
	// GPU Feature Discovery's node labels.
	LabelProduct  = "nvidia.com/gpu.product"
	LabelCount    = "nvidia.com/gpu.count"
	LabelReplicas = "nvidia.com/gpu.replicas"
	// ResourceGPU is the NVIDIA device plugin's resource.
	ResourceGPU v1.ResourceName = "nvidia.com/gpu"
)

// knownModels are the product tokens the default map turns into coloc GPU
// type names (lower case).
var knownModels = []string{
	"k80", "m60", "p4", "p40", "p100", "v100", "t4", "a10", "a10g", "a30", "a40",
	"a100", "h100", "h200", "l4", "l40", "l40s", "b200",
}

// TypeMap maps GFD product names (the value of LabelProduct) to coloc GPU
// type names, e.g. {"Tesla-V100-SXM2-16GB": "v100"}. Products it does not
// name go through the default token rule.
type TypeMap map[string]string

// GPUType returns the coloc GPU type of a product name.
func (m TypeMap) GPUType(product string) (string, bool) {
	if t, ok := m[product]; ok && t != "" {
		return t, true
	}
	for _, tok := range strings.Split(strings.ToLower(product), "-") {
		if slices.Contains(knownModels, tok) {
			return tok, true
		}
	}
	return "", false
}

// NodeGPUs is what a node offers coloc.
type NodeGPUs struct {
	Type     string // coloc GPU type
	Count    int    // physical GPUs
	Replicas int    // device-plugin devices per GPU (1: no sharing)
}

// Shares reports whether the device plugin lets two pods use one GPU.
func (g NodeGPUs) Shares() bool { return g.Replicas >= 2 }

// GPUsOf reads a node's GPUs; an error says why the node is not a GPU node
// coloc can place on.
func GPUsOf(node *v1.Node, m TypeMap) (NodeGPUs, error) {
	var g NodeGPUs
	lab := node.Labels
	switch {
	case lab[LabelGPUType] != "":
		g.Type = lab[LabelGPUType]
	case lab[LabelProduct] != "":
		t, ok := m.GPUType(lab[LabelProduct])
		if !ok {
			return g, fmt.Errorf("node %s: GPU product %q (label %s) maps to no coloc GPU type: add it to the plugin's gpuTypes or label the node %s", node.Name, lab[LabelProduct], LabelProduct, LabelGPUType)
		}
		g.Type = t
	default:
		return g, fmt.Errorf("node %s: no GPU type (neither label %s nor %s)", node.Name, LabelGPUType, LabelProduct)
	}
	g.Replicas = 1
	if s := lab[LabelReplicas]; s != "" {
		r, err := strconv.Atoi(s)
		if err != nil || r < 1 {
			return g, fmt.Errorf("node %s: label %s=%q, want a positive integer", node.Name, LabelReplicas, s)
		}
		g.Replicas = r
	}
	if s := lab[LabelCount]; s != "" {
		c, err := strconv.Atoi(s)
		if err != nil || c < 1 {
			return g, fmt.Errorf("node %s: label %s=%q, want a positive integer", node.Name, LabelCount, s)
		}
		g.Count = c
		return g, nil
	}
	q, ok := node.Status.Allocatable[ResourceGPU]
	if !ok || q.Value() < 1 {
		return g, fmt.Errorf("node %s: no GPU count (no label %s and no allocatable %s)", node.Name, LabelCount, ResourceGPU)
	}
	g.Count = int(q.Value()) / g.Replicas
	if g.Count < 1 {
		return g, fmt.Errorf("node %s: allocatable %s %d over %d replicas is no whole GPU", node.Name, ResourceGPU, q.Value(), g.Replicas)
	}
	return g, nil
}

// Workload returns the coloc workload a pod names ("" none).
func Workload(pod *v1.Pod) string {
	return strings.TrimSpace(pod.Annotations[AnnotationWorkload])
}

// GPURequest returns how many nvidia.com/gpu devices a pod's containers ask
// for (an init container runs before them, so it adds nothing beyond the
// largest of them and of their sum).
func GPURequest(pod *v1.Pod) int {
	get := func(c v1.Container) int {
		if q, ok := c.Resources.Requests[ResourceGPU]; ok {
			return int(q.Value())
		}
		if q, ok := c.Resources.Limits[ResourceGPU]; ok {
			return int(q.Value())
		}
		return 0
	}
	sum := 0
	for _, c := range pod.Spec.Containers {
		sum += get(c)
	}
	for _, c := range pod.Spec.InitContainers {
		sum = max(sum, get(c))
	}
	return sum
}

// JobOf returns the job coloc is asked about for a pod: its workload and
// its one degree. ok is false for a pod that names no workload; err says
// why a pod that names one cannot be asked about.
func JobOf(pod *v1.Pod) (job colocapi.Job, ok bool, err error) {
	w := Workload(pod)
	if w == "" {
		return job, false, nil
	}
	d := GPURequest(pod)
	if d < 1 {
		return job, true, fmt.Errorf("pod %s/%s names workload %q (annotation %s) but requests no %s", pod.Namespace, pod.Name, w, AnnotationWorkload, ResourceGPU)
	}
	return colocapi.Job{Workload: w, Degrees: []int{d}}, true, nil
}

// ParseGPUs reads an AnnotationGPUs value for a node of n GPUs: distinct
// indices in [0, n).
func ParseGPUs(s string, n int) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		g, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q: %q is not a GPU index", s, f)
		}
		if g < 0 || g >= n {
			return nil, fmt.Errorf("%q: GPU %d, want 0 to %d", s, g, n-1)
		}
		if slices.Contains(out, g) {
			return nil, fmt.Errorf("%q: GPU %d twice", s, g)
		}
		out = append(out, g)
	}
	return out, nil
}

// FormatGPUs writes an AnnotationGPUs value.
func FormatGPUs(gpus []int) string {
	s := make([]string, len(gpus))
	for i, g := range gpus {
		s[i] = strconv.Itoa(g)
	}
	return strings.Join(s, ",")
}

// Remembered looks up GPUs given to a pod that its annotation does not show
// yet (the scheduler's own reservations); nil: none.
type Remembered func(pod *v1.Pod) ([]int, bool)

// holds reports whether a pod takes GPUs on its node.
func holds(pod *v1.Pod) bool {
	if pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed || pod.DeletionTimestamp != nil {
		return false
	}
	return GPURequest(pod) > 0 || pod.Annotations[AnnotationGPUs] != ""
}

// Node builds coloc's view of a node: its GPUs and, as tenants, the pods on
// it that hold GPUs, each with its workload ("" for a pod that names none:
// it holds GPUs but is never a partner), in creation order, then
// namespace/name, so the same objects always make the same request. A pod's
// GPUs come from its AnnotationGPUs, else from rem; the pods with neither
// are then packed, in the same order, onto the least-held GPUs, lowest
// index first. pods may include the pod being placed under skip; it is
// left out.
func Node(node *v1.Node, g NodeGPUs, pods []*v1.Pod, skip *v1.Pod, rem Remembered) colocapi.Node {
	n := colocapi.Node{Name: node.Name, GPUType: g.Type, GPUs: g.Count, Exclusive: !g.Shares()}
	held := make([]int, g.Count)
	var unplaced []*v1.Pod
	pods = slices.Clone(pods)
	slices.SortStableFunc(pods, podOrder)
	for _, p := range pods {
		if (skip != nil && p.UID == skip.UID) || !holds(p) {
			continue
		}
		var gpus []int
		if s := p.Annotations[AnnotationGPUs]; s != "" {
			if got, err := ParseGPUs(s, g.Count); err == nil {
				gpus = got
			}
		}
		if gpus == nil && rem != nil {
			if got, ok := rem(p); ok && valid(got, g.Count) {
				gpus = got
			}
		}
		if gpus == nil {
			unplaced = append(unplaced, p)
			continue
		}
		for _, x := range gpus {
			held[x]++
		}
		n.Tenants = append(n.Tenants, colocapi.Tenant{Workload: Workload(p), GPUs: gpus})
	}
	for _, p := range unplaced {
		d := min(max(GPURequest(p), 1), g.Count)
		// The d least-held GPUs, lowest index first among equals.
		idx := make([]int, g.Count)
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(held[a], held[b]) })
		gpus := slices.Clone(idx[:d])
		slices.Sort(gpus)
		for _, x := range gpus {
			held[x]++
		}
		n.Tenants = append(n.Tenants, colocapi.Tenant{Workload: Workload(p), GPUs: gpus})
	}
	return n
}

func podOrder(a, b *v1.Pod) int {
	return cmp.Or(a.CreationTimestamp.Compare(b.CreationTimestamp.Time),
		cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

func valid(gpus []int, n int) bool {
	for i, g := range gpus {
		if g < 0 || g >= n || slices.Contains(gpus[:i], g) {
			return false
		}
	}
	return len(gpus) > 0
}
