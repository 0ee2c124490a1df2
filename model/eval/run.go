package eval

import (
	"fmt"
	"io"
	"runtime"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/model"
)

// Options controls Run.
type Options struct {
	Protocols []string
	Fractions []float64
	Seeds     int      // seeds 1..Seeds
	Models    []string // model names
	// Devices are the slots evaluated ("v100"); empty: every slot with
	// measured pairs except spread device types (datasets.SpreadType), whose
	// single-GPU pairs repeat those of the base type.
	Devices []string
	// Progress, when not nil, receives one line per finished (model,
	// protocol, device).
	Progress io.Writer
	// Workers is the number of fits run at once; 0: GOMAXPROCS. The
	// result does not depend on it.
	Workers int
	// Trust calibrates each fit's intervals (Folds < 2: none; coverage and
	// width are then NaN).
	Trust model.TrustOptions
}

// DefaultOptions are the defaults of `coloc eval`. Intervals are not
// calibrated by default (Trust.Folds 0): calibrating with the model file's
// 10 folds costs eleven fits per fit, which would put the usual sweep far
// past a minute; `coloc eval --folds 10` scores coverage and width.
var DefaultOptions = Options{
	Protocols: []string{"pairs"},
	Fractions: []float64{0.1, 0.2, 0.5, 0.8},
	Seeds:     5,
	Models:    model.Names(),
	Trust:     model.TrustOptions{Coverage: model.DefaultTrustOptions.Coverage},
}

// defaultSlots returns the default evaluated slots: those with measured pairs,
// except spread device types (datasets.SpreadType).
func defaultSlots(d *model.Data) []string {
	has := map[int]bool{}
	for _, o := range d.Obs {
		has[o.S] = true
	}
	var out []string
	for s, sl := range d.Space.Slots {
		if _, spread := datasets.BaseType(sl.DeviceType); has[s] && !spread {
			out = append(out, sl.String())
		}
	}
	return out
}

// Cell is the score of one model under one protocol on one slot for one
// fraction and seed.
type Cell struct {
	Model    string  `json:"model"`
	Protocol string  `json:"protocol"`
	Device   string  `json:"device"`
	Fraction float64 `json:"fraction"`
	Seed     int     `json:"seed"`
	Metrics
}

// Summary is the median over seeds of the cells of one (model, protocol,
// device, fraction).
type Summary struct {
	Model           string  `json:"model"`
	Protocol        string  `json:"protocol"`
	Device          string  `json:"device"`
	Fraction        float64 `json:"fraction"`
	Seeds           int     `json:"seeds"`
	NTest           int     `json:"n_test"`
	MAEMedian       float64 `json:"mae_median"`
	RMSEMedian      float64 `json:"rmse_median"`
	MAPEMedian      float64 `json:"mape_median"`
	R2Median        float64 `json:"r2_median"`
	SpearmanMedian  float64 `json:"spearman_median"`
	AgreementMedian float64 `json:"agreement_median"`
	CoverageMedian  float64 `json:"coverage_median"`
	WidthMedian     float64 `json:"width_median"`
	// OutOfRangeMedian is the median share of predictions over unmeasured
	// pairs outside the plausible range (Metrics.OutOfRange).
	OutOfRangeMedian float64 `json:"out_of_range_median"`
}

// Result holds every cell and their summaries.
type Result struct {
	Cells     []Cell
	Summaries []Summary
	Warnings  []string
	// Fits is the number of model fits scored (a new-job cell fits once
	// per hidden workload), calibration fits not counted; Skipped the
	// cells that could not be fit (each named in Warnings).
	Fits, Skipped int
}

// Run evaluates every model under every protocol, slot, fraction and seed.
func Run(d *model.Data, o Options) (*Result, error) {
	devices := o.Devices
	if len(devices) == 0 {
		devices = defaultSlots(d)
	}
	slots := make([]int, len(devices))
	for i, name := range devices {
		s, err := d.Space.Slot(name)
		if err != nil {
			return nil, err
		}
		slots[i] = s
	}
	has := map[int]bool{}
	for _, o := range d.Obs {
		has[o.S] = true
	}
	for i, s := range slots {
		if !has[s] {
			return nil, fmt.Errorf("device %s has no measured pairs", devices[i])
		}
	}
	if o.Seeds < 1 {
		return nil, fmt.Errorf("seeds must be at least 1")
	}
	for _, f := range o.Fractions {
		if !(f >= 0 && f < 1) {
			return nil, fmt.Errorf("fraction %v is not in [0, 1)", f)
		}
	}
	return runFits(d, o, devices)
}

func summarise(cells []Cell) Summary {
	c0 := cells[0]
	s := Summary{Model: c0.Model, Protocol: c0.Protocol, Device: c0.Device, Fraction: c0.Fraction, Seeds: len(cells)}
	col := func(f func(c Cell) float64) float64 {
		xs := make([]float64, len(cells))
		for i, c := range cells {
			xs[i] = f(c)
		}
		return median(xs)
	}
	s.NTest = int(col(func(c Cell) float64 { return float64(c.N) }))
	s.MAEMedian = col(func(c Cell) float64 { return c.MAE })
	s.RMSEMedian = col(func(c Cell) float64 { return c.RMSE })
	s.MAPEMedian = col(func(c Cell) float64 { return c.MAPE })
	s.R2Median = col(func(c Cell) float64 { return c.R2 })
	s.SpearmanMedian = col(func(c Cell) float64 { return c.Spearman })
	s.AgreementMedian = col(func(c Cell) float64 { return c.Agreement })
	s.CoverageMedian = col(func(c Cell) float64 { return c.Coverage })
	s.WidthMedian = col(func(c Cell) float64 { return c.Width })
	s.OutOfRangeMedian = col(func(c Cell) float64 { return c.OutOfRange })
	return s
}

// DefaultDevices returns the devices Run evaluates when Options.Devices is
// empty: the slots with measured pairs, except spread device
// types (datasets.SpreadType).
func DefaultDevices(d *model.Data) []string { return defaultSlots(d) }

// DefaultWorkers is one worker per CPU Go may use.
func DefaultWorkers() int { return runtime.GOMAXPROCS(0) }
