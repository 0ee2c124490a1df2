package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/coloc-dev/coloc/datasets/synth"
	"github.com/coloc-dev/coloc/model"
	"github.com/spf13/cobra"
)

func newSynthCmd(e *env) *cobra.Command {
	o := synth.Options{CatalogueOptions: model.DefaultCatalogueOptions}
	co := synth.DefaultCounterOptions
	var out, kind string
	var force bool
	cmd := &cobra.Command{
		Use:   "synth -o DIR [--kind catalogue|counters] [--workloads N] [--noise SIGMA] [--seed S]",
		Short: "Write a synthetic dataset of workloads with a known structure and noise floor",
		Long: `Draws a synthetic catalogue of workloads whose interference has a known
low-rank structure and writes it as a dataset directory (solo.arrow and
pairs.arrow), for measuring the models' speed and accuracy at catalogue
sizes no measured dataset has. It is the generator of the models' scale
benchmarks (docs/performance.md).

Workload j has a victim factor u_j and an aggressor factor v_j of --rank
standard normal entries. The normalized throughput of A next to B is

  y = 0.7 + 0.1·(u_A·v_B)/sqrt(rank) + noise·ε,   ε ~ N(0, 1)

A pair {A, B} is measured, both orders, with probability
partners/(workloads-1) (--partners 0: every pair). The solo table gives each
workload a solo throughput unrelated to interference and feature columns
u1..uk, v1..vk: the factors plus N(0, feature-noise²).

The noise floor, noise·sqrt(2/π), is the mean absolute error of a predictor
that knows every noise-free value: no model beats it on average, and it is
printed so that 'coloc eval' results can be read against it.

--kind counters draws instead a dataset whose interference follows from
solo counters, on several device types (--devices, default
rtx3090,a100-80gb; --workloads default 24): workload j has an SM demand
s_j and a memory-bandwidth demand b_j (shares of a GPU; bandwidth demand
falls by 1+0.5i on the i-th later device type), a sensitivity g_j no
counter shows, and

  y = 0.97 · min(1, 1/L)^g_A + noise·ε,   L = max(s_A + s_B, b_A + b_B)

The solo table carries sm_util and mem_bw_util (%, read with noise) and
peak_memory; every pair, a job next to itself included, is measured
unless --partners says otherwise. It is the "dataset with rich solo
counters" of docs/models.md. --rank and --feature-noise do not apply.

The same options write byte-identical files, so anyone can redraw the
catalogue behind a published number from its command line.`,
		Example: `  # the 400-workload catalogue of the scale numbers, then its eval sweep
  coloc datasets synth -o /tmp/cat400 --workloads 400
  coloc eval /tmp/cat400 --protocol pairs --fractions 0.2 --seeds 1

  # a sparse catalogue: each workload measured with about 50 partners
  coloc datasets synth -o /tmp/cat1000 --workloads 1000 --partners 50 --seed 2

  # 24 workloads with SM and bandwidth counters on two device types
  coloc datasets synth -o /tmp/counters --kind counters`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !force {
				if ents, err := os.ReadDir(out); err == nil && len(ents) > 0 {
					return fmt.Errorf("%s: exists and is not empty (--force replaces its tables)", out)
				} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
			}
			var c *synth.Catalogue
			var devices, shape string // for the summary line
			switch kind {
			case "catalogue":
				if f := cmd.Flags(); f.Changed("devices") {
					return fmt.Errorf("--devices is for --kind counters; a catalogue has one device type (--device-type)")
				}
				var err error
				if c, err = synth.Draw(o); err != nil {
					return err
				}
				devices, shape = c.Solo.Rows[0].DeviceType, fmt.Sprintf("rank %d", o.Rank)
			case "counters":
				f := cmd.Flags()
				for _, n := range []string{"rank", "feature-noise", "device-type"} {
					if f.Changed(n) {
						return fmt.Errorf("--%s does not apply to --kind counters", n)
					}
				}
				if !f.Changed("workloads") {
					o.Jobs = synth.DefaultCounterOptions.Jobs
				}
				co.Jobs, co.Partners, co.Noise, co.Seed = o.Jobs, o.Partners, o.Noise, o.Seed
				var err error
				if c, err = synth.DrawCounters(co); err != nil {
					return err
				}
				devices, shape = strings.Join(co.Devices, ", "), "counters"
			default:
				return fmt.Errorf("--kind %q: want catalogue or counters", kind)
			}
			if err := c.Write(out); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote %s: %d workloads, %d pairs on %s (%s, noise %g, seed %d)\n",
				out, len(c.Workloads), len(c.Pairs.Rows), devices, shape, o.Noise, o.Seed)
			fmt.Fprintf(e.stdout, "noise floor MAE: %.4f (noise·sqrt(2/π): no model beats it on average)\n", c.NoiseFloor)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "out", "o", "", "output dataset directory")
	f.IntVar(&o.Jobs, "workloads", o.Jobs, "number of workloads (at least 2)")
	f.IntVar(&o.Partners, "partners", o.Partners, "expected partners measured per workload; 0 = every pair")
	f.IntVar(&o.Rank, "rank", o.Rank, "rank of the interaction between workloads")
	f.Float64Var(&o.Noise, "noise", o.Noise, "standard deviation σ of the measurement noise on normalized throughput")
	f.Float64Var(&o.FeatureNoise, "feature-noise", o.FeatureNoise, "standard deviation of the noise on the factor features (0: they reveal the factors)")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "random seed; the same options write the same bytes")
	f.StringVar(&o.DeviceType, "device-type", "gpu", "name of the one device type the catalogue is measured on")
	f.StringVar(&kind, "kind", "catalogue", "catalogue (low-rank, one device type) or counters (interference from solo counters, several device types)")
	f.StringSliceVar(&co.Devices, "devices", co.Devices, "device types of --kind counters")
	f.BoolVar(&force, "force", false, "replace the tables of a non-empty output directory")
	cmd.MarkFlagRequired("out")
	return cmd
}
