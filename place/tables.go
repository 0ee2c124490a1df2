package place

import (
	"math"
	"slices"
	"sort"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/policy"
)

// tables builds the online tables of a policy file, for the GPU types of
// the cluster.
type tables struct {
	d   *Data
	m   *Models
	eng *Engine
	th  policy.Thresholds
}

// pairs is the normalized throughput of every ordered pair of workloads
// measured solo on a GPU type and degree of the cluster where the data
// hold measured pairs: measured where a status-ok row exists, else the
// cluster-stage model's prediction ("predicted:<model>"). Infeasible
// pairs are left out: they never share.
func (tb tables) pairs() []policy.Pair {
	var slots []datasets.Shape
	for _, s := range tb.d.pairSlots() {
		if slices.Contains(tb.eng.types, s.Device()) {
			slots = append(slots, s)
		}
	}
	var out []policy.Pair
	for _, s := range slots {
		dev, degree := s.Device(), s.GPUs
		var ws []string
		for _, w := range tb.d.Workloads() {
			if tb.d.hasSolo(w, dev, degree) {
				ws = append(ws, w)
			}
		}
		for _, w := range ws {
			for _, p := range ws {
				row := policy.Pair{GPUType: dev, Degree: degree, Workload: w, Partner: p}
				y, status, ok := tb.d.Pair(w, p, dev, degree)
				switch {
				case ok && status == datasets.StatusOK:
					row.Normalized, row.Source = y, "measured"
				case ok && status == datasets.StatusInfeasible:
					continue
				default:
					v, known := tb.m.Predict(ClusterLevel, w, p, dev, degree)
					if !known {
						continue
					}
					row.Normalized, row.Source = v, "predicted:"+tb.m.Name(ClusterLevel)
				}
				out = append(out, row)
			}
		}
	}
	return out
}

// solo is the solo table's rows on the GPU types of the cluster.
func (tb tables) solo() []policy.Solo {
	var out []policy.Solo
	for k, v := range tb.d.rates.Solos() {
		if slices.Contains(tb.eng.types, k.Device) {
			out = append(out, policy.Solo{Workload: k.Workload, GPUType: k.Device, Degree: k.Degree, Throughput: v.Rate, MemoryGB: memoryGB(v)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		if a.GPUType != b.GPUType {
			return a.GPUType < b.GPUType
		}
		return a.Degree < b.Degree
	})
	return out
}

// scaling is each workload's one-node curve on each GPU type of the
// cluster, with the degree policy.ChooseDegree picks (no limit on the
// degree: the scheduler knows what is free).
func (tb tables) scaling() []policy.Scaling {
	var out []policy.Scaling
	for _, w := range tb.d.Workloads() {
		for _, t := range tb.eng.types {
			pts, src := tb.d.Curve(w, t, 0)
			if len(pts) == 0 {
				continue
			}
			best, _ := policy.ChooseDegree(pts, tb.th.ScalingEfficiency, 0)
			out = append(out, policy.Scaling{Workload: w, GPUType: t, Points: pts, Chosen: best.Degree, Source: src})
		}
	}
	return out
}

// similarity is the similarity model's reference set: its distance, the
// descriptors' names and normalization, and each reference the data
// measure on a GPU type of the cluster, with the GPU type where its
// measured throughput on one GPU is highest and the degree ChooseDegree
// picks there within the GPUs of that type.
func (tb tables) similarity() policy.Similarity {
	s := tb.m.Similarity
	if s == nil {
		return policy.Similarity{}
	}
	fr := s.Frame()
	out := policy.Similarity{Distance: s.Opts.Distance, Numeric: fr.Desc.Numeric, Categorical: fr.Desc.Categorical}
	if s.Opts.Distance == "minkowski" {
		out.P = s.Opts.P
	}
	for k := range fr.Desc.Numeric {
		lo, hi := s.Lo[k], s.Hi[k]
		if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
			lo, hi = 0, 0 // no reference has the descriptor: it normalizes to 0
		}
		out.Lo, out.Hi = append(out.Lo, lo), append(out.Hi, hi)
	}
	for _, r := range s.Refs {
		w := fr.Jobs[r]
		typ, deg := tb.suit(w)
		if typ == "" {
			continue
		}
		ref := policy.Reference{Workload: w, Cat: append([]string(nil), fr.Desc.Cat[r]...), GPUType: typ, Degree: deg}
		for _, v := range fr.Desc.Num[r] {
			if math.IsNaN(v) {
				ref.Num = append(ref.Num, nil)
			} else {
				x := v
				ref.Num = append(ref.Num, &x)
			}
		}
		out.References = append(out.References, ref)
	}
	return out
}

// suit returns the GPU type of the cluster on which w's measured
// throughput on one GPU is highest (the first in sorted order on ties)
// and the degree ChooseDegree picks on it within that type's GPUs.
func (tb tables) suit(w string) (string, int) {
	best, bestRate := "", 0.0
	for _, t := range tb.eng.types {
		if r, ok := tb.d.Solo(w, t, 1, false, 0); ok && r > bestRate {
			best, bestRate = t, r
		}
	}
	if best == "" {
		return "", 0
	}
	pts, _ := tb.d.Curve(w, best, 0)
	p, ok := policy.ChooseDegree(pts, tb.th.ScalingEfficiency, tb.eng.count[slices.Index(tb.eng.types, best)])
	if !ok {
		return best, 1
	}
	return best, p.Degree
}
