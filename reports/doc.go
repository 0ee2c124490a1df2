// Package reports builds coloc's HTML report: the last stage of the
// pipeline (docs/architecture.md). It draws what the earlier stages wrote
// and computes nothing of its own: datasets, a model directory (coloc
// fit), an evaluation result (coloc eval -o), held-out predictions (coloc
// eval --predictions, package model/eval/evalfile), learning curves
// (coloc eval --protocol active -o), replays (coloc simulate -o, package
// sim/experiment) and campaigns, drawn with reports/plot, which keeps the
// plotting dependency at this edge. Package reports/paper runs the stages
// on the shipped reference data and hands their files to Build.
//
// A report is described by a Config (DefaultConfig holds the defaults of
// `coloc report`). Config.Validate checks every input path before any
// work; Build calls it, runs Config.Stages when set, then builds one
// section per step, each in a file of its own: interference.go (heat maps
// of pairs), scaling.go (scaling curves), models.go (evaluation and
// predictions), active.go (learning curves of choosing the pairs to
// profile), policies.go (simulated policies), campaign.go (counters of a
// campaign) and warnings.go (every warning of the data, each model, each
// stage's file and the simulator, in a section of its own). html.go
// renders the page.
//
// Choices where the papers are silent, with the reason:
//
//   - Heat maps: one per (device type, degree) with an ok pair, rows and
//     columns the workloads of that slot in natural order ("batch size 5"
//     before "10"); a slot whose matrix equals one already drawn cell for
//     cell is named, not drawn again (Gavel's spread single-GPU
//     pairs copy the base type's), so the page shows no duplicate.
//   - Scaling curves: per (workload, device type), place.ScalingCurve, the
//     curve the policy export decides on: one per-GPU batch size, the one
//     measured at the most degrees (the smallest on ties; mixing batch
//     sizes would mix workloads), and at each degree the throughput on one
//     node, or on the fewest nodes where no node ran it. Curves of one
//     model family share a figure, at most six a figure; the throughput
//     axis is logarithmic when a figure's values span more than 30x. The
//     chosen degree is policy.ChooseDegree's at
//     policy.DefaultThresholds.ScalingEfficiency, the rule the policy
//     export uses.
//   - Predicted against measured: the held-out pairs of one split, as
//     the predictions file holds them (`coloc eval --predictions`,
//     fraction 0.5, seed 1 by default; the same fits the evaluation
//     scores, so the figures show prediction, not fit). With Models the
//     fitted models' predictions of the data's pairs are drawn too, and
//     called in-sample when the models' provenance names exactly the
//     data's files.
//   - Learning curves (active.go, Config.ActiveFile): one figure per
//     device with a line per strategy and the all-pairs reference as a
//     flat line, and a table of the chosen strategy's two checks (the
//     share of pairs from which its MAE is within 1.1x the reference; its
//     MAE at 20% over random's). The file records the options the curves
//     ran with, which the text states.
//   - Models are drawn on the first dataset with pairs; the others add
//     heat maps and scaling curves only.
//   - Policies: one replay file per trace and cluster, every file with
//     the same policies in the same order (else the bars would compare
//     unlike things; the report refuses, naming both files). The text
//     states the replays' data, models, seed and simulator settings, and
//     what the model-driven policies knew of a job's duration. Average
//     JCT and makespan bars are relative to fifo (or the first policy
//     without fifo), because traces differ by orders of magnitude in
//     hours; the hours are in the tables, whose columns comparing with
//     fifo come first so that they are in view at a normal window width.
//     The models a replay names are read for their warnings when their
//     directory is found (as given, else inside the report directory,
//     where the paper keeps them).
//   - Campaign counters: the first ok pair run of runs.arrow and the first
//     ok solo run of the same workload, device type and degree (else the
//     first ok solo run), on the first device each used: one solo and one
//     pair run, compared like for like. A workload paired with itself has
//     one per-process line (both processes carry its name). The zeros a
//     per-process line ends with (read after its processes exited) are
//     not drawn, so memory is not shown falling to 0 at the end of a run.
//   - Warnings: every warning is shown with its source ("data gavel",
//     "model iapp of models", "simulator, msr/ed69ec on gavel-48 (every policy)"),
//     each once, in the order the steps met them; a stage's file repeats
//     the warnings of the data it read, and a text another source already
//     gave is not repeated under the file. A report without any says so.
//   - Output directory: the report is built in a temporary directory
//     beside OUT (where Config.Stages writes its files too), then its
//     files are moved into OUT. OUT may hold other
//     files: the report lists the files it wrote in OUT/.coloc-report.json
//     (ManifestFile, versioned) and the next report removes or replaces
//     only those. A file the report would write that no earlier report
//     wrote is never overwritten: the report is refused and names it.
//   - The page holds no time and no absolute path of the report: the same
//     inputs give the same bytes (the footer lists each input's SHA-256,
//     named relative to the report directory when it lies inside it, else
//     relative to Root when set).
//
// Figure sizes are 20 x 11 cm (wide) and 20 x 18 cm (heat maps), shown at
// their own size (756 CSS px wide) in a page at least 1,000 px wide; text
// sizes are chosen for that (reports/plot).
package reports
