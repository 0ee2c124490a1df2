package fleet

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// k8sFleet is gpuFleet with Kubernetes settings instead of Slurm's.
func k8sFleet(t *testing.T) *Fleet {
	f := gpuFleet(t)
	f.Slurm = nil
	o := DefaultK8sOptions
	o.JobName, o.Namespace, o.Image, o.PVC = K8sJobName(f.Name), "profiling", "registry.example.com/coloc:1.0", "coloc-campaigns"
	o.Suite, o.Parallelism = "profile/testdata/fake.yaml", 2
	o.NodeSelector = map[string]string{"nvidia.com/gpu.product": "NVIDIA-H200"}
	f.K8s = &o
	return f
}

// at walks a parsed YAML document along keys (strings) and indices (ints).
func at(t *testing.T, doc any, path ...any) any {
	t.Helper()
	v := doc
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not a mapping at %q", path, k)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%v: no item %d", path, k)
			}
			v = l[k]
		}
	}
	return v
}

func TestK8sManifest(t *testing.T) {
	f := k8sFleet(t)
	b, err := K8sManifest(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("manifest is not YAML: %v\n%s", err, b)
	}
	pod := []any{"spec", "template", "spec"}
	c := append(pod, "containers", 0)
	checks := []struct {
		path []any
		want any
	}{
		{[]any{"apiVersion"}, "batch/v1"},
		{[]any{"kind"}, "Job"},
		{[]any{"metadata", "name"}, "coloc-h200"},
		{[]any{"metadata", "namespace"}, "profiling"},
		{[]any{"metadata", "annotations", "coloc.dev/plan-hash"}, f.Plan.Hash},
		{[]any{"spec", "completionMode"}, "Indexed"},
		{[]any{"spec", "completions"}, 3},
		{[]any{"spec", "parallelism"}, 2},
		{[]any{"spec", "backoffLimit"}, 6},
		{append(pod, "restartPolicy"), "Never"},
		{append(pod, "hostPID"), nil},
		{append(pod, "nodeSelector", "nvidia.com/gpu.product"), "NVIDIA-H200"},
		{append(c, "image"), "registry.example.com/coloc:1.0"},
		{append(c, "resources", "requests", "nvidia.com/gpu"), "2"},
		{append(c, "resources", "limits", "nvidia.com/gpu"), "2"},
		{append(c, "volumeMounts", 0, "name"), "campaign"},
		{append(c, "volumeMounts", 0, "mountPath"), "/coloc/campaign"},
		{append(pod, "volumes", 0, "name"), "campaign"},
		{append(pod, "volumes", 0, "persistentVolumeClaim", "claimName"), "coloc-campaigns"},
		{append(c, "command", 0), "/bin/sh"},
		{append(c, "command", 1), "-c"},
	}
	for _, ck := range checks {
		if got := at(t, doc, ck.path...); got != ck.want {
			t.Errorf("%v = %v (%T), want %v", ck.path, got, got, ck.want)
		}
	}
	script, _ := at(t, doc, append(c, "command", 2)...).(string)
	for _, want := range []string{"shard=$((JOB_COMPLETION_INDEX + 1))", `--out /coloc/campaign/shards/"$shard" --shard "$shard/3"`,
		"exec coloc profile run --suite profile/testdata/fake.yaml --python python3 --device cuda --gpus 2"} {
		if !strings.Contains(script, want) {
			t.Errorf("pod command lacks %q:\n%s", want, script)
		}
	}

	// The pod of completion index 2 runs shard 3 of 3.
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "coloc"), []byte("#!/bin/sh\necho \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = []string{"PATH=" + tmp + ":" + os.Getenv("PATH"), "JOB_COMPLETION_INDEX=2"}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "--out /coloc/campaign/shards/3 --shard 3/3") {
		t.Errorf("index 2 ran: %v: %s", err, out)
	}
}

// manifestDoc is f's Kubernetes manifest, parsed.
func manifestDoc(t *testing.T, f *Fleet) map[string]any {
	t.Helper()
	b, err := K8sManifest(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("manifest is not YAML: %v\n%s", err, b)
	}
	return doc
}

func TestK8sManifestCPU(t *testing.T) {
	f := k8sFleet(t)
	f.Settings.GPUs = 0
	f.K8s.Parallelism, f.K8s.CPUs = 0, "2"
	doc := manifestDoc(t, f)
	res := at(t, doc, "spec", "template", "spec", "containers", 0, "resources").(map[string]any)
	if _, gpu := res["limits"]; gpu || at(t, doc, "spec", "parallelism") != 3 || at(t, doc, "spec", "template", "spec", "containers", 0, "resources", "requests", "cpu") != "2" {
		t.Errorf("CPU fleet: resources %v, parallelism %v; want no GPU, a CPU request, every shard at once", res, at(t, doc, "spec", "parallelism"))
	}
}

// TestK8sManifestHostPID: --host-pid puts the pods in the node's PID
// namespace, where NVML's PIDs are the pods' own.
func TestK8sManifestHostPID(t *testing.T) {
	f := k8sFleet(t)
	f.K8s.HostPID = true
	doc := manifestDoc(t, f)
	if got := at(t, doc, "spec", "template", "spec", "hostPID"); got != true {
		t.Errorf("hostPID = %v, want true", got)
	}
}

func TestK8sManifestRefuses(t *testing.T) {
	tests := []struct {
		edit func(o *K8sOptions)
		want string
	}{
		{func(o *K8sOptions) { o.Image = "" }, "--image is needed"},
		{func(o *K8sOptions) { o.PVC = "" }, "--pvc is needed"},
		{func(o *K8sOptions) { o.Namespace = "Profiling" }, "--namespace"},
		{func(o *K8sOptions) { o.JobName = "coloc_h200" }, "DNS-1123"},
		{func(o *K8sOptions) { o.MountPath = "campaign" }, "absolute path"},
	}
	for _, tc := range tests {
		f := k8sFleet(t)
		tc.edit(f.K8s)
		if _, err := K8sManifest(f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", f.K8s, err, tc.want)
		}
	}
}

func TestK8sJobName(t *testing.T) {
	for in, want := range map[string]string{
		"h200":                                   "coloc-h200",
		"Tiny_Suite.v2":                          "coloc-tiny-suite-v2",
		strings.Repeat("x", 80):                  "coloc-" + strings.Repeat("x", 46),
		"ends-" + strings.Repeat("y", 40) + "--": "coloc-ends-" + strings.Repeat("y", 40),
	} {
		if got := K8sJobName(in); got != want || len(got) > 52 {
			t.Errorf("K8sJobName(%q) = %q, want %q", in, got, want)
		}
	}
}
