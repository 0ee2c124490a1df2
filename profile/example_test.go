package profile_test

import (
	"fmt"
	"time"

	"github.com/coloc-dev/coloc/profile"
)

// A suite of two workloads on a 2-GPU machine: solo, scale at degree 2 and
// every pair, then the second of two shards.
func ExampleNewPlan() {
	suite, err := profile.ParseSuite([]byte(`
version: 1
name: mini
workloads:
  - name: cnn
    class: cnn
    command: ["{python}", "{suite_dir}/../workloads/cnn.py", "--model", "resnet18"]
    batch_size: 64
  - name: lm
    class: rnn
    command: ["{python}", "{suite_dir}/../workloads/rnn.py"]
    batch_size: 32
`), "suites/mini.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	o := profile.DefaultPlanOptions
	o.Repeats, o.GPUs, o.Duration = 1, 2, 30*time.Second
	plan, err := profile.NewPlan(suite, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range plan.Runs {
		fmt.Println(r.ID, r.Est)
	}
	fmt.Println(plan.Notes, plan.Total())
	shard, _ := plan.Shard(2, 2)
	fmt.Println("shard 2/2:", len(shard.Runs), "runs,", shard.Total())
	// Output:
	// solo.cnn.r0 35s
	// solo.lm.r0 35s
	// scale.cnn.d2.r0 40s
	// scale.lm.d2.r0 40s
	// pair.cnn+cnn.r0 35s
	// pair.cnn+lm.r0 35s
	// pair.lm+lm.r0 35s
	// [degrees 4,8 skipped: 2 GPUs present] 4m15s
	// shard 2/2: 3 runs, 1m50s
}

// The 95% confidence interval of three measurements.
func ExampleMeanCI() {
	e := profile.MeanCI([]float64{410, 400, 420})
	fmt.Printf("%.1f [%.1f, %.1f] over %d repeats\n", e.Mean, e.Low, e.High, e.N)
	// Output: 410.0 [385.2, 434.8] over 3 repeats
}
