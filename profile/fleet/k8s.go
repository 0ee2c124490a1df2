package fleet

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// K8sManifestName is the Kubernetes manifest of a fleet, in its directory.
const K8sManifestName = "campaign-k8s.yaml"

// K8sOptions are the Kubernetes settings of a fleet's Indexed Job. Coloc,
// Suite and Python are paths inside the image (relative ones are relative
// to the image's working directory).
type K8sOptions struct {
	JobName   string `json:"job_name"`
	Namespace string `json:"namespace,omitempty"`
	Image     string `json:"image"`
	// Parallelism caps the pods running at once (0: every shard at once).
	Parallelism  int               `json:"parallelism,omitempty"`
	BackoffLimit int               `json:"backoff_limit"`
	PVC          string            `json:"pvc"`        // claim of the campaign volume
	MountPath    string            `json:"mount_path"` // where the pods mount it
	NodeSelector map[string]string `json:"node_selector,omitempty"`
	CPUs         string            `json:"cpus,omitempty"` // CPU request per pod, e.g. "8"
	// HostPID runs the pods in the node's PID namespace (hostPID). NVML
	// names processes by their host PIDs, so without it the NVML sampler
	// cannot tell a pod's workloads apart and their per-process counters
	// read NaN; clusters whose policy forbids host namespaces refuse it.
	HostPID bool   `json:"host_pid,omitempty"`
	Coloc   string `json:"coloc"`
	Suite   string `json:"suite"`
	Python  string `json:"python"`
}

// DefaultK8sOptions are the defaults of `coloc profile k8s`.
var DefaultK8sOptions = K8sOptions{
	BackoffLimit: 6,
	MountPath:    "/coloc/campaign",
	Coloc:        "coloc",
	Python:       "python3",
}

// k8sName is a DNS-1123 label: lower-case letters, digits and '-'.
var k8sName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// K8sJobName turns a campaign name into a Job name: "coloc-<name>",
// lower-cased, other characters replaced by '-', at most 52 characters
// (room for the pods' index suffix).
func K8sJobName(campaign string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(campaign) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	name := "coloc-" + b.String()
	if len(name) > 52 {
		name = name[:52]
	}
	return strings.TrimRight(name, "-")
}

func (o *K8sOptions) check() error {
	switch {
	case !k8sName.MatchString(o.JobName) || len(o.JobName) > 63:
		return fmt.Errorf("job name %q: want a DNS-1123 label (lower-case letters, digits, '-'; at most 63)", o.JobName)
	case o.Namespace != "" && !k8sName.MatchString(o.Namespace):
		return fmt.Errorf("--namespace %q: want a DNS-1123 label", o.Namespace)
	case o.Image == "":
		return fmt.Errorf("--image is needed: an image holding coloc, the suite and its workloads")
	case o.PVC == "":
		return fmt.Errorf("--pvc is needed: the persistent volume claim the shards write their campaign directories to")
	case !path.IsAbs(o.MountPath):
		return fmt.Errorf("--mount-path %q: want an absolute path", o.MountPath)
	case o.Parallelism < 0 || o.BackoffLimit < 0:
		return fmt.Errorf("--parallelism and --backoff-limit cannot be negative")
	case !k8sImage.MatchString(o.Image):
		return fmt.Errorf("--image %q: want an image reference (letters, digits and . _ / : @ + -)", o.Image)
	case !k8sSubdomain.MatchString(o.PVC) || len(o.PVC) > 253:
		return fmt.Errorf("--pvc %q: want a claim name (a DNS-1123 subdomain: lower-case letters, digits, '-', '.')", o.PVC)
	case o.CPUs != "" && !k8sQuantity.MatchString(o.CPUs):
		return fmt.Errorf("--cpus-per-pod %q: want a CPU quantity such as 8, 0.5 or 500m", o.CPUs)
	}
	for k, v := range o.NodeSelector {
		if !k8sLabelKey.MatchString(k) || len(k) > 316 || !k8sLabelValue.MatchString(v) || len(v) > 63 {
			return fmt.Errorf("--node-selector %q=%q: want a label key ([prefix/]name) and value (letters, digits, '.', '_', '-')", k, v)
		}
	}
	for _, v := range []struct{ flag, val string }{
		{"--mount-path", o.MountPath}, {"--coloc", o.Coloc}, {"--suite-in-image", o.Suite}, {"--python", o.Python},
	} {
		if err := checkPlain(v.flag, v.val); err != nil {
			return err
		}
	}
	return nil
}

