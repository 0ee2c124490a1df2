package main

import (
	"github.com/coloc-dev/coloc/profile/sampler"
	"github.com/spf13/cobra"
)

func newDevicesCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "devices",
		Short: "List the GPUs and the counters coloc can sample on this machine",
		Long: `Lists what 'coloc profile run' will sample here: every GPU that NVML finds
(index, normalized type, name, memory, architecture, compute capability,
driver and CUDA versions, whether it offers GPM metrics) and the counters
each one offers, then the host counters read from /proc, which are always
there.

Without an NVIDIA driver (no libnvidia-ml.so.1) it says so and lists the host
counters only: profiling still works, with CPU time and memory per workload.
A counter a GPU does not support is read as empty (null) on it; one no GPU
supports is not recorded at all.

The type column is the name used for device_type in every dataset table
(NVIDIA H200 -> h200, Tesla V100-SXM2-16GB -> v100).`,
		Example: `  coloc devices
  coloc devices --json | jq -r '.gpu.devices[].type'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			found := sampler.Detect(e.openGPU(), sampler.DetectOptions{})
			defer found.Close()
			if asJSON {
				return found.WriteJSON(e.stdout)
			}
			return found.WriteText(e.stdout)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (for scripts) instead of text")
	return cmd
}
