package decide

import (
	"cmp"
	"fmt"
	"slices"
)

// Tenant is a job running on a node: its workload and the node's GPUs it
// holds (indices within the node).
type Tenant struct {
	Workload string `json:"workload"`
	GPUs     []int  `json:"gpus"`
}

// Node is one machine a job may go to: its GPU type, how many GPUs it has
// and who runs on them.
type Node struct {
	Name    string   `json:"name"`
	Type    string   `json:"gpu_type"`
	GPUs    int      `json:"gpus"`
	Tenants []Tenant `json:"tenants,omitempty"`
	// Exclusive nodes do not share a GPU: a job goes only to free GPUs
	// there (a node whose scheduler cannot split a GPU).
	Exclusive bool `json:"exclusive,omitempty"`
}

// Option is where a job could run on one node, and what it is worth.
type Option struct {
	Node   string `json:"node"`
	GPUs   []int  `json:"gpus"`
	Degree int    `json:"degree"`
	// Partner is the workload of the tenant whose GPUs it would share
	// ("" alone); Normalized and PartnerNormalized the predicted
	// normalized throughputs of the job and the partner there (1 alone).
	Partner           string  `json:"partner,omitempty"`
	Normalized        float64 `json:"predicted_normalized"`
	PartnerNormalized float64 `json:"partner_normalized,omitempty"`
	// Score is the option's value per GPU (see Score); 0 when the node has
	// no option, with the reason.
	Score  float64 `json:"score"`
	Reason string  `json:"reason"`
}

// Score ranks the nodes for an arriving job j (its workload and allowed
// degrees; its other fields are not used), best first: per node, its best
// option, in the terms the core values GPUs by (package doc, "How it
// decides"), for a job whose priority is the same wherever it goes:
//
//   - alone on d free GPUs: the job's progress per GPU there relative to
//     its fastest option among the nodes (its solo rate per GPU over the
//     best solo rate per GPU of the types offered, at its allowed
//     degrees), in (0, 1];
//   - sharing the d GPUs of a tenant that holds exactly d GPUs alone (with
//     maxPerGPU 2): the progress the pair adds per GPU over the tenant
//     alone, (a + b - 1) times the job's relative rate, a and b the
//     predicted normalized throughputs of the job and the tenant; only
//     when a + b > 1, as the core's join does. Since a + b - 1 < a, a free
//     GPU of the same type always ranks above sharing one: sharing is for
//     when GPUs are scarce.
//
// Ties go to fewer GPUs, then to the node listed first. A node with no
// option gets score 0 and the reason.
func Score(r Rates, maxPerGPU int, j Job, nodes []Node) []Option {
	// The job's reference: its best solo rate per GPU on the types offered.
	type shape struct {
		t string
		d int
	}
	best := 0.0
	seen := map[shape]bool{}
	for _, n := range nodes {
		for _, d := range j.Degrees {
			k := shape{n.Type, d}
			if seen[k] || d > n.GPUs {
				continue
			}
			seen[k] = true
			if s, ok := r.Solo(j.Workload, n.Type, d, false); ok && s > 0 {
				best = max(best, s/float64(d))
			}
		}
	}
	type pairKey struct {
		w, t string
		d    int
	}
	pairs := map[pairKey][2]float64{}
	pairOf := func(q, t string, d int) (a, b float64, ok bool) {
		k := pairKey{q, t, d}
		if v, done := pairs[k]; done {
			return v[0], v[1], v[0] > 0
		}
		a, okA := r.Pair(j.Workload, q, t, d)
		b, okB := r.Pair(q, j.Workload, t, d)
		if !okA || !okB || !(a > 0) || !(b > 0) {
			a, b = 0, 0
		}
		pairs[k] = [2]float64{a, b}
		return a, b, a > 0
	}
	out := make([]Option, 0, len(nodes))
	held := make([]int, 0, 8)
	free := make([]int, 0, 8)
	for _, n := range nodes {
		o := Option{Node: n.Name}
		if best == 0 {
			o.Reason = fmt.Sprintf("workload %q has no measured solo rate on any node's type at an allowed degree", j.Workload)
			out = append(out, o)
			continue
		}
		held = held[:0]
		for range n.GPUs {
			held = append(held, 0) // tenants per GPU
		}
		for _, t := range n.Tenants {
			for _, g := range t.GPUs {
				if g >= 0 && g < n.GPUs {
					held[g]++
				}
			}
		}
		free = free[:0]
		for g, h := range held {
			if h == 0 {
				free = append(free, g)
			}
		}
		var host []int // the GPUs of the chosen option
		for _, d := range j.Degrees {
			s, ok := r.Solo(j.Workload, n.Type, d, false)
			if !ok || !(s > 0) {
				continue
			}
			rel := s / float64(d) / best
			if len(free) >= d && rel > o.Score {
				o = Option{Node: n.Name, Degree: d, Normalized: 1, Score: rel}
				host = free[:d]
			}
			if maxPerGPU < 2 || n.Exclusive {
				continue
			}
			for _, t := range n.Tenants {
				if len(t.GPUs) != d || !alone(held, t.GPUs) {
					continue
				}
				a, b, ok := pairOf(t.Workload, n.Type, d)
				if !ok || a+b <= 1 {
					continue
				}
				if v := (a + b - 1) * rel; v > o.Score {
					o = Option{Node: n.Name, Degree: d, Partner: t.Workload, Normalized: a, PartnerNormalized: b, Score: v}
					host = t.GPUs
				}
			}
		}
		switch {
		case o.Score == 0:
			o.Reason = fmt.Sprintf("no allowed degree (%v) fits %s's %d %s GPU(s) with a measured rate, alone or beside a tenant worth sharing with", j.Degrees, n.Name, n.GPUs, n.Type)
		case o.Partner == "":
			o.Reason = fmt.Sprintf("alone on %d free %s GPU(s): %.3f of its best progress per GPU", o.Degree, n.Type, o.Score)
		default:
			o.Reason = fmt.Sprintf("shares %d %s GPU(s) with %s: predicted normalized throughputs %.3f and %.3f, %.3f more progress per GPU than the tenant alone",
				o.Degree, n.Type, o.Partner, o.Normalized, o.PartnerNormalized, o.Normalized+o.PartnerNormalized-1)
		}
		o.GPUs = slices.Clone(host)
		out = append(out, o)
	}
	slices.SortStableFunc(out, func(x, y Option) int {
		return cmp.Or(cmp.Compare(y.Score, x.Score), cmp.Compare(x.Degree, y.Degree))
	})
	return out
}

// alone reports whether every GPU of gpus is held by one job only.
func alone(held []int, gpus []int) bool {
	for _, g := range gpus {
		if g < 0 || g >= len(held) || held[g] != 1 {
			return false
		}
	}
	return true
}
