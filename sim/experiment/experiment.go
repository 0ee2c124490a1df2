package experiment

import (
	"fmt"
	"io"
	"strings"

	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/peers"
	"github.com/coloc-dev/coloc/sim/policies"
)

// All returns every policy `coloc simulate` knows: the baselines of
// package sim, the published peers and the foresight reference (package
// peers), then the model-driven ones built with c, in --help order. With
// Gavel's settings (sim.Env.Settings) fifo is Gavel's fifo.
func All(c policies.Config) []sim.PolicyInfo {
	out := sim.Baselines()
	for i := range out {
		if out[i].Name != "fifo" {
			continue
		}
		own := out[i].New
		out[i].New = func(e sim.Env) (sim.Policy, error) {
			if e.Settings == SettingsGavel {
				return peers.NewGavelFIFO(e.Solo, e.Seed), nil
			}
			return own(e)
		}
	}
	out = append(out, peers.Peers()...)
	return append(out, policies.Policies(c)...)
}

// Experiment is one replay of a trace on a cluster under several
// policies: what `coloc simulate` runs and what a report calls, so both
// give the same numbers.
type Experiment struct {
	Jobs     []sim.TraceJob
	Topology *sim.Topology
	Truth    sim.Rates // the simulator's ground truth (sim.NewMeasured)
	// Env builds the policies; its Solo and Truth are filled from Truth
	// when nil.
	Env sim.Env
	// Config holds the model-driven policies' knobs (package
	// sim/policies).
	Config   policies.Config
	Options  sim.Options
	Policies []string // names in All()
	// Progress, when set, gets a line now and then while a replay runs
	// for more than a few seconds (jobs completed, time spent and left).
	Progress io.Writer
}

// Check validates the policy names, the options, the cluster and the
// ground truth.
func (x *Experiment) Check() ([]sim.PolicyInfo, error) {
	infos, err := x.CheckNames()
	if err != nil {
		return nil, err
	}
	if x.Topology == nil || x.Truth == nil {
		return nil, fmt.Errorf("experiment without a cluster or ground truth")
	}
	return infos, nil
}

// CheckNames validates the policy names and the policies' settings, what
// can be checked before any file is read.
func (x *Experiment) CheckNames() ([]sim.PolicyInfo, error) {
	if len(x.Policies) == 0 {
		return nil, fmt.Errorf("no policy given")
	}
	known := All(x.Config)
	var out []sim.PolicyInfo
	for _, name := range x.Policies {
		p, err := sim.Lookup(known, strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if err := x.Config.Check(); err != nil {
		return nil, err
	}
	if d := x.Options.Degree; d != "" && d != sim.DegreeTrace && d != sim.DegreePolicy {
		return nil, fmt.Errorf("degree %q: want %s or %s", d, sim.DegreeTrace, sim.DegreePolicy)
	}
	return out, nil
}

// Run builds each policy and replays the jobs under it, in the order of
// Policies. The first error stops it.
func (x *Experiment) Run() ([]*sim.Result, error) {
	infos, err := x.Check()
	if err != nil {
		return nil, err
	}
	env := x.Env
	if env.Solo == nil {
		env.Solo = sim.SoloOnly(x.Truth)
	}
	if env.Truth == nil {
		env.Truth = x.Truth
	}
	var out []*sim.Result
	for _, info := range infos {
		pol, err := info.New(env)
		if err != nil {
			return nil, err
		}
		opt := x.Options
		if x.Progress != nil && opt.Progress == nil {
			opt.Progress = newProgressLines(x.Progress).report
		}
		res, err := sim.Run(x.Topology, x.Jobs, x.Truth, pol, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}
