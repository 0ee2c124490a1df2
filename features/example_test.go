package features_test

import (
	"fmt"

	"github.com/coloc-dev/coloc/features"
)

// Build the features of Gavel's measurements and look at one row.
func Example() {
	set, err := features.BuildDir("../datasets/reference/gavel")
	if err != nil {
		fmt.Println(err)
		return
	}
	row, _ := set.Find("ResNet-50 (batch size 64)", "v100", 1)
	for _, name := range []string{"params", "batch_size", "class"} {
		j := set.Column(name)
		c := set.Columns[j]
		if c.Categorical() {
			fmt.Printf("%s = %s\n", name, c.Label(row.Values[j]))
		} else {
			fmt.Printf("%s = %g %s\n", name, row.Values[j], c.Unit)
		}
	}
	// Output:
	// params = 2.5557032e+07 count
	// batch_size = 64 samples
	// class = cnn
}
