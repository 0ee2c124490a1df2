package place

import (
	"fmt"
	"path/filepath"

	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/model"
)

// MaxModelFileBytes is the largest file of a model directory read: a
// model of the largest catalogues coloc fits is a few tens of megabytes.
const MaxModelFileBytes = 1 << 30

// CheckModelDir checks a model directory before model's readers read it
// whole: every file in it regular (a named pipe would hang the read, a
// link to /dev/zero never end it) and of at most MaxModelFileBytes, and an
// index that lists at least one model.
func CheckModelDir(dir string) error {
	if err := inputfile.CheckDir(dir, "a model file", MaxModelFileBytes); err != nil {
		return fmt.Errorf("model directory %s: %w", dir, err)
	}
	ix, err := model.ReadIndex(dir)
	if err != nil {
		return err
	}
	if len(ix.Models) == 0 {
		return fmt.Errorf("%s: the index lists no models ('coloc fit' writes at least one): fit them again", filepath.Join(dir, model.IndexFile))
	}
	return nil
}
