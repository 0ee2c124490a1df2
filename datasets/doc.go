// Package datasets is the data model of coloc: the five tables that every
// stage of the pipeline reads and writes, their versioned Arrow IPC files,
// validation, the importers of public measurements, and merge. It depends
// on nothing else of coloc; everything else depends on it.
//
//	profile run ─┐
//	import ──────┼─► runs, samples, solo, pairs, scaling (.arrow) ─► features, model, policy, reports
//	merge ───────┘
//
// # Tables
//
// runs holds one row per workload execution, samples the counter time
// series of the runs, solo the throughput of each workload alone (plus any
// number of feature columns), pairs the normalized throughput of each
// ordered pair sharing a GPU, and scaling the throughput at each number of
// GPUs. Describe prints the columns of each; `coloc datasets schema` shows
// them.
//
// # Files
//
// A table is an Arrow IPC file (the "file" format with a footer, not the
// stream format). Its schema metadata holds "coloc.table" (the kind) and
// "coloc.version" (Version); each field's metadata holds "unit". Read
// refuses a file without them, of another version (ErrVersion), or that
// breaks any rule of its schema, and reports every problem with file, row
// and column (ValidationError). Before the Arrow library sees a file, its
// flatbuffer metadata is verified (offsets, vector lengths and buffers
// inside the file), because the library trusts it and a corrupt length
// would make it allocate without bound. Write, WriteDir and export.Write
// (package datasets/export: CSV and Parquet) write to a temporary file and
// rename it into place, so a crash never leaves a partial file under the
// final name; WriteDir renames only after every
// table of the directory was written, and ReplaceDir (the importers')
// replaces the directory as a whole.
//
// # A dataset directory
//
// Open reads every table of a directory and its workloads.json once, checks
// the tables against each other, and keeps the SHA-256 of each file it read,
// computed from the bytes it parsed (Dataset.Files, the provenance model
// files record). samples.arrow is not loaded: it can be large, so readers
// stream it with a Scanner, one record batch at a time, and Files hashes it
// on first demand. ReadAny reads a table of any kind coloc writes (feature
// sets, evaluation results, Nsight kernels besides the dataset tables),
// leaving the check of an other kind's values to the package that owns it.
//
// # Choices of ours
//
//   - Missing values are Arrow nulls. In Go, a missing float is NaN in the
//     typed views (Pair, Solo, Scale, Run); a NaN stored as a value in a file
//     is invalid.
//   - Normalized throughput is co-located / solo. Values above 1 are real
//     (clock boosts, cache effects, noise) and are kept, never clipped;
//     validation rejects only non-positive, NaN or infinite values.
//   - Status: a pair that could not run or was not measured is infeasible
//     and carries no throughput; a pair whose measurement looks like a
//     placeholder is suspect. Only ok pairs train or score a model.
//   - Throughput is samples/s (our harness, Pollux) or iterations/s (Gavel).
//     The unit travels with each file; merge refuses to mix them.
//   - Keys: runs (campaign, run_id); samples (run_id, device, workload,
//     timestamp); solo (workload, device_type, degree); pairs (workload,
//     partner, device_type, degree); scaling (workload, device_type, degree,
//     nodes, batch_size, placement). Duplicate keys in one file are invalid;
//     Merge collapses equal rows and refuses conflicting ones.
//   - Gavel's "_unconsolidated" device types (workers spread over servers)
//     stay device types of their own, and their scaling rows say one node
//     per GPU. A device type and a degree name a Shape (GPU type, GPUs,
//     spread), the key the placement, the models and the simulator share,
//     with its one textual form ("v100x2"; shape.go). Pollux's rows are labelled "t4", the GPU of its testbed.
//   - Samples are not checked for key uniqueness row by row (a campaign can
//     hold millions); their time order within each series is checked.
package datasets
