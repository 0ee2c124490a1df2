package features

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
)

// BuildDir opens the dataset in dir and builds its feature set: Build of
// datasets.Open(dir).
func BuildDir(dir string) (*Set, error) {
	ds, err := datasets.Open(dir)
	if err != nil {
		return nil, err
	}
	return Build(ds)
}

// Build returns one feature row per solo row of the dataset: the
// workload's descriptors (from the dataset's workloads.json, else the
// known model of its family), its solo throughput (and samples/s when the
// throughput is in iterations/s and the batch size is known), peak memory,
// the solo table's own feature columns, and counter summaries when the
// dataset has both runs and samples (the samples are streamed, never held
// whole). Numeric columns with no value at all are left out. The SHA-256
// of each data file (ds.Files) goes into the set's Meta as
// coloc.data.<file>.
func Build(ds *datasets.Dataset) (*Set, error) {
	if ds.Solo == nil || len(ds.Solo.Rows) == 0 {
		return nil, fmt.Errorf("%s: no solo table: features come from solo measurements", ds.Dir)
	}
	solo := ds.Solo
	meta := Descriptors(ds.Workloads)
	s := &Set{Meta: map[string]string{
		"coloc.features.descriptors_version": strconv.Itoa(DescriptorsVersion),
	}}

	// Descriptors, one per workload.
	desc := map[string]Descriptor{}
	var undescribed []string
	kinds := map[string]bool{}
	classes, precisions := map[string]bool{}, map[string]bool{}
	for _, r := range solo.Rows {
		if _, done := desc[r.Workload]; done {
			continue
		}
		d, ok := describe(r.Workload, meta, r.BatchSize)
		if !ok {
			undescribed = append(undescribed, r.Workload)
		}
		if d.Estimate {
			s.Meta["coloc.features.estimated."+d.Model] = d.Source
		}
		desc[r.Workload] = d
		for k := range d.Layers {
			kinds[k] = true
		}
		if d.Class != "" {
			classes[d.Class] = true
		}
		if d.Precision != "" {
			precisions[d.Precision] = true
		}
	}
	if len(undescribed) > 0 {
		s.Warnings = append(s.Warnings, undescribedWarning(undescribed, len(desc)))
	}
	layerKinds := sortedSet(kinds)
	s.Columns = append(s.Columns,
		Column{Name: "params", Unit: "count", Group: GroupDescriptor, Log: true},
		Column{Name: "flops_per_sample", Unit: "FLOP", Group: GroupDescriptor, Log: true},
		Column{Name: "batch_size", Unit: datasets.UnitSamples, Group: GroupDescriptor, Log: true},
	)
	for _, k := range layerKinds {
		s.Columns = append(s.Columns, Column{Name: "layers_" + k, Unit: "count", Group: GroupDescriptor})
	}
	classCol := len(s.Columns)
	s.Columns = append(s.Columns,
		Column{Name: "class", Group: GroupDescriptor, Levels: sortedSet(classes)},
		Column{Name: "precision", Group: GroupDescriptor, Levels: sortedSet(precisions)},
	)
	nDesc := len(s.Columns)
	s.Columns = append(s.Columns, Column{Name: "throughput", Unit: solo.ThroughputUnit, Group: GroupMeasured, Log: true})
	rateCol := -1
	if solo.ThroughputUnit == datasets.UnitItersPerS {
		rateCol = len(s.Columns)
		s.Columns = append(s.Columns, Column{Name: "sample_rate", Unit: datasets.UnitSamplesPerS, Group: GroupMeasured, Log: true})
	}
	memCol := len(s.Columns)
	s.Columns = append(s.Columns, Column{Name: "peak_memory", Unit: datasets.UnitBytes, Group: GroupMeasured, Log: true})

	var counterCols []Column
	var counterVals map[rowKey][]float64
	if ds.Runs != nil && ds.SamplesPath != "" {
		var warns []string
		var err error
		if counterCols, counterVals, warns, err = counterSummaries(ds.Runs, ds.SamplesPath); err != nil {
			return nil, err
		}
		s.Warnings = append(s.Warnings, warns...)
	}
	fromCounters := map[string]bool{}
	for _, c := range counterCols {
		fromCounters[c.Name] = true
	}
	extraAt := map[int]int{} // solo feature index -> column
	for j, f := range solo.Features {
		if fromCounters[f.Name] || s.Column(f.Name) >= 0 {
			continue
		}
		extraAt[j] = len(s.Columns)
		s.Columns = append(s.Columns, Column{Name: f.Name, Unit: f.Unit, Group: GroupMeasured})
	}
	counterAt := len(s.Columns)
	s.Columns = append(s.Columns, counterCols...)

	for _, r := range solo.Rows {
		v := make([]float64, len(s.Columns))
		for i := range v {
			v[i] = math.NaN()
		}
		d := desc[r.Workload]
		v[0], v[1], v[2] = positive(d.Params), positive(d.FLOPs), positive(float64(d.BatchSize))
		if d.Layers != nil || d.Params > 0 {
			for i, k := range layerKinds {
				v[3+i] = float64(d.Layers[k])
			}
		}
		v[classCol] = levelIndex(s.Columns[classCol].Levels, d.Class)
		v[classCol+1] = levelIndex(s.Columns[classCol+1].Levels, d.Precision)
		v[nDesc] = r.Throughput
		if rateCol >= 0 && d.BatchSize > 0 {
			v[rateCol] = r.Throughput * float64(d.BatchSize)
		}
		v[memCol] = positive(r.PeakMemory)
		for j, col := range extraAt {
			v[col] = r.Features[j]
		}
		if cv, ok := counterVals[rowKey{r.Workload, r.DeviceType, r.Degree}]; ok {
			copy(v[counterAt:], cv)
		}
		s.Rows = append(s.Rows, Row{Workload: r.Workload, DeviceType: r.DeviceType, Degree: r.Degree, Values: v})
	}
	s.dropEmpty()
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Dir, err)
	}
	sums, err := ds.Files()
	if err != nil {
		return nil, err
	}
	for _, f := range sums {
		s.Meta["coloc.data."+f.Name] = f.SHA256
	}
	return s, nil
}

