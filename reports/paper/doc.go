// Package paper writes the report of the shipped reference data, what
// `coloc report paper` (and `make paper`) regenerate: it runs the
// pipeline's stages as their commands would and hands their files to
// reports.Build, which draws them. New is the paper's plan (data, models,
// evaluation settings, learning curves, traces, clusters, policies);
// Plan.Build runs it.
//
// Choices where the papers are silent, with the reason:
//
//   - The stages run inside the directory the report is built in
//     (reports.Config.Stages), into stages/: models/ (coloc fit, every
//     standard model on all of Gavel's measured pairs, for the
//     policies), eval.arrow (coloc eval -o), predictions.arrow (coloc
//     eval --predictions), active.json (coloc eval --protocol active -o)
//     and one replay-DIR-TRACE-CLUSTER.json per scenario (coloc simulate
//     -o). So the stages' files are installed with the page as one change
//     and listed in its manifest: a stopped paper leaves OUT as it was,
//     the next paper replaces them, and a reader can draw any of them
//     again with coloc report.
//   - A replay names its models as stages/models, relative to the report
//     directory, not where they were while the paper was built: the same
//     paper gives the same bytes wherever it is written.
//   - Evaluated models and fitted models are separate lists (both every
//     standard model in the paper), so a test can shrink the evaluation
//     while the policies keep the models they need.
//   - Plan.check refuses an unknown model or policy, a split outside
//     [0, 1) or an empty plan before any stage runs, and reports.Build
//     checks the report directory before Stages runs: a typo costs no
//     minutes of fitting.
//   - Cache (Plan.Cache, `--eval-cache`): the evaluation (eval.RunCached),
//     the learning curves (active-<key>.json) and the fitted models
//     (models-<key>) are kept under a key of the data's SHA-256, the
//     settings and the tool version, and reused by the next paper with
//     the same key; the page is the same either way. The held-out
//     predictions (one fit per model and device) and the replays are
//     recomputed every time, as the report recomputed them before the
//     stages were split out of it.
//   - Fits and replays run one per CPU (Plan.Workers), each writing its
//     own file, in the order a serial run takes them: the paper does not
//     depend on the number of CPUs.
package paper
