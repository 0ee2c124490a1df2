package experiment

import (
	"fmt"

	"github.com/coloc-dev/coloc/sim"
)

// The simulator's settings.
const (
	// SettingsColoc is this simulator's model: policies are asked at every
	// arrival, completion and round tick; a job moved or resumed pays the
	// restart penalty; a job spread over nodes runs at the measured
	// "unconsolidated" rate, or cannot spread where none was measured.
	SettingsColoc = "coloc"
	// SettingsGavel is Gavel's simulator's model: policies are asked at
	// round boundaries only (a round lasts 360 s, or ends when its last
	// job does; an idle cluster starts one at the next arrival), in which
	// each job does a whole number of iterations (sim.Options.WholeSteps);
	// moving or resuming a job is free; a job's rate does not depend on where
	// its GPUs are (Gavel re-places every job every round); fifo is
	// Gavel's fifo (peers.NewGavelFIFO).
	SettingsGavel = "gavel"
)

// ApplySettings sets x's options and inputs for settings s and returns
// an error for an unknown name; the options in explicit win over the
// settings' values.
func ApplySettings(s string, x *Experiment, in *Inputs, explicit Explicit) error {
	if err := applySettings(s, x, in); err != nil {
		return err
	}
	if explicit.Round >= 0 {
		x.Options.Round = explicit.Round
	}
	if explicit.RestartPenalty >= 0 {
		x.Options.RestartPenalty = explicit.RestartPenalty
	}
	return nil
}

// Explicit holds the options a command line gave explicitly, which win
// over the settings' values; NotGiven (or any negative value) keeps them.
type Explicit struct {
	Round, RestartPenalty float64
}

// NotGiven marks an option of Explicit the command line left out.
const NotGiven = -1

func applySettings(s string, x *Experiment, in *Inputs) error {
	switch s {
	case "", SettingsColoc:
		x.Env.Settings = SettingsColoc
	case SettingsGavel:
		x.Env.Settings = SettingsGavel
		x.Options.Schedule = sim.ScheduleRounds
		x.Options.WholeSteps = true
		x.Options.Round = 360
		x.Options.RestartPenalty = 0
		if in != nil {
			in.FreeSpread = true
		}
	default:
		return fmt.Errorf("settings %q: want %s or %s", s, SettingsColoc, SettingsGavel)
	}
	return nil
}
