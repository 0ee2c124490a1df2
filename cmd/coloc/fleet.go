package main

import (
	"path/filepath"
	"strconv"

	"github.com/coloc-dev/coloc/profile/fleet"
	"github.com/spf13/cobra"
)

// fleetFlags are the flags shared by the commands that write a fleet
// campaign for a cluster manager (profile slurm, profile k8s): the plan and
// run flags of `coloc profile run`, the fleet directory, the number of
// shards and the GPUs of each shard.
type fleetFlags struct {
	pf     planFlags
	rf     runFlags
	out    string
	shards int
	gpus   int
}

func (f *fleetFlags) register(cmd *cobra.Command, gpusFlag, gpusHelp string) {
	f.pf.registerPlan(cmd)
	f.rf.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "fleet directory: fleet.json, the script or manifest, shards/<i> (the merged campaign comes here too)")
	fl.IntVar(&f.shards, "shards", 0, "number of shards (tasks, pods); runs are dealt to balance estimated time")
	fl.IntVar(&f.gpus, gpusFlag, 1, gpusHelp)
	fl.Lookup("device").Usage = "cuda or cpu (default cuda, or cpu with --" + gpusFlag + " 0)"
	cmd.MarkFlagRequired("out")
	cmd.MarkFlagRequired("shards")
}

// fleet builds the fleet: the plan for f.gpus GPUs per shard (none on CPU),
// split into f.shards shards. gpusFlag names the GPU flag in messages.
func (f *fleetFlags) fleet(cmd *cobra.Command, gpusFlag string) (*fleet.Fleet, string, error) {
	if err := f.rf.check(); err != nil {
		return nil, "", err
	}
	device, gpus, err := fleet.Device(f.pf.device, f.gpus, cmd.Flags().Changed(gpusFlag), gpusFlag)
	if err != nil {
		return nil, "", err
	}
	f.gpus = gpus
	dir, err := filepath.Abs(f.out)
	if err != nil {
		return nil, "", err
	}
	s, plan, err := f.pf.plan(f.gpus)
	if err != nil {
		return nil, "", err
	}
	args := []string{"--device", device}
	if f.gpus > 0 {
		args = append(args, "--gpus", strconv.Itoa(f.gpus))
	}
	args = append(append(args, f.pf.args()...), f.rf.args()...)
	set := fleet.Settings{Device: device, GPUs: f.gpus, DurationS: f.pf.duration.Seconds(),
		WarmupS: f.rf.warmup.Seconds(), Share: f.rf.share}
	fl, err := fleet.New(filepath.Base(dir), s, plan, f.shards, set, args)
	if err != nil {
		return nil, "", err
	}
	return fl, dir, nil
}
