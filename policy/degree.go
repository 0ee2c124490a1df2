package policy

import "sort"

// ScalingPoints returns the points of a scaling curve sorted by degree,
// with Efficiency filled in: throughput per GPU at each degree relative to
// throughput per GPU at the smallest degree measured (degree 1 when it
// was), so the smallest degree has efficiency 1. Points with a
// non-positive degree or throughput are dropped. The input is not changed.
func ScalingPoints(points []ScalingPoint) []ScalingPoint {
	out := make([]ScalingPoint, 0, len(points))
	for _, p := range points {
		if p.Degree > 0 && p.Throughput > 0 {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Degree < out[j].Degree })
	if len(out) == 0 {
		return out
	}
	base := out[0].Throughput / float64(out[0].Degree)
	for i := range out {
		out[i].Efficiency = out[i].Throughput / float64(out[i].Degree) / base
	}
	return out
}

// ChooseDegree is the parallel-degree rule of coloc: among the points of
// a scaling curve (see ScalingPoints) at a degree of at most maxDegree
// (the GPUs free or allowed; 0 means no limit), the one with the highest
// throughput whose efficiency is at least minEfficiency; the smallest such
// degree on ties. The smallest degree always qualifies, since its
// efficiency is 1 by definition. ok is false when no point is at most
// maxDegree.
func ChooseDegree(points []ScalingPoint, minEfficiency float64, maxDegree int) (best ScalingPoint, ok bool) {
	for _, p := range ScalingPoints(points) {
		if maxDegree > 0 && p.Degree > maxDegree {
			continue
		}
		if ok && p.Efficiency < minEfficiency {
			continue
		}
		if !ok || p.Throughput > best.Throughput {
			best, ok = p, true
		}
	}
	return best, ok
}
