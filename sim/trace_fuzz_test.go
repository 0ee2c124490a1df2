package sim

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/place/jobs"
)

// FuzzReadTrace feeds arbitrary text to the trace reader. It must never
// panic; every job it accepts has a job type of plain text and numbers
// within a job list's limits.
func FuzzReadTrace(f *testing.F) {
	for _, p := range []string{"../examples/traces/physical_cluster/small_test.trace", "../examples/traces/msr/103959.trace"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b[:min(len(b), 2048)]))
		}
	}
	f.Add("A\tcmd\t-n\t1\t100\t0\t1\n")
	f.Add("A\tpy\tdir\t-n\t1\t10\t1\t1\t-1\t0\n")
	f.Add("A\tcmd\t-n\t1\t1e3\t1e300\t0x10\n")
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := ReadTrace(strings.NewReader(text), "fuzz.trace")
		if err != nil {
			return
		}
		if len(tr.Jobs) == 0 || len(tr.Jobs) > maxTraceJobs {
			t.Fatalf("%d jobs accepted", len(tr.Jobs))
		}
		for _, j := range tr.Jobs {
			switch {
			case !plainText(j.Workload) || j.Workload == "":
				t.Fatalf("job type %q accepted", j.Workload)
			case j.Steps < 1 || j.Steps > jobs.MaxSteps:
				t.Fatalf("steps %d accepted", j.Steps)
			case !(j.Arrival >= 0 && j.Arrival <= jobs.MaxArrivalS):
				t.Fatalf("arrival %v accepted", j.Arrival)
			case j.Scale < 1 || j.Scale > jobs.MaxDegree:
				t.Fatalf("scale %d accepted", j.Scale)
			case !(j.Priority > 0) || math.IsInf(j.Priority, 0) || math.IsNaN(j.SLO) || math.IsInf(j.SLO, 0):
				t.Fatalf("priority %v, SLO %v accepted", j.Priority, j.SLO)
			}
		}
	})
}
