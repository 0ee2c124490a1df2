package model

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/internal/jsonkeys"
	"github.com/coloc-dev/coloc/internal/version"
)

// Model files are JSON (schedulers in any language read them), one model a
// file, with a format name and version in one place: a reader refuses any
// other version.
const (
	fileFormat  = "coloc.model"
	FileVersion = 2
)

// File is the content of a model file.
type File struct {
	Format     string          `json:"format"`
	Version    int             `json:"version"`
	Model      string          `json:"model"`
	Provenance provenance      `json:"provenance"`
	Warnings   []string        `json:"warnings,omitempty"`
	Space      *Space          `json:"space"`
	Scaler     scalerJSON      `json:"scaler"`
	State      json.RawMessage `json:"state"`
	// Trust bounds and qualifies the model's predictions: plausible range,
	// each job's training support, conformal quantiles.
	Trust *Trust `json:"trust"`
}

// scalerJSON is the saved form of a scaler.
type scalerJSON struct {
	Mean floats `json:"mean"`
	Std  floats `json:"std"`
}

// provenance says what a model was fit on and how.
type provenance struct {
	Tool  string             `json:"tool_version"`
	Data  []features.FileSum `json:"data"` // SHA-256 of the training data files
	Pairs int                `json:"pairs"`
	Seed  uint64             `json:"seed"`
	Hyper any                `json:"hyper,omitempty"`
}

// encode returns the model file bytes of a fitted model, with an
// uncalibrated Trust (range and support, no interval quantiles). The same
// model fit on the same data with the same seed encodes to the same bytes.
func encode(m Model, t *Train, data []features.FileSum) ([]byte, error) {
	return encodeTrusted(m, t, nil, data)
}

// UncalibratedTrust is the Trust of a fit without calibration: its range
// and support, and no interval quantile.
func UncalibratedTrust(t *Train) *Trust {
	ns := len(t.Slots)
	tr := &Trust{Range: observedRange(t.Obs), Coverage: DefaultTrustOptions.Coverage,
		Support: support(t.Obs, len(t.Jobs), ns), Quantile: make(floats, ns), Calibrated: make([]int, ns)}
	for s := range tr.Quantile {
		tr.Quantile[s] = math.NaN()
	}
	return tr
}

// encodeTrusted is encode with the Trust of a calibration (nil: an
// uncalibrated one).
func encodeTrusted(m Model, t *Train, tr *Trust, data []features.FileSum) ([]byte, error) {
	if tr == nil {
		tr = UncalibratedTrust(t)
	}
	state, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding model %s: %w", m.Name(), err)
	}
	f := File{
		Format: fileFormat, Version: FileVersion, Model: m.Name(),
		Provenance: provenance{Tool: version.String(), Data: data, Pairs: len(t.Obs), Seed: t.Seed},
		Warnings:   t.Warnings,
		Space:      t.Space,
		Scaler:     scalerJSON{Mean: t.Scaler.Mean, Std: t.Scaler.Std},
		State:      state,
		Trust:      tr,
	}
	if h, ok := m.(Hyper); ok {
		f.Provenance.Hyper = h.Hyper()
	}
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return nil, fmt.Errorf("encoding model %s: %w", m.Name(), err)
	}
	return append(b, '\n'), nil
}

// Loaded is a model read from a file.
type Loaded struct {
	Model Model
	File  *File
	Frame *Frame
}

// decode reads model file bytes; name is used in messages. It refuses
// another format or version and a state that does not fit its space.
func decode(b []byte, name string) (*Loaded, error) {
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("%s: not a model file: %w", name, err)
	}
	if head.Format != fileFormat {
		return nil, fmt.Errorf("%s: not a model file (format %q, want %q)", name, head.Format, fileFormat)
	}
	if head.Version != FileVersion {
		return nil, fmt.Errorf("%s: model file version %d; this coloc reads version %d", name, head.Version, FileVersion)
	}
	f := new(File)
	if err := json.Unmarshal(b, f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := f.Space.check(len(f.Scaler.Mean), len(f.Scaler.Std)); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m, err := New(f.Model)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := json.Unmarshal(f.State, m); err != nil {
		return nil, fmt.Errorf("%s: model %s: %w", name, f.Model, err)
	}
	if got := m.Name(); got != f.Model {
		return nil, fmt.Errorf("%s: the file names model %s but its state is model %s's", name, f.Model, got)
	}
	if f.Trust == nil {
		return nil, fmt.Errorf("%s: model file has no trust section", name)
	}
	if err := f.Trust.check(f.Space); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	fr := newFrame(f.Space, scaler{Mean: f.Scaler.Mean, Std: f.Scaler.Std})
	if c, ok := m.(interface{ check(*Frame) error }); ok {
		if err := c.check(fr); err != nil {
			return nil, fmt.Errorf("%s: model %s: %w", name, f.Model, err)
		}
	}
	m.(binder).bind(fr)
	return &Loaded{Model: m, File: f, Frame: fr}, nil
}

// Estimate is the model's bounded prediction of a|b on slot s with its
// interval and flags.
func (l *Loaded) Estimate(a, b, s int) Estimate {
	return l.File.Trust.Estimate(l.Model, l.Frame.Jobs, a, b, s)
}

