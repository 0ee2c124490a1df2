package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coloc-dev/coloc/model"
	"github.com/spf13/cobra"
)

func newPredictCmd(e *env) *cobra.Command {
	var dir, device, only string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "predict --models MODELDIR --device T A B",
		Short: "Predict the normalized throughput of two jobs sharing a GPU",
		Long: `Prints, for each model in MODELDIR, the predicted normalized throughput of
job A next to job B (A|B: A's co-located throughput over its solo
throughput) and of B next to A, on device T ("v100"; "v100x2" for jobs
spanning 2 GPUs each). Both jobs must be known to the models (they have
solo features); for a job never profiled, see 'coloc similar'.`,
		Example: `  coloc predict --models out/models --device v100 "ResNet-50 (batch size 64)" "LM (batch size 20)"
  coloc predict --models out/models --device k80 --only iasp,bias --json A3C CycleGAN`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var names []string
			if only != "" {
				var err error
				if names, err = model.ParseNames(only); err != nil {
					return err
				}
			}
			ms, err := model.LoadDir(dir, names)
			if err != nil {
				return err
			}
			type row struct {
				Model string  `json:"model"`
				AB    float64 `json:"a_next_to_b"`
				BA    float64 `json:"b_next_to_a"`
			}
			var rows []row
			for _, l := range ms {
				a, err := l.Frame.Job(args[0])
				if err != nil {
					return unknownJob(err, args[0], l.Frame.Jobs)
				}
				b, err := l.Frame.Job(args[1])
				if err != nil {
					return unknownJob(err, args[1], l.Frame.Jobs)
				}
				s, err := l.Frame.Slot(device)
				if err != nil {
					return err
				}
				for _, j := range []int{a, b} {
					if l.Frame.Row(j, s) == nil {
						return fmt.Errorf("job %q has no solo measurement on %s: the models cannot place it there", l.Frame.Jobs[j], device)
					}
				}
				rows = append(rows, row{Model: l.File.Model, AB: l.Model.Predict(a, b, s), BA: l.Model.Predict(b, a, s)})
			}
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				for _, r := range rows {
					if err := enc.Encode(struct {
						row
						Device string `json:"device"`
						A      string `json:"a"`
						B      string `json:"b"`
					}{r, device, args[0], args[1]}); err != nil {
						return err
					}
				}
				return nil
			}
			fmt.Fprintf(e.stdout, "normalized throughput on %s\n  A = %s\n  B = %s\n", device, args[0], args[1])
			fmt.Fprintf(e.stdout, "%-11s %7s %7s\n", "model", "A|B", "B|A")
			fmt.Fprintln(e.stdout, strings.Repeat("-", 27))
			for _, r := range rows {
				fmt.Fprintf(e.stdout, "%-11s %7.3f %7.3f\n", r.Model, r.AB, r.BA)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "models", "", "model directory written by 'coloc fit'")
	cmd.Flags().StringVar(&device, "device", "", "device type (slot) the two jobs share, e.g. v100")
	cmd.Flags().StringVar(&only, "only", "", "comma-separated models to use (default: all in MODELDIR)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per model")
	cmd.MarkFlagRequired("models")
	cmd.MarkFlagRequired("device")
	completeValues(cmd, "only", model.Names())
	cmd.RegisterFlagCompletionFunc("device", completeSlots)
	cmd.ValidArgsFunction = completeJobs
	return cmd
}
