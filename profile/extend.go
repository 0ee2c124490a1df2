package profile

import "github.com/coloc-dev/coloc/datasets"

// Extending a campaign. Choosing pairs in rounds (coloc profile next, then
// profile run --pairs-from) adds pair runs to a campaign that has its solo
// runs, and perhaps earlier rounds' pairs, already: the directory's plan
// grows instead of being replaced. An extension keeps every run of the
// directory's plan, in its order, and appends the asked plan's pair runs
// the directory's plan lacks, in the asked plan's order; the journal keeps
// every record, so the runs finished before are skipped as on any resume.
// Nothing else may change: the solo and scale runs (so the workloads,
// repeats and degrees), the suite and the settings must be the
// directory's. Pair runs the directory has and the asked plan does not
// name stay in the plan: the list of one round names only its new pairs.
// A shard never extends (its runs are a slice of the fleet's plan).

// extendPlan returns old's runs followed by p's pair runs old lacks, with
// p's notes; ok is false when p's solo and scale runs are not old's, in
// the same order.
func extendPlan(old []PlannedRun, p *Plan) (*Plan, bool) {
	base := func(runs []PlannedRun) []string {
		var ids []string
		for _, r := range runs {
			if r.Mode != datasets.ModePair {
				ids = append(ids, r.ID)
			}
		}
		return ids
	}
	a, b := base(old), base(p.Runs)
	if len(a) != len(b) {
		return nil, false
	}
	for i := range a {
		if a[i] != b[i] {
			return nil, false
		}
	}
	have := map[string]bool{}
	for _, r := range old {
		have[r.ID] = true
	}
	out := &Plan{Runs: append([]PlannedRun(nil), old...), Notes: p.Notes}
	for _, r := range p.Runs {
		if r.Mode == datasets.ModePair && !have[r.ID] {
			out.Runs = append(out.Runs, r)
		}
	}
	return out, true
}
