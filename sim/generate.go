package sim

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
)

// GenOptions describe a generated trace, after the recipe of Gavel's
// trace generator (job types drawn uniformly; scale factors 1, 2, 4, 8
// with probabilities 0.7, 0.1, 0.15, 0.05; a duration of 10^x minutes,
// x uniform in [1.5, 3] for 80% of the jobs and in [3, 4] for the rest;
// Poisson arrivals). It is our code, not Gavel's, and makes no claim to
// draw the same traces.
type GenOptions struct {
	Jobs int
	Seed uint64
	// Workloads are the job types to draw from; each must have a solo
	// rate at scale 1 on RefType in Rates.
	Workloads []string
	Rates     Rates
	RefType   string
	// MeanGap is the mean time between arrivals, seconds (0: all at 0).
	MeanGap float64
}

// Generate draws a trace. Steps are the duration times the job's rate on
// RefType at its scale, so a job lasts its drawn duration there.
func Generate(o GenOptions) ([]TraceJob, error) {
	if o.Jobs < 1 || len(o.Workloads) == 0 || o.Rates == nil {
		return nil, fmt.Errorf("generate: want jobs >= 1, workloads and rates")
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x67656e))
	jobs := make([]TraceJob, 0, o.Jobs)
	t := 0.0
	for len(jobs) < o.Jobs {
		w := o.Workloads[rng.IntN(len(o.Workloads))]
		scale := 1
		switch u := rng.Float64(); {
		case u < 0.7:
		case u < 0.8:
			scale = 2
		case u < 0.95:
			scale = 4
		default:
			scale = 8
		}
		rate, ok := o.Rates.Solo(w, Shape{GPUType: o.RefType, GPUs: scale})
		if !ok || !(rate > 0) {
			scale = 1
			if rate, ok = o.Rates.Solo(w, Shape{GPUType: o.RefType, GPUs: 1}); !ok || !(rate > 0) {
				return nil, fmt.Errorf("generate: workload %q has no rate on %s", w, o.RefType)
			}
		}
		x := 1.5 + 1.5*rng.Float64()
		if rng.Float64() >= 0.8 {
			x = 3 + rng.Float64()
		}
		minutes := math.Pow(10, x)
		steps := int64(math.Max(1, math.Round(minutes*60*rate)))
		jobs = append(jobs, TraceJob{Workload: w, Steps: steps, Arrival: t, Scale: scale, Priority: 1, SLO: -1})
		if o.MeanGap > 0 {
			t += rng.ExpFloat64() * o.MeanGap
		}
	}
	return jobs, nil
}

// WriteTrace writes jobs in Gavel's msr layout (formatMSR), which
// ReadTrace reads back.
func WriteTrace(w io.Writer, jobs []TraceJob) error {
	bw := bufio.NewWriter(w)
	for _, j := range jobs {
		fmt.Fprintf(bw, "%s\tgenerated\t-n\t0\t%d\t%s\t%d\n", j.Workload, j.Steps, strconv.FormatFloat(j.Arrival, 'f', 6, 64), j.Scale)
	}
	return bw.Flush()
}
