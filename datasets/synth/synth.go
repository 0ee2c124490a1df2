// Package synth writes synthetic catalogues of workloads as dataset
// directories: the catalogues the models' scale benchmarks draw
// (model.Catalogue), on disk, so that `coloc fit`, `coloc eval` and
// `coloc report` run on them like on any measured dataset.
//
// A catalogue becomes two tables: solo.arrow (one row per workload, its
// solo throughput and its 2·rank latent descriptors u1..uk, v1..vk as
// feature columns) and pairs.arrow (every measured ordered pair, status
// ok, its normalized throughput and the co-located throughput that
// follows from it), with a workloads.json that lists each workload as
// model "synthetic" and nothing more: the workloads have no architecture
// to describe, and an entry tells features.Build so instead of leaving it
// to warn about every unknown workload. No runs, no samples.
//
// What differs from the in-memory catalogue the benchmarks use: the
// dataset's features are built by features.Build, which files the solo
// table's feature columns as measured features (the dataset format has
// no place for arbitrary descriptors) and puts the throughput first. The
// pairs, their values and the feature values are the same numbers, so
// the noise floor is the same; the models see the same information in a
// different column order and without descriptors, so their errors can
// differ slightly from the benchmarks' (docs/performance.md gives both).
//
// The conversion is deterministic: the same options write byte-identical
// files.
//
// A second kind, DrawCounters (counters.go), draws a dataset whose
// interference follows from solo counters on several device types: the
// dataset with rich solo counters and a known structure that the model
// comparison with tree ensembles runs on (docs/models.md).
package synth

import (
	"fmt"
	"math"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/model"
)

// Options choose the catalogue and how it is written.
type Options struct {
	model.CatalogueOptions
	// DeviceType names the one device type the catalogue is measured on
	// ("gpu" when empty). The generator draws one slot per catalogue.
	DeviceType string
}

// Source is the value of the source column of every row written for o.
func (o Options) Source() string {
	c := o.CatalogueOptions
	return fmt.Sprintf("synthetic:catalogue jobs=%d partners=%d rank=%d noise=%g feature_noise=%g seed=%d",
		c.Jobs, c.Partners, c.Rank, c.Noise, c.FeatureNoise, c.Seed)
}

// Catalogue is a drawn catalogue as dataset tables.
type Catalogue struct {
	Solo  *datasets.SoloTable
	Pairs *datasets.Pairs
	// Workloads name each workload's model "synthetic" (no descriptors).
	Workloads []datasets.WorkloadMeta
	// NoiseFloor is the MAE no model can beat on average (the options'
	// model.CatalogueOptions.NoiseFloor).
	NoiseFloor float64
}

// Draw draws the catalogue of o and converts it to tables.
func Draw(o Options) (*Catalogue, error) {
	d, err := model.Catalogue(o.CatalogueOptions)
	if err != nil {
		return nil, err
	}
	dev := o.DeviceType
	if dev == "" {
		dev = "gpu"
	}
	if strings.TrimSpace(dev) != dev || strings.ContainsAny(dev, "@/") {
		return nil, fmt.Errorf("device type %q: no spaces around it, no '@' or '/'", dev)
	}
	c, err := fromData(d, dev, o.Source())
	if err != nil {
		return nil, err
	}
	c.NoiseFloor = o.NoiseFloor()
	return c, nil
}

// fromData converts a one-slot Data whose features are plain numbers and
// a log-scaled throughput (what model.Catalogue draws).
func fromData(d *model.Data, dev, source string) (*Catalogue, error) {
	sp := d.Space
	if len(sp.Slots) != 1 {
		return nil, fmt.Errorf("catalogue has %d slots; the conversion writes one", len(sp.Slots))
	}
	var feat []int // indices of sp.Features written as solo feature columns
	solo := &datasets.SoloTable{ThroughputUnit: datasets.UnitSamplesPerS}
	for i, name := range sp.Features {
		switch {
		case name == "log10_throughput":
		case strings.HasPrefix(name, "log10_") || strings.Contains(name, "="):
			return nil, fmt.Errorf("feature %q: only plain numeric features convert", name)
		default:
			feat = append(feat, i)
			solo.Features = append(solo.Features, datasets.Feature{Name: name, Unit: datasets.UnitRatio})
		}
	}
	nj := len(sp.Jobs)
	solo.Rows = make([]datasets.Solo, nj)
	metas := make([]datasets.WorkloadMeta, nj)
	for j, w := range sp.Jobs {
		x := sp.X[j]
		if x == nil {
			return nil, fmt.Errorf("workload %q has no features", w)
		}
		r := datasets.Solo{
			Workload: w, DeviceType: dev, Degree: sp.Slots[0].Degree,
			Throughput: sp.Throughput[j],
			CILow:      math.NaN(), CIHigh: math.NaN(), PeakMemory: math.NaN(),
			Source:   source,
			Features: make([]float64, len(feat)),
		}
		for k, i := range feat {
			r.Features[k] = x[i]
		}
		solo.Rows[j] = r
		metas[j] = datasets.WorkloadMeta{Workload: w, Model: "synthetic", Source: source}
	}
	pairs := &datasets.Pairs{ThroughputUnit: datasets.UnitSamplesPerS, Rows: make([]datasets.Pair, len(d.Obs))}
	for i, ob := range d.Obs {
		s := sp.Throughput[ob.A]
		pairs.Rows[i] = datasets.Pair{
			Workload: sp.Jobs[ob.A], Partner: sp.Jobs[ob.B], DeviceType: dev, Degree: sp.Slots[0].Degree,
			Solo: s, Colocated: ob.Y * s, Normalized: ob.Y,
			NormLow: math.NaN(), NormHigh: math.NaN(),
			Status: datasets.StatusOK, Source: source,
		}
	}
	return &Catalogue{Solo: solo, Pairs: pairs, Workloads: metas}, nil
}

// Write writes the catalogue into dir: solo.arrow and pairs.arrow as one
// change of the directory (datasets.ReplaceDir), then workloads.json.
func (c *Catalogue) Write(dir string) error {
	if err := datasets.ReplaceDir(dir, c.Solo.Table(), c.Pairs.Table()); err != nil {
		return err
	}
	return datasets.WriteWorkloads(datasets.WorkloadsPath(dir), c.Workloads)
}