// dropEmpty removes columns without a single value.
func (s *Set) dropEmpty() {
	keep := make([]int, 0, len(s.Columns))
	for j := range s.Columns {
		for _, r := range s.Rows {
			if !math.IsNaN(r.Values[j]) {
				keep = append(keep, j)
				break
			}
		}
	}
	if len(keep) == len(s.Columns) {
		return
	}
	cols := make([]Column, len(keep))
	for i, j := range keep {
		cols[i] = s.Columns[j]
	}
	for ri := range s.Rows {
		v := make([]float64, len(keep))
		for i, j := range keep {
			v[i] = s.Rows[ri].Values[j]
		}
		s.Rows[ri].Values = v
	}
	s.Columns = cols
}

func positive(x float64) float64 {
	if x > 0 {
		return x
	}
	return math.NaN()
}

func levelIndex(levels []string, v string) float64 {
	for i, l := range levels {
		if l == v {
			return float64(i)
		}
	}
	return math.NaN()
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// undescribedWarning is one warning for every workload without
// descriptors, named (the first few) with the model name looked up where
// it differs from the workload's, and the fix: a dataset of n workloads
// imported from elsewhere often has none for all of them.
func undescribedWarning(names []string, n int) string {
	const shown = 5
	var list []string
	for i, w := range names {
		if i == shown {
			list = append(list, fmt.Sprintf("and %d more", len(names)-shown))
			break
		}
		if f := FamilyOf(w); f != w {
			w = fmt.Sprintf("%q (model %q)", w, f)
		} else {
			w = strconv.Quote(w)
		}
		list = append(list, w)
	}
	return fmt.Sprintf("%d of %d workloads have no descriptors (no meta line from a profiling run, no entry in %s, no model coloc knows by that name): %s; their descriptor features stay empty (docs/datasets.md says how to give them)",
		len(names), n, WorkloadsFile, strings.Join(list, ", "))
}
