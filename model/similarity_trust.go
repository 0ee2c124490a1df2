package model

import (
	"fmt"
	"math"
	"strings"
)

// errIndistinct is returned by CheckNeighbors when the descriptors cannot
// tell the references apart.
var errIndistinct = fmt.Errorf("the descriptors cannot tell the references apart")

// CheckNeighbors says how far to trust the neighbours nb of a query. It
// refuses (errIndistinct) when no descriptor varies over the references
// or every reference is at the same distance from the query (the order
// of the neighbours would be alphabetical, not similarity), and warns when
// the nearest reference is farther from the query than any reference is
// from its own nearest reference (the query is out of distribution) or
// when the k-th neighbour is tied with the next reference (the choice
// among them is arbitrary).
//
// job is the query's own name when it is a known job (left out of its
// neighbours), "" otherwise.
func (m *Similarity) CheckNeighbors(q Query, job string, nb []Neighbor) ([]string, error) {
	if len(nb) == 0 {
		return nil, fmt.Errorf("%w: the model has no reference", errIndistinct)
	}
	varies := 0
	for k := range m.Lo {
		if m.Hi[k] > m.Lo[k] {
			varies++
		}
	}
	for k := range m.f.Desc.Categorical {
		levels := map[string]bool{}
		for _, r := range m.Refs {
			if c := m.f.Desc.Cat[r][k]; c != "" {
				levels[c] = true
			}
		}
		if len(levels) > 1 {
			varies++
		}
	}
	if varies == 0 {
		return nil, fmt.Errorf("%w: no descriptor varies over the %d references (import descriptors: a workloads.json file next to the data, see docs/datasets.md)", errIndistinct, len(m.Refs))
	}
	skip := -1
	if job != "" {
		if j, err := m.f.Job(job); err == nil {
			skip = j
		}
	}
	all := m.nearest(q, skip, len(m.Refs))
	if len(all) > 1 && all[0].Distance == all[len(all)-1].Distance {
		return nil, fmt.Errorf("%w: all %d references are at distance %.4g from the job (describe it further with --meta)", errIndistinct, len(all), all[0].Distance)
	}
	var warns []string
	if k := len(nb); k < len(all) && all[k].Distance == nb[k-1].Distance {
		var tied []string
		for _, n := range all[k:] {
			if n.Distance == nb[k-1].Distance {
				tied = append(tied, n.Job)
			}
		}
		warns = append(warns, fmt.Sprintf("neighbour %d (%s, distance %.4g) is tied with %s: which of them is used is arbitrary", k, nb[k-1].Job, nb[k-1].Distance, strings.Join(tied, ", ")))
	}
	typical := 0.0
	for _, r := range m.Refs {
		if own := m.nearest(m.query(r), r, 1); len(own) == 1 && !math.IsInf(own[0].Distance, 0) {
			typical = math.Max(typical, own[0].Distance)
		}
	}
	if nb[0].Distance > typical {
		warns = append(warns, fmt.Sprintf("the nearest reference (%s) is at distance %.4g, farther than any reference is from its own nearest (at most %.4g): the job is unlike every profiled one (out of distribution); treat the suggestion as a guess and profile it", nb[0].Job, nb[0].Distance, typical))
	}
	return warns, nil
}
