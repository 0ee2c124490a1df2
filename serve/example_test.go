package serve_test

import (
	"encoding/json"
	"fmt"

	"github.com/coloc-dev/coloc/place/decide"
	"github.com/coloc-dev/coloc/serve"
)

// A scheduler written in Go builds the body of POST /v1/score from
// serve's types: the arriving job, and the nodes it may go to with their
// tenants.
func ExampleScoreRequest() {
	var q serve.ScoreRequest
	q.Job.Workload, q.Job.Degrees = "LM (batch size 20)", []int{1}
	q.Nodes = []decide.Node{{Name: "n1", Type: "v100", GPUs: 8, Tenants: []decide.Tenant{{Workload: "A3C", GPUs: []int{0}}}}}
	q.MaxPerGPU = 2
	b, _ := json.Marshal(q)
	fmt.Println(string(b))
	// Output:
	// {"job":{"workload":"LM (batch size 20)","degrees":[1]},"nodes":[{"name":"n1","gpu_type":"v100","gpus":8,"tenants":[{"workload":"A3C","gpus":[0]}]}],"max_per_gpu":2}
}
