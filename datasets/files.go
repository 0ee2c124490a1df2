package datasets

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/coloc-dev/coloc/internal/inputfile"
)

// FileSum is the SHA-256 of one file of a dataset, named relative to its
// directory so that the same data gives the same provenance wherever it
// lies.
type FileSum struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// Files returns the SHA-256 of every file of the dataset, sorted by name:
// the tables and workloads.json, hashed by Open from the very bytes it
// parsed (each file is read once), and samples.arrow, which Open does not
// load: it is hashed by streaming it on the first call, and the sum is
// kept for the next ones. Model files record this list as the provenance
// of their training data.
func (ds *Dataset) Files() ([]FileSum, error) {
	out := append([]FileSum(nil), ds.sums...)
	if ds.SamplesPath != "" {
		if ds.samplesSum == nil {
			sum, err := inputfile.SHA256(ds.SamplesPath)
			if err != nil {
				return nil, err
			}
			ds.samplesSum = &FileSum{Name: filepath.Base(ds.SamplesPath), SHA256: sum}
		}
		out = append(out, *ds.samplesSum)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// MaxTableBytes is the largest table Open reads whole (solo, pairs,
// scaling, runs; samples.arrow is streamed): a campaign of a thousand
// workloads writes a few megabytes.
const MaxTableBytes = 4 << 30

// readTable reads the table file at path once, keeping its SHA-256.
func (ds *Dataset) readTable(path string) (*Table, error) {
	b, err := inputfile.ReadAll(path, "a table Open loads whole", MaxTableBytes)
	if err != nil {
		return nil, err
	}
	ds.keepSum(path, b)
	return ReadFrom(bytes.NewReader(b), path)
}

// readWorkloads reads the directory's workloads.json, when it has one,
// keeping its SHA-256.
func (ds *Dataset) readWorkloads() error {
	path := WorkloadsPath(ds.Dir)
	b, err := inputfile.ReadAll(path, "a workloads file", MaxTableBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	ds.keepSum(path, b)
	ds.Workloads, err = decodeWorkloads(bytes.NewReader(b), path)
	return err
}

func (ds *Dataset) keepSum(path string, b []byte) {
	sum := sha256.Sum256(b)
	ds.sums = append(ds.sums, FileSum{Name: filepath.Base(path), SHA256: hex.EncodeToString(sum[:])})
}
