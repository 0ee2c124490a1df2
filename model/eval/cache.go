package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/coloc-dev/coloc/internal/version"
	"github.com/coloc-dev/coloc/model"
)

// CacheKey identifies the result of Run(d, o): the SHA-256 of the data
// (the checksums of its files, or, for data not read from files, its
// space and pairs), of the options that change scores (protocols,
// fractions, seeds, models with their default hyper-parameters, devices
// after defaults) and of the tool version. Workers and Progress do not
// change scores and are left out. A development build that reports no
// version control revision keeps one version across edits: remove the
// cache after changing a model.
func CacheKey(d *model.Data, o Options) (string, error) {
	devices := o.Devices
	if len(devices) == 0 {
		devices = defaultSlots(d)
	}
	hyper := map[string]any{}
	for _, name := range o.Models {
		m, err := model.New(name)
		if err != nil {
			return "", err
		}
		if h, ok := m.(model.Hyper); ok {
			hyper[name] = h.Hyper()
		}
	}
	data := any(d.Files)
	if len(d.Files) == 0 {
		data = struct {
			Space *model.Space
			Obs   []model.Obs
		}{d.Space, d.Obs}
	}
	b, err := json.Marshal(struct {
		Tool      string         `json:"tool"`
		Format    int            `json:"format"`
		Data      any            `json:"data"`
		Protocols []string       `json:"protocols"`
		Fractions []float64      `json:"fractions"`
		Seeds     int            `json:"seeds"`
		Models    []string       `json:"models"`
		Hyper     map[string]any `json:"hyper"`
		Devices   []string       `json:"devices"`
		Decision  float64        `json:"decision"`
	}{version.String(), TableVersion, data, o.Protocols, o.Fractions, o.Seeds, o.Models, hyper, devices, Decision})
	if err != nil {
		return "", fmt.Errorf("eval cache key: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// RunCached returns Run(d, o), read from dir/eval-<key>.arrow when an
// earlier call stored that file, else computed and stored there (dir is
// created if needed). hit reports a read. The result read back equals the
// computed one: the file holds every cell, and the summaries and warnings
// are rebuilt as Run builds them.
func RunCached(dir string, d *model.Data, o Options) (res *Result, hit bool, err error) {
	key, err := CacheKey(d, o)
	if err != nil {
		return nil, false, err
	}
	path := filepath.Join(dir, "eval-"+key+".arrow")
	if _, err := os.Stat(path); err == nil {
		res, err := Read(path)
		if err != nil {
			return nil, false, fmt.Errorf("eval cache: %w", err)
		}
		res.Warnings = d.Warnings
		return res, true, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("eval cache: %w", err)
	}
	if res, err = Run(d, o); err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false, fmt.Errorf("eval cache: %w", err)
	}
	if err := res.Write(path); err != nil {
		return nil, false, fmt.Errorf("eval cache: %w", err)
	}
	return res, false, nil
}
