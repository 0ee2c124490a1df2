package profile

import (
	"math"
	"strings"
	"testing"
)

// FuzzParseSuite feeds arbitrary text to the suite reader. It must never
// panic; a suite it accepts has names a script may carry unquoted, unique
// workload names, finite numbers within the limits, and a hash. Seeds: the
// test suite and the corpus under testdata/fuzz/FuzzParseSuite (run by
// `go test`).
func FuzzParseSuite(f *testing.F) {
	f.Add(goodSuite)
	f.Add(strings.Replace(goodSuite, "memory_gb: 2.5", "memory_gb: .nan", 1))
	f.Add(strings.Replace(goodSuite, "name: tiny", "name: \"tiny\\n$(id)\"", 1))
	f.Add(strings.Replace(goodSuite, "batch_size: 32", "batch_size: 9223372036854775807", 1))
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSuite([]byte(text), "fuzz.yaml")
		if err != nil {
			return
		}
		if err := CheckName("suite", s.Name); err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, w := range s.Workloads {
			if err := CheckName("workload", w.Name); err != nil || names[w.Name] {
				t.Fatalf("workload name %q (%v, twice %v)", w.Name, err, names[w.Name])
			}
			names[w.Name] = true
			for _, x := range []float64{w.MemoryGB, w.EstStepS} {
				if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
					t.Fatalf("workload %s: a number %v", w.Name, x)
				}
			}
			if w.BatchSize < 1 || w.BatchSize > maxBatchSize || w.Steps > maxSteps || w.MemoryGB > maxMemoryGB || w.EstStepS > maxEstStepS {
				t.Fatalf("workload %s above a limit: %+v", w.Name, w)
			}
		}
		if h := s.Hash(); !strings.HasPrefix(h, "sha256:") || h != s.Hash() {
			t.Fatalf("hash %q", h)
		}
	})
}
