package model_test

import (
	"fmt"

	"github.com/coloc-dev/coloc/model"
)

// Fit IASP on every measured pair of Gavel's data and predict a pair.
func Example() {
	d, err := model.LoadData("../datasets/reference/gavel")
	if err != nil {
		fmt.Println(err)
		return
	}
	tr, err := model.NewTrain(d.Space, d.Obs, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := model.NewIASP(model.DefaultIASPOptions)
	if err := m.Fit(tr); err != nil {
		fmt.Println(err)
		return
	}
	a, _ := d.Space.Job("ResNet-18 (batch size 64)")
	b, _ := d.Space.Job("LM (batch size 20)")
	s, _ := d.Space.Slot("p100")
	y := m.Predict(a, b, s)
	fmt.Println(y > 0.3 && y < 1.2)
	// Output: true
}
