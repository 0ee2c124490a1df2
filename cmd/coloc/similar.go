package main

import (
	"encoding/json"
	"fmt"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place"
	"github.com/spf13/cobra"
)

func newSimilarCmd(e *env) *cobra.Command {
	var dir, distance, metaFile string
	var k, batch int
	var p, eff float64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "similar --models MODELDIR JOB",
		Short: "Find the profiled models most similar to a job and the GPU type and degree that suit it",
		Long: `Model-similarity policy (Thanapol et al. 2023): describes JOB by its model's
descriptors (parameters, FLOPs per sample, layers by kind, batch size,
class, precision), finds the k nearest profiled reference models under the
chosen distance, and suggests the GPU type on which those references run
best relative to their own best type, and the largest degree whose mean
scaling efficiency throughput(d) / (d x throughput(1)) stays at or above
--efficiency.

JOB is either a job the models know (it is then left out of its own
neighbours) or a new one named after a known model family, e.g.
"ResNet-50 (batch size 48)"; its batch size is read from the name or
--batch-size. Any other new job is described by --meta, a workloads.json
file:

  {"format": "coloc.workloads", "version": 1, "workloads": [
    {"workload": "my-bert", "model": "bert", "class": "transformer",
     "params": 1.1e8, "forward_flops_per_sample": 2e10,
     "layers": {"attention": 12, "linear": 72}, "batch_size": 32,
     "precision": "fp16"}]}

(forward_flops_per_sample is the forward pass only, 2 FLOPs per
multiply-accumulate; see docs/datasets.md).

Each neighbour is printed with its distance. The command refuses when the
descriptors cannot tell the references apart (none varies over them, or
all are at one distance from JOB) and warns when the nearest reference is
farther from JOB than any reference is from its own nearest (JOB is out of
distribution) or when the k-th neighbour is tied with others.

Distances: euclidean, manhattan, cosine and minkowski (order --p) on
min-max normalized descriptors with categorical ones as indicators; gower
(default) averages per-attribute range-normalized differences and
categorical mismatches, the usual choice for mixed attributes.`,
		Example: `  coloc similar --models out/models "ResNet-50 (batch size 48)"
  coloc similar --models out/models --k 5 --distance cosine "LM (batch size 20)"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ans, err := place.Similar(place.SimilarQuery{Models: dir, Job: args[0], Meta: metaFile, BatchSize: batch,
				K: k, Distance: distance, P: p, Efficiency: eff})
			if err != nil {
				return err
			}
			known, sug := ans.Known, ans.Suggestion
			e.say("warning:", ans.Warnings...)
			if asJSON {
				return json.NewEncoder(e.stdout).Encode(struct {
					Job      string `json:"job"`
					Known    bool   `json:"known"`
					Distance string `json:"distance"`
					model.Suggestion
				}{args[0], known, distance, sug})
			}
			fmt.Fprintf(e.stdout, "nearest profiled models to %q (%s distance):\n", args[0], distance)
			for _, n := range sug.Neighbors {
				fmt.Fprintf(e.stdout, "  %-36s %.4f\n", n.Job, n.Distance)
			}
			fmt.Fprintf(e.stdout, "suggested: %s, %d GPU(s) (relative throughput %.2f, scaling efficiency %.2f)\n",
				sug.DeviceType, sug.Degree, sug.Score, sug.Efficiency)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "models", "", "model directory written by 'coloc fit' (with the similarity model)")
	cmd.Flags().IntVar(&k, "k", model.DefaultSimilarityOptions.K, "number of nearest references")
	cmd.Flags().StringVar(&distance, "distance", model.DefaultSimilarityOptions.Distance, "euclidean, manhattan, cosine, minkowski or gower")
	cmd.Flags().Float64Var(&p, "p", model.DefaultSimilarityOptions.P, "order of the Minkowski distance")
	cmd.Flags().Float64Var(&eff, "efficiency", model.DefaultSimilarityOptions.Efficiency, "scaling efficiency a suggested degree must keep")
	cmd.Flags().IntVar(&batch, "batch-size", 0, "batch size of a new job whose name does not state it")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the answer as one JSON object")
	cmd.Flags().StringVar(&metaFile, "meta", "", "workloads.json file describing JOB")
	cmd.MarkFlagRequired("models")
	return cmd
}
