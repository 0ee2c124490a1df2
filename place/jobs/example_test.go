package jobs_test

import (
	"fmt"
	"strings"

	"github.com/coloc-dev/coloc/place/jobs"
)

func Example() {
	l, err := jobs.Parse(strings.NewReader(`
version: 1
jobs:
  - {id: train, workload: "ResNet-50 (batch size 64)", degrees: [4, 1, 2], steps: 50000}
  - id: new
    model: {class: transformer, params: 1.1e8}
    batch_size: 32
    duration: 6h
    arrival_s: 60
`), "jobs.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range l.Jobs {
		fmt.Printf("%s (line %d): degrees %v, steps %d, duration %gs, batch %d\n", j.ID, j.Line, j.Degrees, j.Steps, j.Duration.Seconds(), j.Batch())
	}
	_, err = jobs.Parse(strings.NewReader("version: 1\njobs:\n  - {id: x, workload: A3C, duration: 3600}\n"), "bad.yaml")
	fmt.Println(err)
	// Output:
	// train (line 4): degrees [1 2 4], steps 50000, duration 0s, batch 0
	// new (line 5): degrees [1], steps 0, duration 21600s, batch 32
	// bad.yaml: line 3: duration "3600" has no unit: write it as a duration, e.g. 3600s, 90m or 6h
}
