package datasets_test

import (
	"fmt"
	"log"

	"github.com/coloc-dev/coloc/datasets"
)

// Open the shipped Gavel measurements and look at one ordered pair.
func Example() {
	ds, err := datasets.Open("reference/gavel")
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range ds.Pairs.Rows {
		if p.DeviceType == "v100" && p.Degree == 1 && p.Workload == "ResNet-50 (batch size 64)" && p.Partner == "Transformer (batch size 64)" {
			fmt.Printf("%s next to %s on %s: %.3f of its solo throughput (%s)\n", p.Workload, p.Partner, p.DeviceType, p.Normalized, p.Status)
		}
	}
	fmt.Println("throughput unit:", ds.Pairs.ThroughputUnit)
	// Output:
	// ResNet-50 (batch size 64) next to Transformer (batch size 64) on v100: 0.580 of its solo throughput (ok)
	// throughput unit: iterations/s
}
