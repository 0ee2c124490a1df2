package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/profile/fleet"
	"go.yaml.in/yaml/v3"
)

func TestProfileK8s(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gpu")
	args := []string{"profile", "k8s", "--suite", fakeSuite, "--out", dir, "--shards", "3", "--gpus-per-pod", "2",
		"--image", "reg.example.com/coloc:1", "--pvc", "campaigns", "--namespace", "prof", "--parallelism", "2",
		"--node-selector", "nvidia.com/gpu.product=NVIDIA-H200", "--host-pid", "--duration", "10s", "--repeats", "1"}
	out, _ := mustRun(t, args...)
	path := filepath.Join(dir, fleet.K8sManifestName)
	if !strings.Contains(out, "kubectl apply -f "+path) || !strings.Contains(out, "(2 GPUs a shard), 3 shards") {
		t.Errorf("stdout:\n%s", out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Parallelism    int    `yaml:"parallelism"`
			Template       struct {
				Spec struct {
					HostPID      bool              `yaml:"hostPID"`
					NodeSelector map[string]string `yaml:"nodeSelector"`
					Containers   []struct {
						Command   []string `yaml:"command"`
						Resources struct {
							Requests map[string]string `yaml:"requests"`
							Limits   map[string]string `yaml:"limits"`
						} `yaml:"resources"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	pod := job.Spec.Template.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" || job.Spec.Completions != 3 ||
		job.Spec.Parallelism != 2 || len(pod.Containers) != 1 || pod.NodeSelector["nvidia.com/gpu.product"] != "NVIDIA-H200" || !pod.HostPID {
		t.Fatalf("job %+v", job)
	}
	c := pod.Containers[0]
	if c.Resources.Requests["nvidia.com/gpu"] != "2" || c.Resources.Limits["nvidia.com/gpu"] != "2" {
		t.Errorf("resources %+v, want 2 nvidia.com/gpu requested and limited", c.Resources)
	}
	script := c.Command[len(c.Command)-1]
	for _, want := range []string{"shard=$((JOB_COMPLETION_INDEX + 1))", "--suite " + fakeSuite, "--device cuda --gpus 2", `--shard "$shard/3"`} {
		if !strings.Contains(script, want) {
			t.Errorf("pod command lacks %q:\n%s", want, script)
		}
	}
	// The fleet merges like a Slurm one; with nothing run, every run is
	// missing and the advice is for Kubernetes.
	out, _, err = runCmd(t, "profile", "merge", dir)
	if exitStatus(err) != exitIncomplete || !strings.Contains(out, "kubectl replace --force -f "+path) {
		t.Errorf("merge: %v\n%s", err, out)
	}

	for _, tc := range []struct {
		drop, want string
	}{{"--image", "--image is needed"}, {"--pvc", "--pvc is needed"}} {
		var a []string
		for i := 0; i < len(args); i++ {
			if args[i] == tc.drop {
				i++
				continue
			}
			a = append(a, args[i])
		}
		if _, _, err := runCmd(t, a...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("without %s: %v", tc.drop, err)
		}
	}
	if _, _, err := runCmd(t, append(args, "--node-selector", "gpu")...); err == nil || !strings.Contains(err.Error(), "want key=value") {
		t.Errorf("--node-selector gpu: %v", err)
	}
}
