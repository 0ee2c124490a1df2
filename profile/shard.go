package profile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Shard returns shard i of n (1 <= i <= n) of the plan. Runs are dealt out
// longest estimate first, each to the shard with the least estimated time so
// far (ties to the lower shard, equal estimates in plan order), so shards
// take about equally long; a run, pair runs included, is never split. The
// shards are disjoint, cover the plan, keep plan order and depend only on
// the plan. A shard that holds a pair run but not its solo runs still runs
// it; its normalized values appear once the shards' journals are merged
// (see doc.go).
func (p *Plan) Shard(i, n int) (*Plan, error) {
	if n < 1 || i < 1 || i > n {
		return nil, fmt.Errorf("shard %d/%d: want 1 <= i <= n", i, n)
	}
	order := make([]int, len(p.Runs))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return -cmpDuration(p.Runs[a].Est, p.Runs[b].Est)
	})
	load := make([]time.Duration, n)
	owner := make([]int, len(p.Runs))
	for _, k := range order {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		owner[k] = best
		load[best] += p.Runs[k].Est
	}
	out := &Plan{Notes: p.Notes}
	for k, r := range p.Runs {
		if owner[k] == i-1 {
			out.Runs = append(out.Runs, r)
		}
	}
	return out, nil
}

func cmpDuration(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ParseShard parses "i/n".
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n with 1 <= i <= n, e.g. 1/4", s)
	}
	return i, n, nil
}
