// Package budget measures what profiling buys in scheduling decisions:
// how much of coloc's average job completion time (JCT) a new GPU type's
// co-location pairs are worth, pair run by pair run.
//
// For one GPU type at a time, the models coloc decides with (IASP, IAPP
// and the similarity model) are fit on every measured pair of the other
// types and on a share of that type's pairs only; coloc then replays the
// same traces on the same clusters (package policies' Sweep) as with the
// models fit on every pair, and each case's average JCT is set over the
// all-pairs one. The ground truth of the replay is always every measured
// pair: only what coloc knows changes, not how the jobs run.
//
// A share is taken in one of two orders:
//   - random: the type's unordered pairs in a seeded random order, what a
//     campaign without a plan profiles;
//   - next: what `coloc profile next` would have chosen: a random start
//     (StartShare), then batches of StepShare chosen by the widest total
//     narrowing of the prediction intervals (model.SelectPairs with
//     model.StrategyWidth) given the pairs profiled so far.
//
// The shares of one order and seed are nested (the pairs of 10% are among
// those of 20%), as a campaign grows. A share of 0 fits on the other
// types' pairs only: a GPU never profiled in pairs, whose predictions come
// from the features of its jobs and the other types.
//
// # Choices where the question is silent
//
//   - The unit is the unordered pair on one slot (type and degree): one
//     pair run measures both orders. A type's spread twin (its
//     pairs repeat the type's own, spread over nodes) keeps a pair exactly
//     when the type keeps it.
//   - StartShare and StepShare are 0.05, the defaults of `coloc eval
//     --protocol active`: a campaign profiles a few random pairs to have
//     features to rank by, then goes in batches of a night's runs.
//   - The fits take the models' default seed and no calibration (coloc
//     decides on expected predictions, which calibration does not change).
//   - A subset whose pairs equal one already replayed (every order at
//     share 0, or at 1) is replayed once.
//   - The page reports, per type, order and share, the geometric mean over
//     seeds and cases of the ratio of average JCT (and makespan), with
//     the range of the per-seed geometric means; and, for scale, coloc
//     with sharing off over coloc: what every pair together is worth.
//
// Every replayed point is appended to Work/points.jsonl as soon as it is
// done (format "coloc-budget-points", version 1, with a fingerprint of
// the options): a run stopped part way resumes where it stopped, and a
// work directory of other options is refused rather than mixed in.
package budget
