package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/coloc-dev/coloc/profile/fleet"
	"github.com/spf13/cobra"
)

func newProfileK8sCmd(e *env) *cobra.Command {
	var (
		ff           fleetFlags
		ko           = fleet.DefaultK8sOptions
		nodeSelector []string
	)
	cmd := &cobra.Command{
		Use:   "k8s --suite FILE --out DIR --shards N --image IMAGE --pvc CLAIM",
		Short: "Write a campaign as a Kubernetes Indexed Job, one shard a pod",
		Long: `Splits the campaign like 'coloc profile slurm' and writes into DIR:

  fleet.json            the fleet manifest 'coloc profile merge' checks
  campaign-k8s.yaml     a batch/v1 Job, completionMode Indexed, completions N:
                        the pod of completion index k (JOB_COMPLETION_INDEX)
                        runs coloc profile run --shard k+1/N into
                        <mount-path>/shards/k+1 on the volume of --pvc

Each pod asks for --gpus-per-pod GPUs (nvidia.com/gpu, requests = limits;
none with --device cpu). The image must hold coloc (--coloc, default on its
PATH), the suite at the --suite path given (relative to the image's working
directory, unless --suite-in-image says otherwise) with its workloads, and
Python with PyTorch (--python). A pod that fails is restarted by the Job (up
to --backoff-limit) and resumes its shard.

Apply it with kubectl apply -f DIR/campaign-k8s.yaml. To merge, bring the
shards from the volume into DIR/shards (mount the volume at DIR, or kubectl
cp them out of a pod that mounts it) and run coloc profile merge DIR.
--node-selector restricts the pods to one GPU type (e.g. the GPU feature
discovery label nvidia.com/gpu.product); write one fleet per type, as for
Slurm.

NVML names processes by their PIDs on the node, which a pod in its own PID
namespace cannot see: its per-process counters (proc_*) read NaN, and each
run says why. --host-pid sets hostPID: true so they are read (clusters whose
policy forbids host namespaces refuse such pods).`,
		Example: `  coloc profile k8s --suite benchmarks/suites/default.yaml --out camp/h200 --shards 8 \
      --image registry.example.com/coloc:1.0 --pvc coloc-campaigns --namespace profiling \
      --node-selector nvidia.com/gpu.product=NVIDIA-H200 --gpus-per-pod 1
  kubectl apply -f camp/h200/campaign-k8s.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, dir, err := ff.fleet(cmd, "gpus-per-pod")
			if err != nil {
				return err
			}
			for _, kv := range nodeSelector {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return fmt.Errorf("--node-selector %q: want key=value", kv)
				}
				if ko.NodeSelector == nil {
					ko.NodeSelector = map[string]string{}
				}
				ko.NodeSelector[k] = v
			}
			if ko.Suite == "" {
				ko.Suite = ff.pf.suite
			}
			ko.Python = ff.rf.python
			if ko.JobName == "" {
				ko.JobName = fleet.K8sJobName(f.Name)
			}
			f.K8s = &ko
			manifest, err := fleet.K8sManifest(f)
			if err != nil {
				return err
			}
			if err := fleet.Prepare(dir, f); err != nil {
				return err
			}
			path := filepath.Join(dir, fleet.K8sManifestName)
			if err := writeFile(path, manifest); err != nil {
				return err
			}
			fmt.Fprint(e.stdout, f.Describe())
			fmt.Fprintf(e.stdout, "wrote %s and %s\nrun it with:\n  kubectl apply -f %s\n", filepath.Join(dir, fleet.FileName), path, path)
			return nil
		},
	}
	ff.register(cmd, "gpus-per-pod", "GPUs each pod asks for (nvidia.com/gpu) and uses; 0 with --device cpu")
	fl := cmd.Flags()
	fl.StringVar(&ko.Image, "image", "", "container image holding coloc, the suite, its workloads and PyTorch")
	fl.StringVar(&ko.PVC, "pvc", "", "persistent volume claim the shards write to")
	fl.StringVar(&ko.MountPath, "mount-path", ko.MountPath, "where the pods mount the volume")
	fl.StringVar(&ko.Namespace, "namespace", "", "namespace of the Job (default: kubectl's)")
	fl.StringVar(&ko.JobName, "job-name", "", "name of the Job (default coloc-<name of DIR>)")
	fl.IntVar(&ko.Parallelism, "parallelism", 0, "pods running at once (default: every shard)")
	fl.IntVar(&ko.BackoffLimit, "backoff-limit", ko.BackoffLimit, "pod failures the Job retries before it gives up")
	fl.StringVar(&ko.CPUs, "cpus-per-pod", "", "CPU request of each pod, e.g. 8")
	fl.StringSliceVar(&nodeSelector, "node-selector", nil, "node label key=value the pods need (repeatable), e.g. nvidia.com/gpu.product=NVIDIA-H200")
	fl.BoolVar(&ko.HostPID, "host-pid", false, "run the pods in the node's PID namespace (hostPID), so that NVML's per-process counters can be attributed")
	fl.StringVar(&ko.Coloc, "coloc", ko.Coloc, "path of coloc in the image")
	fl.StringVar(&ko.Suite, "suite-in-image", "", "path of the suite in the image (default: --suite as given)")
	return cmd
}

// writeFile writes data to path atomically.
func writeFile(path string, data []byte) error {
	return writeAtomic(path, data, 0o644)
}
