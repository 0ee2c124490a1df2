// Package features turns a dataset into per-(workload, device type,
// degree) feature vectors: the input of every model in package model.
//
// Where it sits: datasets (runs, samples, solo, pairs, scaling) ->
// features -> model (fit, eval) -> policy.
//
// A feature row holds
//   - descriptors of the workload's model, the same on all its rows:
//     parameters, forward FLOPs per sample, layer counts by kind, batch
//     size, class and precision (categorical). They come from the dataset's
//     workloads.json (the `meta` our harness records) or, for imported data
//     without meta such as Gavel's, from the job name (model family and
//     batch size) and KnownModels, a versioned table whose every number
//     says where it comes from and whether it is an estimate;
//   - measurements of solo runs on that device type and degree: throughput
//     (and samples/s when the throughput is in iterations/s), peak memory,
//     the solo table's own feature columns, and, when the dataset has runs
//     and samples, mean, median, p95 and standard deviation of every
//     counter over each run's steady window, averaged over repeats.
//
// Choices where the papers are silent: the steady window is the one the
// runs table records (window_start to window_end, where the harness
// measured throughput; the last window_s seconds of a run in a version-1
// runs table, whose end would include the workload's teardown);
// columns without any value are dropped rather than imputed; scaling to
// zero mean and unit variance is not done here but by package model, on
// the rows of the training data only, and stored with each model.
//
// The feature file (`coloc features build`) is an Arrow IPC table named
// "features" at Version, with units, group and log scale in field
// metadata, written atomically.
package features
