package features

import "github.com/coloc-dev/coloc/datasets"

// FileSum is the SHA-256 of one data file (datasets.FileSum), the
// provenance that feature sets and model files record.
type FileSum = datasets.FileSum
