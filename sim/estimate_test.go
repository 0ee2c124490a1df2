package sim

import (
	"math"
	"slices"
	"testing"
)

// A user's estimate depends only on the seed and the job: the same for
// every policy of a run; over many jobs its factor has the median and the
// log-space spread asked for.
func TestEstimate(t *testing.T) {
	j := &Job{ID: 7, Steps: 1000}
	if a, b := Estimate(j, 3, 0, -1), Estimate(j, 3, 0, -1); a != b {
		t.Errorf("same seed and job: %v and %v", a, b)
	}
	if a, b := Estimate(j, 3, 0, -1), Estimate(j, 4, 0, -1); a == b {
		t.Error("two seeds gave the same estimate")
	}
	if got := Estimate(j, 3, 5, 0); got != 5000 {
		t.Errorf("sigma 0, median 5: %v, want 5000", got)
	}
	var logs []float64
	for id := range 4000 {
		logs = append(logs, math.Log(Estimate(&Job{ID: id, Steps: 100}, 1, 0, -1)/100))
	}
	slices.Sort(logs)
	med := logs[len(logs)/2]
	mean := 0.0
	for _, l := range logs {
		mean += l
	}
	mean /= float64(len(logs))
	sd := 0.0
	for _, l := range logs {
		sd += (l - mean) * (l - mean)
	}
	sd = math.Sqrt(sd / float64(len(logs)-1))
	if math.Abs(math.Exp(med)-DefaultEstimateMedian) > 0.15 || math.Abs(sd-DefaultEstimateSigma) > 0.05 {
		t.Errorf("median factor %.3f (want %v), log-space sd %.3f (want %v)", math.Exp(med), DefaultEstimateMedian, sd, DefaultEstimateSigma)
	}
}
