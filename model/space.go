package model

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/features"
)

// Slot is where a pair runs: a device type at a degree (number of GPUs
// each of the two jobs spans), as the tables spell them; a spread device
// type is a slot of its own. Its name is the shape's (datasets.Shape:
// "v100", "v100x2", "rtx3090@2"), which reads back without knowing the
// device types; the JSON of a model file keeps the two fields.
type Slot struct {
	DeviceType string `json:"device_type"`
	Degree     int    `json:"degree"`
}

func (s Slot) String() string { return datasets.ShapeOf(s.DeviceType, s.Degree).String() }

// parseSlot reads a slot's name (datasets.ParseShape).
func parseSlot(name string) (Slot, error) {
	sh, err := datasets.ParseShape(name)
	if err != nil {
		return Slot{}, err
	}
	return Slot{DeviceType: sh.Device(), Degree: sh.GPUs}, nil
}

// Space is the fixed frame every model of one fit shares: the jobs, the
// slots, and the encoded feature vector of each job on each slot. Encoding
// takes the logarithm (base 10) of log-scaled features and expands a
// categorical feature into one indicator per level ("class=cnn"). Space is
// saved in every model file, so a model predicts without the dataset.
type Space struct {
	Jobs  []string `json:"jobs"`
	Slots []Slot   `json:"slots"`
	// Features are the encoded feature names, in order: the feature list a
	// model file is checked against.
	Features []string `json:"features"`
	// X[s*len(Jobs)+j] is the encoded vector of job j on slot s; nil when
	// the job has no solo row there. NaN is a missing value.
	X []floats `json:"x"`
	// Throughput[s*len(Jobs)+j] is the solo throughput of job j on slot s
	// (in the solo table's unit), NaN when unknown.
	Throughput floats `json:"throughput"`
	// Desc is the descriptor part of the features, per job, for the
	// similarity model.
	Desc *Descriptors `json:"descriptors"`
}

// Descriptors are the raw (not standardized) model descriptors of each
// job: numeric ones after log scaling, categorical ones as level labels.
type Descriptors struct {
	Numeric     []string   `json:"numeric"`
	Categorical []string   `json:"categorical"`
	Num         []floats   `json:"num"` // [job][numeric], NaN missing
	Cat         [][]string `json:"cat"` // [job][categorical], "" missing
}

