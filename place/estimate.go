package place

import "github.com/coloc-dev/coloc/datasets"

// measuredFirst is the export's estimator: measurements where the data
// have them, the models' predictions elsewhere.
type measuredFirst struct {
	d *Data
	m *Models
}

// NewEstimator returns the estimator of the export: solo throughput from
// the data; a pair's normalized throughput measured when the data hold a
// status-ok row, none when the pair is infeasible, else the stage model's
// prediction ("predicted:<model>") on the GPU types and degrees where the
// data hold measured pairs (where the models were trained). m may be nil:
// then only measured pairs share.
func NewEstimator(d *Data, m *Models) Estimator { return measuredFirst{d, m} }

func (x measuredFirst) Solo(t *Task, gpuType string, degree int, spread bool) (float64, bool) {
	return x.d.Solo(t.Workload, gpuType, degree, spread, t.BatchSize)
}

func (x measuredFirst) Normalized(l Level, t, p *Task, gpuType string, degree int) (float64, string, bool) {
	if y, status, ok := x.d.Pair(t.Workload, p.Workload, gpuType, degree); ok {
		switch status {
		case datasets.StatusOK:
			return y, "measured", true
		case datasets.StatusInfeasible:
			return 0, "", false
		}
	}
	if x.m == nil || !x.d.HasPairs(gpuType, degree) {
		return 0, "", false
	}
	y, ok := x.m.Predict(l, t.Workload, p.Workload, gpuType, degree)
	return y, "predicted:" + x.m.Name(l), ok
}
