package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/coloc-dev/coloc/model"
	"github.com/spf13/cobra"
)

// interval formats an estimate's interval "[0.712, 0.845]".
func interval(x model.Estimate) string { return fmt.Sprintf("[%.3f, %.3f]", x.Lo, x.Hi) }

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
solo features); for a job never profiled, see 'coloc similar'.

Each prediction is bounded to the model's plausible range and comes with an
interval at the coverage the models were calibrated for (default 90%).
Flags: out-of-range (the model's raw output was outside the range and was
set to the nearest bound), unseen:JOB (JOB had no training pair on the
device: the prediction rests on its features alone and the interval is
wider), uncalibrated (too few pairs to calibrate; the interval is the range).
See docs/predictions.md.`,
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
				Model string         `json:"model"`
				AB    float64        `json:"a_next_to_b"`
				BA    float64        `json:"b_next_to_a"`
				ABEst model.Estimate `json:"a_next_to_b_estimate"`
				BAEst model.Estimate `json:"b_next_to_a_estimate"`
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
				ab, ba := l.Estimate(a, b, s), l.Estimate(b, a, s)
				rows = append(rows, row{Model: l.File.Model, AB: ab.Value, BA: ba.Value, ABEst: ab, BAEst: ba})
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
			cov := 0.0
			if len(ms) > 0 {
				cov = ms[0].File.Trust.Coverage
			}
			fmt.Fprintf(e.stdout, "normalized throughput on %s, with %g%% intervals\n  A = %s\n  B = %s\n", device, 100*cov, args[0], args[1])
			fmt.Fprintf(e.stdout, "%-11s %7s %15s %7s %15s  %s\n", "model", "A|B", "interval", "B|A", "interval", "flags")
			fmt.Fprintln(e.stdout, strings.Repeat("-", 72))
			var notes []string
			for _, r := range rows {
				var flags []string
				for _, f := range append(r.ABEst.Flags(), r.BAEst.Flags()...) {
					if !slices.Contains(flags, f) {
						flags = append(flags, f)
					}
				}
				fmt.Fprintf(e.stdout, "%-11s %7.3f %15s %7.3f %15s  %s\n", r.Model, r.AB, interval(r.ABEst), r.BA, interval(r.BAEst), strings.Join(flags, " "))
				for _, x := range []model.Estimate{r.ABEst, r.BAEst} {
					if x.OutOfRange {
						notes = append(notes, fmt.Sprintf("%s: raw prediction %.3f is outside the plausible range; set to the nearest bound", r.Model, x.Raw))
					}
				}
			}
			if len(rows) > 0 {
				if u := rows[0].ABEst.Unseen; len(u) > 0 {
					notes = append(notes, fmt.Sprintf("%s had no training pair on %s: the predictions rest on features alone (out of distribution) and the intervals are widened", strings.Join(u, " and "), device))
				}
				if rows[0].ABEst.Uncalibrated {
					notes = append(notes, "intervals span the plausible range: the models were fit without calibration (too few pairs, or --folds 0)")
				}
			}
			for _, n := range notes {
				fmt.Fprintln(e.stderr, "note:", n)
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
