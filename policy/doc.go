// Package policy is the policy file of coloc and the Go reader schedulers
// use: the placement decisions for a job list and the tables a scheduler
// needs to decide online for jobs not in the list (pairwise normalized
// throughput per GPU type, solo and scaling throughput per workload, the
// model-similarity reference set, the thresholds).
//
// Where it sits: datasets -> features -> model -> policy. The file is
// written by `coloc policy export` (package policy/place computes it);
// this package only describes and reads it. It is pure Go and imports
// nothing of coloc but the standard library, so a scheduler can import it
// without cgo or Arrow; schedulers in other languages read the same JSON,
// described by policy.schema.json.
package policy
