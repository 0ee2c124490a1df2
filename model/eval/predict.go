package eval

import (
	"fmt"

	"github.com/coloc-dev/coloc/model"
)

// Split names one split of the evaluation: a protocol on one device (slot)
// at one fraction of observed pairs and one seed. It is the same split Run
// scores for that (protocol, device, fraction, seed).
type Split struct {
	Protocol string
	Device   string
	Fraction float64
	Seed     int
}

func (s Split) String() string {
	return fmt.Sprintf("%s on %s, fraction %g, seed %d", s.Protocol, s.Device, s.Fraction, s.Seed)
}

// Prediction is one held-out pair of a split: the measured normalized
// throughput of Workload next to Partner and a model's prediction of it.
type Prediction struct {
	Model     string
	Device    string
	Workload  string
	Partner   string
	Measured  float64
	Predicted float64
}

// Predict fits each model on the observed pairs of one split and returns
// its predictions of the split's held-out pairs: the per-pair view of the
// cell Run scores for that split (the same fits, so the same errors). The
// order is model order, then the split's order of held-out pairs.
func Predict(d *model.Data, models []string, sp Split) ([]Prediction, error) {
	if _, err := ParseProtocols(sp.Protocol); err != nil || sp.Protocol == "" || sp.Protocol == "all" {
		return nil, fmt.Errorf("split %s: protocol must be one of %v", sp, Protocols)
	}
	if !(sp.Fraction >= 0 && sp.Fraction < 1) {
		return nil, fmt.Errorf("split %s: fraction is not in [0, 1)", sp)
	}
	if sp.Seed < 1 {
		return nil, fmt.Errorf("split %s: seed must be at least 1", sp)
	}
	tasks, err := splitTasks(d, sp, nil)
	if err != nil {
		return nil, err
	}
	var out []Prediction
	for _, name := range models {
		for _, tk := range tasks {
			xs, err := fitAndScore(d.Space, name, tk, sp.Seed)
			if err != nil {
				return nil, fmt.Errorf("%s, %s: %w", name, sp, err)
			}
			for _, x := range xs {
				out = append(out, Prediction{
					Model: name, Device: sp.Device,
					Workload: d.Space.Jobs[x.a], Partner: d.Space.Jobs[x.b],
					Measured: x.y, Predicted: x.p,
				})
			}
		}
	}
	return out, nil
}

// splitTasks returns the tasks of one split. devices are the evaluated
// devices whose pairs cross-device trains on besides the target's; nil
// means the default devices (those Run evaluates when Options.Devices is
// empty).
func splitTasks(d *model.Data, sp Split, devices []string) ([]task, error) {
	s, err := d.Space.Slot(sp.Device)
	if err != nil {
		return nil, err
	}
	var target, others []model.Obs
	for _, o := range d.Obs {
		if o.S == s {
			target = append(target, o)
		}
	}
	if len(target) == 0 {
		return nil, fmt.Errorf("device %s has no measured pairs", sp.Device)
	}
	if sp.Protocol == "cross-device" {
		if devices == nil {
			devices = defaultSlots(d)
		}
		// The order Run trains on: device by device, each in data order.
		for _, name := range devices {
			t, err := d.Space.Slot(name)
			if err != nil {
				return nil, err
			}
			if t == s {
				continue
			}
			for _, o := range d.Obs {
				if o.S == t {
					others = append(others, o)
				}
			}
		}
		if len(devices) < 2 {
			return nil, fmt.Errorf("cross-device needs at least two devices")
		}
	}
	return split(sp.Protocol, target, others, sp.Device, sp.Fraction, sp.Seed, len(d.Space.Jobs)), nil
}
