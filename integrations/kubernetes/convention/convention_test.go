package convention

import (
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/coloc-dev/coloc/integrations/kubernetes/colocapi"
)

func node(name string, labels map[string]string, alloc int64) *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if alloc > 0 {
		n.Status.Allocatable = v1.ResourceList{ResourceGPU: *resource.NewQuantity(alloc, resource.DecimalSI)}
	}
	return n
}

func TestGPUsOf(t *testing.T) {
	m := TypeMap{"Odd-Board": "p100"}
	cases := []struct {
		name   string
		node   *v1.Node
		want   NodeGPUs
		errHas string
	}{
		{"GFD product and count", node("a", map[string]string{LabelProduct: "Tesla-V100-SXM2-16GB", LabelCount: "8"}, 0), NodeGPUs{"v100", 8, 1}, ""},
		{"count from allocatable over replicas", node("b", map[string]string{LabelProduct: "Tesla-K80", LabelReplicas: "2"}, 8), NodeGPUs{"k80", 4, 2}, ""},
		{"explicit type wins", node("c", map[string]string{LabelGPUType: "p100", LabelProduct: "Tesla-V100-SXM2-16GB", LabelCount: "2"}, 0), NodeGPUs{"p100", 2, 1}, ""},
		{"map override", node("d", map[string]string{LabelProduct: "Odd-Board", LabelCount: "1"}, 0), NodeGPUs{"p100", 1, 1}, ""},
		{"unmapped product", node("e", map[string]string{LabelProduct: "Mystery-9000", LabelCount: "1"}, 0), NodeGPUs{}, `node e: GPU product "Mystery-9000"`},
		{"no GPU labels", node("f", nil, 0), NodeGPUs{}, "node f: no GPU type"},
		{"no count", node("g", map[string]string{LabelGPUType: "v100"}, 0), NodeGPUs{}, "node g: no GPU count"},
		{"bad replicas", node("h", map[string]string{LabelGPUType: "v100", LabelReplicas: "x"}, 4), NodeGPUs{}, `label nvidia.com/gpu.replicas="x"`},
		{"fewer devices than replicas", node("i", map[string]string{LabelGPUType: "v100", LabelReplicas: "4"}, 2), NodeGPUs{}, "is no whole GPU"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := GPUsOf(c.node, m)
			if c.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), c.errHas) {
					t.Fatalf("err = %v, want one containing %q", err, c.errHas)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

func TestTypeMapTokens(t *testing.T) {
	for product, want := range map[string]string{
		"Tesla-V100-SXM2-16GB":  "v100",
		"Tesla-P100-PCIE-16GB":  "p100",
		"Tesla-K80":             "k80",
		"NVIDIA-A100-SXM4-80GB": "a100",
		"NVIDIA-L40S":           "l40s",
		"NVIDIA-L4":             "l4",
	} {
		if got, ok := (TypeMap{}).GPUType(product); !ok || got != want {
			t.Errorf("%s: got %q %v, want %q", product, got, ok, want)
		}
	}
	if got, ok := (TypeMap{}).GPUType("NVIDIA-GeForce-RTX-3090"); ok {
		t.Errorf("a product of no known model mapped to %q", got)
	}
}

func gpuPod(name string, gpus int64, ann map[string]string, created int) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), Annotations: ann,
		CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, created, 0, time.UTC))}}
	c := v1.Container{Name: "c"}
	if gpus > 0 {
		c.Resources.Limits = v1.ResourceList{ResourceGPU: *resource.NewQuantity(gpus, resource.DecimalSI)}
	}
	p.Spec.Containers = []v1.Container{c}
	return p
}

func TestJobOf(t *testing.T) {
	j, ok, err := JobOf(gpuPod("a", 2, map[string]string{AnnotationWorkload: "ResNet-50 (batch size 64)"}, 0))
	if !ok || err != nil || !reflect.DeepEqual(j, colocapi.Job{Workload: "ResNet-50 (batch size 64)", Degrees: []int{2}}) {
		t.Errorf("got %+v %v %v", j, ok, err)
	}
	if _, ok, _ := JobOf(gpuPod("b", 1, nil, 0)); ok {
		t.Error("a pod without the workload annotation is coloc's")
	}
	if _, ok, err := JobOf(gpuPod("c", 0, map[string]string{AnnotationWorkload: "A3C"}, 0)); !ok || err == nil || !strings.Contains(err.Error(), "pod ns/c") {
		t.Errorf("a workload pod requesting no GPU: ok %v err %v", ok, err)
	}
}

func TestParseGPUs(t *testing.T) {
	if g, err := ParseGPUs("2, 0", 4); err != nil || !reflect.DeepEqual(g, []int{2, 0}) {
		t.Errorf("got %v %v", g, err)
	}
	for _, bad := range []string{"", "4", "-1", "1,1", "a"} {
		if _, err := ParseGPUs(bad, 4); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if s := FormatGPUs([]int{0, 3}); s != "0,3" {
		t.Errorf("FormatGPUs = %q", s)
	}
}

// Node orders tenants by creation, takes annotated and remembered GPUs as
// given, packs the rest onto the least-held GPUs and leaves out the pod
// being placed and finished pods.
func TestNodeTenants(t *testing.T) {
	n := node("n", map[string]string{LabelGPUType: "v100", LabelCount: "4"}, 0)
	g, err := GPUsOf(n, nil)
	if err != nil {
		t.Fatal(err)
	}
	annotated := gpuPod("annotated", 1, map[string]string{AnnotationWorkload: "A3C", AnnotationGPUs: "1"}, 1)
	bare := gpuPod("bare", 2, nil, 2) // another scheduler's: packed
	remembered := gpuPod("remembered", 1, map[string]string{AnnotationWorkload: "LM (batch size 20)"}, 3)
	badAnn := gpuPod("bad", 1, map[string]string{AnnotationWorkload: "A3C", AnnotationGPUs: "9"}, 4) // out of range: packed
	done := gpuPod("done", 1, map[string]string{AnnotationWorkload: "A3C", AnnotationGPUs: "3"}, 0)
	done.Status.Phase = v1.PodSucceeded
	cpu := gpuPod("cpu", 0, nil, 0)
	self := gpuPod("self", 1, map[string]string{AnnotationWorkload: "A3C", AnnotationGPUs: "3"}, 0)
	rem := func(p *v1.Pod) ([]int, bool) {
		if p.Name == "remembered" {
			return []int{3}, true
		}
		return nil, false
	}
	got := Node(n, g, []*v1.Pod{badAnn, remembered, bare, annotated, done, cpu, self}, self, rem)
	// The node advertises one device per GPU (no replicas label): exclusive.
	want := colocapi.Node{Name: "n", GPUType: "v100", GPUs: 4, Exclusive: true, Tenants: []colocapi.Tenant{
		{Workload: "A3C", GPUs: []int{1}},
		{Workload: "LM (batch size 20)", GPUs: []int{3}},
		{Workload: "", GPUs: []int{0, 2}},
		{Workload: "A3C", GPUs: []int{0}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}
