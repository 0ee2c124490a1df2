// Package next chooses the pairs to profile next (`coloc profile next`):
// it reads a campaign's or a dataset's tables, builds the features and,
// when a model directory is given, its conformal quantiles, and ranks the
// unmeasured pairs by the value of measuring them (model.SelectPairs). It
// sits above the models, so that package profile, which runs campaigns,
// never ranks pairs with them; the pair list `coloc profile next` writes
// (model.WritePairList) is what `coloc profile run --pairs-from` reads.
package next