// NewSpace encodes a feature set. Jobs and slots are sorted.
func NewSpace(set *features.Set) (*Space, error) {
	if len(set.Rows) == 0 {
		return nil, fmt.Errorf("feature set has no rows")
	}
	sp := &Space{Desc: &Descriptors{}}
	jobIdx, slotIdx := map[string]int{}, map[Slot]int{}
	for _, r := range set.Rows {
		jobIdx[r.Workload] = 0
		slotIdx[Slot{r.DeviceType, r.Degree}] = 0
	}
	for j := range jobIdx {
		sp.Jobs = append(sp.Jobs, j)
	}
	sort.Strings(sp.Jobs)
	for i, j := range sp.Jobs {
		jobIdx[j] = i
	}
	for s := range slotIdx {
		sp.Slots = append(sp.Slots, s)
	}
	sort.Slice(sp.Slots, func(a, b int) bool {
		if sp.Slots[a].DeviceType != sp.Slots[b].DeviceType {
			return sp.Slots[a].DeviceType < sp.Slots[b].DeviceType
		}
		return sp.Slots[a].Degree < sp.Slots[b].Degree
	})
	for i, s := range sp.Slots {
		slotIdx[s] = i
	}
	for _, c := range set.Columns {
		if c.Categorical() {
			for _, l := range c.Levels {
				sp.Features = append(sp.Features, c.Name+"="+l)
			}
			if c.Group == features.GroupDescriptor {
				sp.Desc.Categorical = append(sp.Desc.Categorical, c.Name)
			}
			continue
		}
		name := c.Name
		if c.Log {
			name = "log10_" + name
		}
		sp.Features = append(sp.Features, name)
		if c.Group == features.GroupDescriptor {
			sp.Desc.Numeric = append(sp.Desc.Numeric, name)
		}
	}
	nj := len(sp.Jobs)
	sp.X = make([]floats, len(sp.Slots)*nj)
	sp.Throughput = make(floats, len(sp.Slots)*nj)
	for i := range sp.Throughput {
		sp.Throughput[i] = math.NaN()
	}
	sp.Desc.Num = make([]floats, nj)
	sp.Desc.Cat = make([][]string, nj)
	tcol := set.Column("throughput")
	for _, r := range set.Rows {
		j, s := jobIdx[r.Workload], slotIdx[Slot{r.DeviceType, r.Degree}]
		x := make([]float64, 0, len(sp.Features))
		var num []float64
		var cat []string
		for k, c := range set.Columns {
			v := r.Values[k]
			if c.Categorical() {
				for l := range c.Levels {
					switch {
					case math.IsNaN(v):
						x = append(x, math.NaN())
					case int(v) == l:
						x = append(x, 1)
					default:
						x = append(x, 0)
					}
				}
				if c.Group == features.GroupDescriptor {
					cat = append(cat, c.Label(v))
				}
				continue
			}
			if c.Log {
				v = math.Log10(v)
			}
			x = append(x, v)
			if c.Group == features.GroupDescriptor {
				num = append(num, v)
			}
		}
		sp.X[s*nj+j] = x
		if sp.Desc.Num[j] == nil {
			sp.Desc.Num[j], sp.Desc.Cat[j] = num, cat
		}
		if tcol >= 0 {
			sp.Throughput[s*nj+j] = r.Values[tcol]
		}
	}
	return sp, nil
}

// Job returns the index of a job, or an error naming the known jobs' count.
func (sp *Space) Job(name string) (int, error) {
	i := sort.SearchStrings(sp.Jobs, name)
	if i < len(sp.Jobs) && sp.Jobs[i] == name {
		return i, nil
	}
	return -1, fmt.Errorf("unknown job %q (the model knows %d jobs; see 'coloc similar' for a new one)", name, len(sp.Jobs))
}

// Slot returns the index of a slot by name (Slot.String; "<type>@<degree>"
// is read for any type). A device type whose name ends in "x" and digits
// is also found by its bare name at one GPU ("rtx3090" for rtx3090@1).
func (sp *Space) Slot(name string) (int, error) {
	want, err := parseSlot(name)
	if err != nil {
		return -1, err
	}
	if i := sp.SlotIndex(want); i >= 0 {
		return i, nil
	}
	if !strings.Contains(name, "@") {
		if i := sp.SlotIndex(Slot{DeviceType: name, Degree: 1}); i >= 0 {
			return i, nil
		}
	}
	names := make([]string, len(sp.Slots))
	for i, s := range sp.Slots {
		names[i] = s.String()
	}
	return -1, fmt.Errorf("unknown device %q (known: %s)", name, strings.Join(names, ", "))
}

// SlotIndex returns the index of a slot, or -1.
func (sp *Space) SlotIndex(want Slot) int {
	for i, s := range sp.Slots {
		if s == want {
			return i
		}
	}
	return -1
}

// Row returns the encoded vector of job j on slot s, or nil.
func (sp *Space) Row(j, s int) []float64 { return sp.X[s*len(sp.Jobs)+j] }

// SameFeatures returns an error unless other has exactly this feature
// list, naming the first difference.
func (sp *Space) SameFeatures(other []string) error {
	for i := 0; i < max(len(sp.Features), len(other)); i++ {
		var a, b string
		if i < len(sp.Features) {
			a = sp.Features[i]
		}
		if i < len(other) {
			b = other[i]
		}
		if a != b {
			return fmt.Errorf("feature list differs at position %d: model has %q, data has %q (%d vs %d features): the model was fit on another feature set; refit it", i+1, a, b, len(sp.Features), len(other))
		}
	}
	return nil
}
