package place

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/coloc-dev/coloc/model"
)

// FitWithProgress is model.FitCalibrated, one model per call on up to
// workers goroutines (model.FitAllWorkers), writing a line to progress as each
// model is done: its time, how many are done, and the time left at the
// pace so far. Each model is fitted as FitCalibrated fits it (the same
// training set and seed), so the files are the same bytes.
func FitWithProgress(d *model.Data, names []string, seed uint64, trust model.TrustOptions, workers int, progress io.Writer) ([]model.Fitted, error) {
	out := make([]model.Fitted, len(names))
	start := time.Now()
	var mu sync.Mutex
	done := 0
	what := "fitted"
	if trust.Folds >= 2 {
		what = "fitted and calibrated"
	}
	err := model.ForEach(len(names), workers, func(i int) error {
		began := time.Now()
		f, err := model.FitCalibrated(d, names[i:i+1], seed, trust, 1)
		if err != nil {
			return err
		}
		out[i] = f[0]
		if progress != nil {
			mu.Lock()
			done++
			left := time.Duration(float64(time.Since(start)) / float64(done) * float64(len(names)-done))
			fmt.Fprintf(progress, "fit: %s %s in %.1f s (%d of %d models; about %.0f s left)\n", names[i], what, time.Since(began).Seconds(), done, len(names), left.Seconds())
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
