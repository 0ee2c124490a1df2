package next

import (
	"fmt"
	"math"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/model"
)

// Options say how to choose the pairs to profile next.
type Options struct {
	Data string // dataset directory (solo runs at least)
	// Models, when set, is a model directory written by `coloc fit`: the
	// conformal quantiles of its model Model scale the interval widths
	// per device.
	Models, Model string
	// Device is the device type to choose pairs on; "" takes the
	// dataset's only one.
	Device   string
	Strategy string // model.Strategies
	Budget   int    // pairs to choose
	Seed     uint64 // seed of the random order ties are broken in
}

// Choice are the pairs chosen to profile next, best first.
type Choice struct {
	Pairs    [][2]string
	Comments []string // per pair: its device, the strategy and the pair's value
	Device   string   // the slot chosen on, e.g. "v100"
	// Measured counts the measured pairs of the dataset, InTable every
	// unordered pair of its pairs table (measured, suspect, infeasible or
	// failed): those are never chosen.
	Measured, InTable int
}

// maxModelFileBytes is the largest file of a model directory Choose
// lets model's readers read (place.MaxModelFileBytes, which profile sits
// below).
const maxModelFileBytes = 1 << 30

// Choose ranks the pairs of the dataset's workloads not yet in its
// pairs table (a workload next to itself included) on one device by the
// value of measuring them (model.SelectPairs) and returns the best
// o.Budget of them.
func Choose(o Options) (*Choice, error) {
	set, err := features.BuildDir(o.Data)
	if err != nil {
		return nil, err
	}
	sp, err := model.NewSpace(set)
	if err != nil {
		return nil, err
	}
	ds, err := datasets.Open(o.Data)
	if err != nil {
		return nil, err
	}
	var slots []int
	if o.Device != "" {
		s, err := sp.Slot(o.Device)
		if err != nil {
			return nil, err
		}
		slots = []int{s}
	} else {
		for s, sl := range sp.Slots {
			if sl.Degree == 1 {
				slots = append(slots, s)
			}
		}
		if len(slots) != 1 {
			names := make([]string, len(slots))
			for i, s := range slots {
				names[i] = sp.Slots[s].String()
			}
			return nil, fmt.Errorf("%s holds %d devices (%s): say which with --device", o.Data, len(slots), strings.Join(names, ", "))
		}
	}
	var measured []model.Obs
	skip := map[[3]int]bool{}
	if ds.Pairs != nil {
		for i, p := range ds.Pairs.Rows {
			s := sp.SlotIndex(model.Slot{DeviceType: p.DeviceType, Degree: p.Degree})
			a, errA := sp.Job(p.Workload)
			b, errB := sp.Job(p.Partner)
			if s < 0 || errA != nil || errB != nil {
				return nil, fmt.Errorf("%s: pairs row %d: %s|%s on %s at degree %d has no solo features", o.Data, i+1, p.Workload, p.Partner, p.DeviceType, p.Degree)
			}
			skip[[3]int{min(a, b), max(a, b), s}] = true
			if p.Measured() {
				measured = append(measured, model.Obs{A: a, B: b, S: s, Y: p.Normalized})
			}
		}
	}
	so := model.SelectOptions{Strategy: o.Strategy, Budget: o.Budget, Seed: o.Seed}
	if o.Models != "" {
		// model's readers read a file whole: a named pipe or a link to
		// /dev/zero in the directory is refused first.
		if err := inputfile.CheckDir(o.Models, "a model file", maxModelFileBytes); err != nil {
			return nil, err
		}
		ls, err := model.LoadDir(o.Models, []string{o.Model})
		if err != nil {
			return nil, err
		}
		tr, fr := ls[0].File.Trust, ls[0].Frame
		so.Quantile = make([]float64, len(sp.Slots))
		for s, sl := range sp.Slots {
			so.Quantile[s] = math.NaN()
			if k := fr.SlotIndex(sl); k >= 0 {
				so.Quantile[s] = tr.Quantile[k]
			}
		}
	}
	picks, err := model.SelectPairs(sp, measured, skip, slots, so)
	if err != nil {
		return nil, err
	}
	out := &Choice{Device: sp.Slots[slots[0]].String(), Measured: len(measured), InTable: len(skip),
		Pairs: make([][2]string, len(picks)), Comments: make([]string, len(picks))}
	for i, c := range picks {
		out.Pairs[i] = [2]string{sp.Jobs[c.A], sp.Jobs[c.B]}
		out.Comments[i] = fmt.Sprintf("%s, %s value %.4g", sp.Slots[c.S], o.Strategy, c.Gain)
	}
	return out, nil
}
