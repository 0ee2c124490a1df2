package sim

import (
	"math"

	"github.com/coloc-dev/coloc/datasets/rates"
)

// maxExtrapolated is the largest degree Extrapolated fills in: the
// largest scale factor of Gavel's traces.
const maxExtrapolated = 64

// Extrapolated returns a copy of m in which every workload and device
// type measured at two or more degrees also has a solo rate at each
// larger degree up to maxExtrapolated, extrapolated from its largest
// measured degree M with the efficiency of its last measured step:
// rate(d) = rate(M) x (d/M) x e^log2(d/M), e = (rate(M)/rate(M')) x (M'/M)
// for the next smaller measured degree M'. The added rates are labelled:
// Measured.isExtrapolated reports them, and a run says how many jobs ran on one.
// Pair rates are never extrapolated.
func (m *Measured) Extrapolated() *Measured {
	out := &Measured{t: m.t, solo: map[rates.Key]float64{}, pairs: m.pairs, oneGPUPairs: m.oneGPUPairs, extra: map[rates.Key]bool{}}
	for k, v := range m.solo {
		out.solo[k] = v
	}
	degrees := map[[2]string][]int{}
	for k := range m.solos() {
		key := [2]string{k.Workload, k.Device}
		degrees[key] = append(degrees[key], k.Degree)
	}
	for key, ds := range degrees {
		top, next := 0, 0
		for _, d := range ds {
			if d > top {
				top, next = d, top
			} else if d > next {
				next = d
			}
		}
		if next == 0 {
			continue
		}
		rt, _ := m.soloRate(rates.Key{Workload: key[0], Device: key[1], Degree: top})
		rn, _ := m.soloRate(rates.Key{Workload: key[0], Device: key[1], Degree: next})
		if !(rt > 0) || !(rn > 0) {
			continue
		}
		e := math.Min(1, (rt/rn)*float64(next)/float64(top))
		for d := top + 1; d <= maxExtrapolated; d++ {
			ratio := float64(d) / float64(top)
			k := rates.Key{Workload: key[0], Device: key[1], Degree: d}
			out.solo[k] = rt * ratio * math.Pow(e, math.Log2(ratio))
			out.extra[k] = true
		}
	}
	return out
}

// isExtrapolated reports whether the solo rate of w on s was extrapolated
// (Extrapolated), not measured.
func (m *Measured) isExtrapolated(w string, s Shape) bool {
	return m.extra[rates.Key{Workload: w, Device: m.device(s), Degree: s.GPUs}]
}

// extrapolatedType is what the simulator asks of a ground truth with
// extrapolated rates.
type extrapolatedType interface {
	isExtrapolated(w string, s Shape) bool
}
