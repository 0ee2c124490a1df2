package main

import (
	"encoding/json"
	"errors"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place"
	"github.com/spf13/cobra"
)

func newPredictCmd(e *env) *cobra.Command {
	var dir, device, only, data string
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
With --data, the dataset's files are first checked against the SHA-256 the
model index records of the data the models were fit on; another dataset is
refused. See docs/predictions.md.`,
		Example: `  coloc predict --models out/models --device v100 "ResNet-50 (batch size 64)" "LM (batch size 20)"
  coloc predict --models out/models --data datasets/reference/gavel --device k80 --only iasp,bias --json A3C CycleGAN`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var names []string
			if only != "" {
				var err error
				if names, err = model.ParseNames(only); err != nil {
					return err
				}
			}
			notes, err := place.CheckFitData(dir, data)
			if err != nil {
				return err
			}
			e.say("note:", notes...)
			ms, err := model.LoadDir(dir, names)
			if err != nil {
				return err
			}
			rows, err := place.PredictPair(ms, args[0], args[1], device)
			var uj *place.UnknownJobError
			if errors.As(err, &uj) {
				return unknownJob(uj.Err, uj.Job, uj.Known)
			} else if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				for _, r := range rows {
					if err := enc.Encode(struct {
						place.PairPrediction
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
			e.say("note:", place.WritePredictions(e.stdout, rows, args[0], args[1], device, cov)...)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "models", "", "model directory written by 'coloc fit'")
	cmd.Flags().StringVar(&device, "device", "", "device type (slot) the two jobs share, e.g. v100")
	cmd.Flags().StringVar(&data, "data", "", "the dataset the models were fit on: its files are checked against the SHA-256 the model index records")
	cmd.Flags().StringVar(&only, "only", "", "comma-separated models to use (default: all in MODELDIR)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per model")
	cmd.MarkFlagRequired("models")
	cmd.MarkFlagRequired("device")
	completeValues(cmd, "only", model.Names())
	cmd.RegisterFlagCompletionFunc("device", completeSlots)
	cmd.ValidArgsFunction = completeJobs
	return cmd
}