// check verifies that the space's parts agree in size.
func (sp *Space) check(nMean, nStd int) error {
	if sp == nil {
		return fmt.Errorf("model file has no space")
	}
	d, nj := len(sp.Features), len(sp.Jobs)
	switch {
	case nj == 0 || len(sp.Slots) == 0:
		return fmt.Errorf("space has no jobs or no slots")
	case nMean != d || nStd != d:
		return fmt.Errorf("scaler has %d/%d entries for %d features", nMean, nStd, d)
	case len(sp.X) != nj*len(sp.Slots) || len(sp.Throughput) != len(sp.X):
		return fmt.Errorf("space has %d feature rows for %d jobs x %d slots", len(sp.X), nj, len(sp.Slots))
	case sp.Desc == nil || len(sp.Desc.Num) != nj || len(sp.Desc.Cat) != nj:
		return fmt.Errorf("space descriptors do not cover its %d jobs", nj)
	}
	for i, x := range sp.X {
		if x != nil && len(x) != d {
			return fmt.Errorf("feature row %d has %d values for %d features", i, len(x), d)
		}
	}
	return nil
}

// writeFile writes b to path atomically.
func writeFile(path string, b []byte) error { return atomicfile.WriteBytes(path, b) }

// load reads a model file.
func load(path string) (*Loaded, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decode(b, path)
}

// CheckFeatures refuses to apply a loaded model to data whose encoded
// feature list differs from the one it was fit on.
func (l *Loaded) CheckFeatures(sp *Space) error {
	if err := l.Frame.SameFeatures(sp.Features); err != nil {
		return fmt.Errorf("model %s: %w", l.File.Model, err)
	}
	return nil
}

// Index is MODELDIR/index.json: the models of one `coloc fit`.
type Index struct {
	Format   string             `json:"format"` // indexFormat
	Version  int                `json:"version"`
	Tool     string             `json:"tool_version"`
	Data     []features.FileSum `json:"data"`
	Features []string           `json:"features"`
	Models   []IndexEntry       `json:"models"`
}

// IndexEntry names one model file and its checksum.
type IndexEntry struct {
	Name   string   `json:"name"`
	File   string   `json:"file"`
	SHA256 string   `json:"sha256"`
	Notes  []string `json:"warnings,omitempty"`
}

// indexFormat and IndexFile name the index of a model directory.
const (
	indexFormat = "coloc.models"
	IndexFile   = "index.json"
)

// ReadIndex reads and checks MODELDIR/index.json: its format and version,
// and that every entry names a model once and a file of the directory
// itself (a bare file name: no separator, no "..") with a SHA-256 of 64
// hex digits.
func ReadIndex(dir string) (*Index, error) {
	path := filepath.Join(dir, IndexFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (is %s a directory written by 'coloc fit'?)", path, err, dir)
	}
	if p := jsonkeys.Check(b); p != nil {
		return nil, fmt.Errorf("%s:%d: %s: %s", path, p.Line, p.Path, p.Msg)
	}
	var ix Index
	if err := json.Unmarshal(b, &ix); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if ix.Format != indexFormat || ix.Version != FileVersion {
		return nil, fmt.Errorf("%s: format %q version %d; this coloc reads %q version %d", path, ix.Format, ix.Version, indexFormat, FileVersion)
	}
	seen := map[string]bool{}
	for i, e := range ix.Models {
		where := fmt.Sprintf("%s: models[%d] (%q)", path, i, e.Name)
		switch {
		case seen[e.Name]:
			return nil, fmt.Errorf("%s: model %q is listed twice", where, e.Name)
		case e.File == "" || e.File != filepath.Base(e.File) || !filepath.IsLocal(e.File) || strings.ContainsAny(e.File, `/\`):
			return nil, fmt.Errorf("%s: file %q: want the name of a file in %s (an index cannot point outside its directory)", where, e.File, dir)
		case len(e.SHA256) != sha256.Size*2 || strings.Trim(e.SHA256, "0123456789abcdef") != "":
			return nil, fmt.Errorf("%s: sha256 %q: want 64 lower-case hex digits", where, e.SHA256)
		}
		seen[e.Name] = true
	}
	return &ix, nil
}

// LoadEntry loads the model file of an index entry of dir, after checking
// its bytes against the SHA-256 the index records: a file changed or
// replaced since `coloc fit` wrote it is refused.
func LoadEntry(dir string, e IndexEntry) (*Loaded, error) {
	if e.File != filepath.Base(e.File) || !filepath.IsLocal(e.File) {
		return nil, fmt.Errorf("%s: model %s: file %q is not in the directory", dir, e.Name, e.File)
	}
	path := filepath.Join(dir, e.File)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != e.SHA256 {
		return nil, fmt.Errorf("%s: SHA-256 %s, the index records %s: the file changed after 'coloc fit' wrote it (fit again)", path, hex.EncodeToString(sum[:])[:12], e.SHA256[:min(12, len(e.SHA256))])
	}
	return decode(b, path)
}

// LoadDir loads the named models of a model directory (all when names is
// empty), checking each file against the SHA-256 the index records and
// its feature list against the index's.
func LoadDir(dir string, names []string) ([]*Loaded, error) {
	ix, err := ReadIndex(dir)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	only := len(want) > 0
	var out []*Loaded
	for _, e := range ix.Models {
		if only && !want[e.Name] {
			continue
		}
		delete(want, e.Name)
		l, err := LoadEntry(dir, e)
		if err != nil {
			return nil, err
		}
		if err := l.Frame.SameFeatures(ix.Features); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, e.File), err)
		}
		out = append(out, l)
	}
	if len(want) > 0 {
		var missing []string
		for n := range want {
			missing = append(missing, n)
		}
		sort.Strings(missing)
		return nil, fmt.Errorf("%s: no model %s in %s", dir, strings.Join(missing, ", "), IndexFile)
	}
	return out, nil
}

func jsonIndent(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
