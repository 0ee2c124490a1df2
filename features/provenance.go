package features

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// FileSum is the SHA-256 of one input file, named relative to its dataset
// directory so that the same data gives the same provenance wherever it
// lies.
type FileSum struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// DataFiles returns the checksums of the tables (*.arrow) and of
// workloads.json in dir, sorted by name.
func DataFiles(dir string) ([]FileSum, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []FileSum
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || !(strings.HasSuffix(n, ".arrow") || n == WorkloadsFile) {
			continue
		}
		sum, err := fileSHA256(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		out = append(out, FileSum{Name: n, SHA256: sum})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
