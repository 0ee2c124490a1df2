package place

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/policy"
)

// ModelNames say which fitted model drives each placement stage.
type ModelNames struct {
	Cluster string // CLWP
	Node    string // NLWP
}

// DefaultModelNames follow Geng et al.: IASP at the cluster level, IAPP at
// the node level.
var DefaultModelNames = ModelNames{Cluster: "iasp", Node: "iapp"}

// Models are the fitted models of one `coloc fit` directory the
// estimates come from: one per placement stage and the similarity model
// that matches jobs never profiled to a reference.
type Models struct {
	Dir     string
	Cluster *model.Loaded
	Node    *model.Loaded
	// Similarity is nil when the directory has no similarity model.
	Similarity *model.Similarity
	// Files are the SHA-256 of index.json and of the model files used.
	Files    []policy.FileSum
	Warnings []string
	// Decide is what Predict returns: the bounded prediction
	// (policy.DecideExpected or "") or its interval's lower bound
	// (policy.DecideLower, risk-averse).
	Decide string
	slots  map[datasets.Shape]int
	cache  map[predKey]predicted
}

type predKey struct {
	l      Level
	w, p   string
	typ    string
	degree int
}

type predicted struct {
	y  float64
	ok bool
}

// LoadModels loads the models of a `coloc fit` directory: the two named
// stage models (both required) and the similarity model when present.
func LoadModels(dir string, names ModelNames) (*Models, error) {
	if err := CheckModelDir(dir); err != nil {
		return nil, err
	}
	ix, err := model.ReadIndex(dir)
	if err != nil {
		return nil, err
	}
	want := []string{names.Cluster}
	if names.Node != names.Cluster {
		want = append(want, names.Node)
	}
	hasSim := false
	for _, e := range ix.Models {
		hasSim = hasSim || e.Name == "similarity"
	}
	if hasSim && names.Cluster != "similarity" && names.Node != "similarity" {
		want = append(want, "similarity")
	}
	// Each wanted file is loaded on its own, so that a missing one gets an
	// error saying how to fit it and the checksums cover exactly the files
	// used.
	m := &Models{Dir: dir, slots: map[datasets.Shape]int{}, cache: map[predKey]predicted{}}
	files := []string{model.IndexFile}
	for _, w := range want {
		var entry *model.IndexEntry
		for i := range ix.Models {
			if ix.Models[i].Name == w {
				entry = &ix.Models[i]
			}
		}
		if entry == nil {
			return nil, fmt.Errorf("%s: no model %s in %s (fit it with: coloc fit --data DIR -o %s --models %s,%s,similarity)",
				dir, w, model.IndexFile, dir, names.Cluster, names.Node)
		}
		path := filepath.Join(dir, entry.File)
		l, err := model.LoadEntry(dir, *entry)
		if err != nil {
			return nil, err
		}
		if err := l.Frame.SameFeatures(ix.Features); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if w == names.Cluster {
			m.Cluster = l
		}
		if w == names.Node {
			m.Node = l
		}
		if s, ok := l.Model.(*model.Similarity); ok {
			m.Similarity = s
		}
		files = append(files, entry.File)
	}
	for _, f := range files {
		sum, err := fileSum(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		m.Files = append(m.Files, sum)
	}
	if m.Similarity == nil {
		m.Warnings = append(m.Warnings, fmt.Sprintf("%s has no similarity model: jobs never profiled cannot be matched to a reference", dir))
	}
	for i, s := range m.Cluster.Frame.Slots {
		m.slots[datasets.ShapeOf(s.DeviceType, s.Degree)] = i
	}
	return m, nil
}

// Name returns the name of the model of a stage.
func (m *Models) Name(l Level) string { return m.of(l).File.Model }

func (m *Models) of(l Level) *model.Loaded {
	if l == ClusterLevel {
		return m.Cluster
	}
	return m.Node
}

// Predict returns the stage model's predicted normalized throughput of
// workload w next to partner on degree GPUs of gpuType. ok is false when
// the model cannot predict it: a workload or the slot it does not know,
// or a workload without solo features there. Predictions are bounded to
// the model's plausible range (model.Estimate). Predictions are cached.
func (m *Models) Predict(l Level, w, partner, gpuType string, degree int) (float64, bool) {
	k := predKey{l, w, partner, gpuType, degree}
	if v, seen := m.cache[k]; seen {
		return v.y, v.ok
	}
	v := predicted{}
	ld := m.of(l)
	if s, ok := m.slots[datasets.ShapeOf(gpuType, degree)]; ok {
		a, errA := ld.Frame.Job(w)
		b, errB := ld.Frame.Job(partner)
		if errA == nil && errB == nil && ld.Frame.Row(a, s) != nil && ld.Frame.Row(b, s) != nil {
			e := ld.Estimate(a, b, s)
			y := e.Value
			if m.Decide == policy.DecideLower {
				y = e.Lo
			}
			v = predicted{y: y, ok: y > 0 && !math.IsInf(y, 0)}
		}
	}
	m.cache[k] = v
	return v.y, v.ok
}

// Estimate returns the stage model's estimate of workload w next to
// partner on degree GPUs of gpuType, with its interval and flags (not
// cached; ok false as for Predict).
func (m *Models) Estimate(l Level, w, partner, gpuType string, degree int) (model.Estimate, bool) {
	ld := m.of(l)
	s, ok := m.slots[datasets.ShapeOf(gpuType, degree)]
	if !ok {
		return model.Estimate{}, false
	}
	a, errA := ld.Frame.Job(w)
	b, errB := ld.Frame.Job(partner)
	if errA != nil || errB != nil || ld.Frame.Row(a, s) == nil || ld.Frame.Row(b, s) == nil {
		return model.Estimate{}, false
	}
	return ld.Estimate(a, b, s), true
}

// Params returns the parameter count the models' descriptors give a
// workload; 0 when unknown.
func (m *Models) Params(w string) float64 {
	f := m.Cluster.Frame
	j, err := f.Job(w)
	if err != nil {
		return 0
	}
	for k, name := range f.Desc.Numeric {
		if name == "log10_params" {
			if v := f.Desc.Num[j][k]; !math.IsNaN(v) {
				return math.Pow(10, v)
			}
		}
	}
	return 0
}

func fileSum(path string) (policy.FileSum, error) {
	sum, err := inputfile.SHA256(path)
	if err != nil {
		return policy.FileSum{}, err
	}
	return policy.FileSum{Name: filepath.ToSlash(path), SHA256: sum}, nil
}
