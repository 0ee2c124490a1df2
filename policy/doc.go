// Package policy is the policy file of coloc and the Go reader schedulers
// use: the placement decisions for a job list and the tables a scheduler
// needs to decide online for jobs not in the list (pairwise normalized
// throughput per GPU type, solo and scaling throughput per workload, the
// model-similarity reference set, the thresholds).
//
// Where it sits: datasets -> features -> model -> policy. The file is
// written by `coloc policy export` (package place computes it);
// this package describes it (File, the contract), reads it (Load, Decode,
// New), writes it (Encode, WriteFile) and answers a scheduler's questions
// from it. It is pure Go and imports nothing of coloc but the standard
// library and two std-only leaves (internal/similarity, the distance math
// shared with the similarity model; internal/atomicfile), so a scheduler
// imports it without cgo or Arrow. Schedulers in other languages read the
// same JSON, described by policy.schema.json (Schema returns it; package
// policy/schema validates against it; `coloc policy validate` runs both).
//
// # Reading
//
// Reading always validates, and every problem names the file and the JSON
// path of the value at fault, e.g. "decisions[3].placement[0].gpus[1]"
// (array indices from 0). In order:
//
//   - Format and version: a file of another format, or of a version
//     outside MinVersion to Version, is refused by name (errors.Is
//     ErrFormat, ErrVersion) before anything else is looked at. Version 2
//     added the objective, each decision's rule record and the status
//     waiting; version 3 a decision's assumed mark (a multi-GPU pair
//     rated from the pair on one GPU). An older file is read as it is,
//     and a file that holds a member of a later version is refused.
//   - Shape: every object has exactly the members of its Go type; a member
//     is required unless its json tag says omitempty; every value has the
//     JSON type of its field; null only in Reference.Num. An unknown
//     member (a typo) is an error, as in the schema.
//   - Content: statuses; a placed job has a GPU type, a placement on nodes
//     of the cluster of that GPU type, GPU indices in range and distinct,
//     degree = number of GPUs placed, and a predicted normalized
//     throughput; an unplaceable job has a reason and no placement;
//     co-located ids exist, are placed, share a GPU with the job and list
//     it back, and two jobs sharing a GPU list each other; no GPU holds
//     more than Thresholds.MaxPerGPU jobs; normalized throughputs are
//     finite and > 0 and may exceed 1 (never clipped: real measurements
//     do); thresholds in range; scaling points ascending by degree with
//     the efficiencies ScalingPoints computes and the degree ChooseDegree
//     chooses; similarity arrays aligned with their descriptor names and
//     reference values within lo..hi; unique keys (job, node, pair, solo,
//     scaling, reference).
//
// A Policy is read-only after loading: its indexes are built once, and
// its lookups may be called from many goroutines.
//
// # What a scheduler does with it
//
// For a job of the job list, Decision gives the node, GPUs, degree and
// partners decided offline (Degree for just the degree).
//
// For a new job, online:
//
//  1. If the job's workload is known (it has Solo and Scaling rows), its
//     GPU type is FastestGPUType(workload), the cluster's type where its
//     solo throughput is highest, and its degree ChooseDegree(workload,
//     gpuType, free GPUs).
//  2. If not, describe its model (Descriptor: params, FLOPs per sample,
//     layers by kind, batch size, class, precision) and call Nearest: the
//     nearest reference's GPU type and degree suit it (the
//     model-similarity policy of Thanapol et al., ACIIDS 2023), and the
//     reference's workload stands in for the job's in the lookups of 3.
//     Nearest uses the same distance, normalization and tie order as
//     `coloc similar`.
//  3. To put it on a GPU that already runs a job, Colocate(gpuType,
//     degree, its workload, the other's): both predicted normalized
//     throughputs, each job next to the other, must be at least
//     Thresholds.MinNormalized, and no GPU may hold more than
//     Thresholds.MaxPerGPU jobs. Normalized gives the values themselves.
//
// # Choices where the papers are silent
//
//   - Reading refuses, rather than ignores, a member it does not know:
//     a policy is acted on, and a misspelled threshold silently taking its
//     zero value is worse than a refused file. A new member means a new
//     Version.
//   - Content problems are all collected (up to 100, then a count), not
//     only the first, so that one run of `coloc policy validate` lists
//     what to fix; content checks run only on a file of the right shape.
//   - A node's link may be "" and its memory and bandwidths 0: the cluster
//     spec allows them unstated, and the file carries the spec as given.
//   - Thresholds.MinNormalized and ScalingEfficiency lie in [0, 1]: a
//     co-location threshold above 1 would require both jobs to run faster
//     together than alone, a measurement artefact rather than a policy.
//   - Nearest with k < 1 consults Thresholds.SimilarityK references; a
//     layer kind the descriptor does not list counts 0 layers (as in the
//     similarity model), while an unknown params, FLOPs or batch size
//     (zero) is left out of the distance.
//   - Encode writes a required list that is nil as [] (never null), so a
//     reader in any language finds an array where the schema says one is.
package policy
