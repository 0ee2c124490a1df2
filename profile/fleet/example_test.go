package fleet_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/profile"
	"github.com/coloc-dev/coloc/profile/fleet"
)

// A fleet of the mini suite in three shards, as `coloc profile slurm`
// writes it: each shard's runs and estimate, and the job array task 2
// would run (the script's last lines).
func ExampleSlurmScript() {
	suite, err := profile.ParseSuite([]byte(`
version: 1
name: mini
workloads:
  - {name: cnn, class: cnn, command: ["{python}", "cnn.py"], batch_size: 64}
  - {name: lm, class: rnn, command: ["{python}", "rnn.py"], batch_size: 32}
`), "/shared/coloc/suites/mini.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	o := profile.DefaultPlanOptions
	o.Repeats, o.GPUs, o.Degrees, o.Duration = 1, 1, []int{1}, 30*time.Second
	plan, _ := profile.NewPlan(suite, o)
	set := fleet.Settings{Device: "cuda", GPUs: 1, DurationS: 30, WarmupS: 5, Share: "timeslice"}
	f, err := fleet.New("mini", suite, plan, 3, set, []string{"--device", "cuda", "--gpus", "1", "--duration", "30s"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, sh := range f.Plan.Shards {
		fmt.Println(sh.Index, sh.Runs, sh.EstS)
	}
	f.Slurm = &fleet.SlurmOptions{JobName: "coloc-mini", Constraint: "h200",
		Coloc: "/shared/bin/coloc", Suite: f.Suite.Path, Python: "python3"}
	script, err := fleet.SlurmScript("/shared/camp/mini", f)
	if err != nil {
		fmt.Println(err)
		return
	}
	lines := strings.Split(strings.TrimSpace(script), "\n")
	fmt.Println(strings.Join(lines[len(lines)-3:], "\n"))
	// Output:
	// 1 [solo.cnn.r0 pair.cnn+lm.r0] 70
	// 2 [solo.lm.r0 pair.lm+lm.r0] 70
	// 3 [pair.cnn+cnn.r0] 35
	// exec /shared/bin/coloc profile run --suite /shared/coloc/suites/mini.yaml \
	//     --python python3 --device cuda --gpus 1 --duration 30s \
	//     --out /shared/camp/mini/shards/"$shard" --shard "$shard/3"
}
