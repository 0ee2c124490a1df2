package jobs

import (
	"math"
	"sort"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary text to the job list reader. It must never
// panic; a list it accepts has unique ids, ascending distinct degrees
// within MaxDegree, and finite numbers within the documented limits.
// Seeds: the test list and the corpus under testdata/fuzz/FuzzParse (run
// by `go test`).
func FuzzParse(f *testing.F) {
	f.Add(good)
	f.Add("version: 1\njobs:\n  - {id: a, workload: A3C, steps: 1, degrees: [9223372036854775807]}\n")
	f.Add("version: 1\njobs:\n  - {id: a, workload: A3C, steps: 1, arrival_s: .nan}\n")
	f.Add(`{"version": 1, "jobs": [{"id": "a", "id": "b", "workload": "A3C", "steps": 1}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		l, err := Parse(strings.NewReader(text), "fuzz.yaml")
		if err != nil {
			return
		}
		ids := map[string]bool{}
		for _, j := range l.Jobs {
			if ids[j.ID] {
				t.Fatalf("id %q twice", j.ID)
			}
			ids[j.ID] = true
			if len(j.Degrees) == 0 || !sort.IntsAreSorted(j.Degrees) || j.Degrees[0] < 1 || j.Degrees[len(j.Degrees)-1] > MaxDegree {
				t.Fatalf("job %q: degrees %v", j.ID, j.Degrees)
			}
			for _, x := range []float64{j.ArrivalS, j.MemoryGB, float64(j.Steps), j.Duration.Seconds()} {
				if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
					t.Fatalf("job %q: a number %v", j.ID, x)
				}
			}
			if j.ArrivalS > MaxArrivalS || j.Steps > MaxSteps || j.Batch() > MaxBatchSize {
				t.Fatalf("job %q above a limit: %+v", j.ID, j)
			}
		}
	})
}
