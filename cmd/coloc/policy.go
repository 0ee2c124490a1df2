package main

import "github.com/spf13/cobra"

func newPolicyCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Export placement decisions and the tables schedulers read",
		Long: `A policy file (format coloc.policy, version 1, JSON) holds the placement
decisions for a job list on a cluster (GPU type, degree, node, GPU indices,
co-located jobs, predicted normalized throughput, the reason) and the
tables a scheduler needs to decide online for jobs not in the list:
pairwise normalized throughput per GPU type, solo and scaling throughput
per workload, the model-similarity reference set and the thresholds.
Schedulers written in Go read it with package
github.com/coloc-dev/coloc/policy.`,
	}
	cmd.AddCommand(newPolicyExportCmd(e), newPolicyValidateCmd(e))
	return cmd
}
