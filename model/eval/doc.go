// Package eval scores the models of package model on held-out measured
// pairs, the numbers users judge coloc by.
//
// Where it sits: datasets -> features -> model -> eval (`coloc eval`).
//
// Protocols (for each evaluated device, fraction F and seed):
//   - pairs: F of the device's measured ordered pairs are observed, the
//     rest predicted (matrix completion).
//   - new-job: each workload in turn is hidden with all its pairs on the
//     device; F of them are revealed along with every other pair of the
//     device. Scores pool the held-out pairs of all workloads.
//   - cross-device: every measured pair of the other evaluated devices and
//     F of the target device's are observed.
//
// Splits depend only on (protocol, device, F, seed, workload): every model
// gets the same ones, and for one seed the pairs revealed at a smaller F
// are among those revealed at a larger one. At least one pair is always
// held out. Only pairs of status ok are used: suspect and infeasible pairs
// are never trained on nor scored.
//
// Metrics: MAE, RMSE, MAPE, R², Spearman's rho, and the agreement of the
// co-location decision "both normalized throughputs >= 0.8" on test pairs
// whose two orders are both held out. Trust: every fit is calibrated
// (model.Calibrate) and scored on the coverage and width of its intervals
// and on the share of its raw predictions outside its plausible range over
// every pair it did not train on (measured or not); predictions are scored
// bounded. A cell that cannot be fit (too few pairs at a small fraction)
// is a warning, not an error. Summaries are medians over seeds.
// The result file is an Arrow table "eval" (version 2), one row per seed;
// Read reads it back and recomputes the summaries. Predict gives the
// per-pair view of one split (the held-out pairs with their measured and
// predicted values), from the same fits Run scores: `coloc report` draws
// its predicted-vs-measured figures from it.
//
// Run spreads its fits over Options.Workers goroutines (default
// GOMAXPROCS) and assembles the result in loop order, so it is the result
// of one worker whatever their number. RunCached stores a result under a
// key of the data's SHA-256, the options and the tool version
// (CacheKey) and returns it on the next call with the same key, so a
// report built twice evaluates once; a result file from `coloc eval -o`
// is read back with Read.
//
// RunActive simulates active selection (`coloc eval --protocol active`):
// on each device, from a random 5% of the measured unordered pairs, each
// strategy of model.SelectPairs reveals 5% more a round; the model is
// refit and scored on the measured pairs not yet revealed; the all-pairs
// reference is a fit on a random 90% of the ordered pairs.
//
// A choice of ours (the papers are silent): the default devices leave out
// spread device types (datasets.SpreadType), whose single-GPU pairs repeat those of
// the base type; cross-device trains on the other evaluated devices only,
// so that a duplicate of the target never leaks into its training data.
package eval
