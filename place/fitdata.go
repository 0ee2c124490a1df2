package place

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/model"
)

// CheckFitData compares the data the models of modelDir were fit on (the
// SHA-256 of each data file its index records) with the dataset in
// dataDir: a recorded file that dataDir lacks, or holds with other bytes,
// is an error naming it, since the models and the data would then
// disagree on what was measured. With no dataDir nothing can be compared,
// and the note returned says so.
func CheckFitData(modelDir, dataDir string) (notes []string, err error) {
	if err := CheckModelDir(modelDir); err != nil {
		return nil, err
	}
	ix, err := model.ReadIndex(modelDir)
	if err != nil {
		return nil, err
	}
	if dataDir == "" {
		return []string{fmt.Sprintf("the data the models of %s were fit on were not checked (give --data, their dataset, to check its files against the SHA-256 the index records)", modelDir)}, nil
	}
	ds, err := datasets.Open(dataDir)
	if err != nil {
		return nil, err
	}
	sums, err := ds.Files()
	if err != nil {
		return nil, err
	}
	have := map[string]string{}
	for _, s := range sums {
		have[s.Name] = s.SHA256
	}
	var bad []string
	for _, s := range ix.Data {
		switch got, ok := have[s.Name]; {
		case !ok:
			bad = append(bad, fmt.Sprintf("%s is missing", s.Name))
		case got != s.SHA256:
			bad = append(bad, fmt.Sprintf("%s has SHA-256 %.12s, the models were fit on %.12s", s.Name, got, s.SHA256))
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("%s: not the data the models of %s were fit on (%s, index.json): %s; fit them again on it (coloc fit --data %s -o %s), or give the data they were fit on",
			dataDir, modelDir, filepath.Join(modelDir, model.IndexFile), strings.Join(bad, "; "), dataDir, modelDir)
	}
	return nil, nil
}
