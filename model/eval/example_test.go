package eval_test

import (
	"fmt"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
)

// Score the bias baseline on half of k80's measured pairs.
func Example() {
	d, err := model.LoadData("../../datasets/reference/gavel")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := eval.Run(d, eval.Options{Protocols: []string{"pairs"}, Fractions: []float64{0.5}, Seeds: 3,
		Models: []string{"bias"}, Devices: []string{"k80"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := res.Summaries[0]
	fmt.Printf("%s on %s at %.1f: %d test pairs, median MAE %.3f\n", s.Model, s.Device, s.Fraction, s.NTest, s.MAEMedian)
	// Output: bias on k80 at 0.5: 294 test pairs, median MAE 0.037
}
