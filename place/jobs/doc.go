// Package jobs is the job list of coloc: the jobs a placement policy
// (package place, `coloc policy export`) decides for and a job
// trace the simulator (package sim, `coloc simulate`) replays. It
// sits beside the cluster spec (package place/cluster) as an input of the
// policy stage (docs/architecture.md), and, like it, is pure Go plus
// go.yaml.in/yaml/v3, with nothing else of coloc.
//
// A job list is a YAML (or JSON) file, version 1:
//
//	version: 1
//	jobs:
//	  - id: train-resnet            # unique; names the job in decisions
//	    workload: "ResNet-50 (batch size 64)"   # a workload of the data
//	    degrees: [1, 2, 4]          # allowed numbers of GPUs; default [1]
//	    steps: 200000               # iterations, or:
//	    arrival_s: 0                # seconds from the start of the list
//	    memory_gb: 9.5              # peak memory per GPU, 10^9 bytes (optional)
//	  - id: new-bert
//	    model:                      # a workload never profiled, described
//	      class: transformer
//	      params: 110000000
//	      flops_per_sample: 2.2e10
//	      layers: {attention: 12, linear: 74, norm: 25, embedding: 3}
//	      precision: fp32
//	    batch_size: 32              # per GPU
//	    duration: 6h                # instead of steps: a Go duration
//	    arrival_s: 60
//
// Per job: id, and workload or model (or both: the descriptor describes a
// workload the data do not hold), batch_size, degrees, steps or duration
// (exactly one), arrival_s, memory_gb. A duration needs its unit ("90m",
// "6h", "3600s"); a bare number is refused, so that no one guesses whether
// it meant seconds or hours. The model descriptor has the fields of the
// workload protocol's meta line (docs/workloads.md): name, class, params,
// flops_per_sample (forward FLOPs per sample), layers (count by kind),
// batch_size, precision.
//
// Reading a list validates it: the version (another is refused by name),
// unknown keys (refused with their line), and every job. Every error names
// the file, the line and the job. Numbers must be finite and within limits
// far above real jobs (MaxDegree, MaxBatchSize, MaxSteps, MaxArrivalS,
// MaxMemoryGB, MaxLayers), so that run times stay within a time.Duration
// and degrees within the largest cluster a spec may describe; text must be
// UTF-8 without control characters (MaxTextLen bytes at most).
package jobs