// The Job, as much of batch/v1 as the manifest uses, in the field order
// kubectl prints.
type (
	k8sJob struct {
		APIVersion string     `yaml:"apiVersion"`
		Kind       string     `yaml:"kind"`
		Metadata   k8sMeta    `yaml:"metadata"`
		Spec       k8sJobSpec `yaml:"spec"`
	}
	k8sMeta struct {
		Name        string            `yaml:"name,omitempty"`
		Namespace   string            `yaml:"namespace,omitempty"`
		Labels      map[string]string `yaml:"labels,omitempty"`
		Annotations map[string]string `yaml:"annotations,omitempty"`
	}
	k8sJobSpec struct {
		CompletionMode string      `yaml:"completionMode"`
		Completions    int         `yaml:"completions"`
		Parallelism    int         `yaml:"parallelism"`
		BackoffLimit   int         `yaml:"backoffLimit"`
		Template       k8sTemplate `yaml:"template"`
	}
	k8sTemplate struct {
		Metadata k8sMeta    `yaml:"metadata"`
		Spec     k8sPodSpec `yaml:"spec"`
	}
	k8sPodSpec struct {
		RestartPolicy string            `yaml:"restartPolicy"`
		HostPID       bool              `yaml:"hostPID,omitempty"`
		NodeSelector  map[string]string `yaml:"nodeSelector,omitempty"`
		Containers    []k8sContainer    `yaml:"containers"`
		Volumes       []k8sVolume       `yaml:"volumes"`
	}
	k8sContainer struct {
		Name         string       `yaml:"name"`
		Image        string       `yaml:"image"`
		Command      []string     `yaml:"command"`
		Resources    k8sResources `yaml:"resources,omitempty"`
		VolumeMounts []k8sMount   `yaml:"volumeMounts"`
	}
	k8sResources struct {
		Requests map[string]string `yaml:"requests,omitempty"`
		Limits   map[string]string `yaml:"limits,omitempty"`
	}
	k8sMount struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	}
	k8sVolume struct {
		Name string      `yaml:"name"`
		PVC  k8sClaimRef `yaml:"persistentVolumeClaim"`
	}
	k8sClaimRef struct {
		ClaimName string `yaml:"claimName"`
	}
)

// K8sManifest is the Kubernetes Indexed Job of fleet f (batch/v1, YAML):
// completions = shards, and the pod of completion index k (the
// JOB_COMPLETION_INDEX Kubernetes sets, from 0) runs shard k+1 of n into
// <mount>/shards/<k+1> on the campaign volume. A pod asks for the fleet's
// GPUs as nvidia.com/gpu (requests = limits, as extended resources must);
// a restarted pod resumes its shard.
func K8sManifest(f *Fleet) ([]byte, error) {
	o := f.K8s
	if o == nil {
		return nil, fmt.Errorf("fleet %s has no Kubernetes settings", f.Name)
	}
	if err := f.checkStrings(); err != nil {
		return nil, err
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	n := len(f.Plan.Shards)
	par := n
	if o.Parallelism > 0 {
		par = min(n, o.Parallelism)
	}
	labels := map[string]string{"app.kubernetes.io/name": "coloc", "app.kubernetes.io/instance": o.JobName}
	script := "set -eu\nshard=$((JOB_COMPLETION_INDEX + 1))\nexec " +
		strings.Join(shellQuoteAll(shardCommand(o.Coloc, o.Suite, o.Python, f.Args)), " ") +
		" --out " + shellQuote(path.Join(o.MountPath, shardsDir)+"/") + `"$shard" --shard "$shard/` + fmt.Sprint(n) + `"` + "\n"
	c := k8sContainer{
		Name: "coloc", Image: o.Image, Command: []string{"/bin/sh", "-c", script},
		VolumeMounts: []k8sMount{{Name: "campaign", MountPath: o.MountPath}},
	}
	if f.Settings.GPUs > 0 {
		g := fmt.Sprint(f.Settings.GPUs)
		c.Resources.Requests = map[string]string{"nvidia.com/gpu": g}
		c.Resources.Limits = map[string]string{"nvidia.com/gpu": g}
	}
	if o.CPUs != "" {
		if c.Resources.Requests == nil {
			c.Resources.Requests = map[string]string{}
		}
		c.Resources.Requests["cpu"] = o.CPUs
	}
	job := k8sJob{
		APIVersion: "batch/v1", Kind: "Job",
		Metadata: k8sMeta{Name: o.JobName, Namespace: o.Namespace, Labels: labels, Annotations: map[string]string{
			"coloc.dev/suite": f.Suite.Name, "coloc.dev/suite-hash": f.Suite.Hash, "coloc.dev/plan-hash": f.Plan.Hash,
		}},
		Spec: k8sJobSpec{
			CompletionMode: "Indexed", Completions: n, Parallelism: par, BackoffLimit: o.BackoffLimit,
			Template: k8sTemplate{
				Metadata: k8sMeta{Labels: labels},
				Spec: k8sPodSpec{
					RestartPolicy: "Never", HostPID: o.HostPID, NodeSelector: o.NodeSelector, Containers: []k8sContainer{c},
					Volumes: []k8sVolume{{Name: "campaign", PVC: k8sClaimRef{ClaimName: o.PVC}}},
				},
			},
		},
	}
	var body bytes.Buffer
	enc := yaml.NewEncoder(&body)
	enc.SetIndent(2)
	if err := enc.Encode(job); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	head := fmt.Sprintf("# coloc fleet campaign %s: %d runs in %d shards (written by 'coloc profile k8s').\n"+
		"# kubectl apply -f %s; when the pods are done, bring <volume>/shards into the\n"+
		"# campaign directory (or mount the volume there) and run coloc profile merge on it.\n",
		f.Name, len(f.Plan.Runs), n, K8sManifestName)
	return append([]byte(head), body.Bytes()...), nil
}
