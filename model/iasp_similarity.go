package model

import "math"

// Profile returns the interference profile of job j on slot s: its
// predicted normalized throughput next to each job of the space that has
// features on s (as victim), then each such job's next to j (as
// aggressor).
func (m *IASP) Profile(j, s int) []float64 {
	var out []float64
	for k := range m.f.Jobs {
		if m.f.Row(k, s) != nil {
			out = append(out, m.Predict(j, k, s))
		}
	}
	for k := range m.f.Jobs {
		if m.f.Row(k, s) != nil {
			out = append(out, m.Predict(k, j, s))
		}
	}
	return out
}

// Similarity is the interference similarity of jobs a and b on a slot,
// the measure cluster-level placement groups jobs by: the Pearson
// correlation (cosine similarity of the mean-centred vectors) of their
// interference profiles. 1 means the two suffer from and inflict on every
// other job the same relative slowdowns; it is symmetric and in [-1, 1].
// Two flat profiles have similarity 1 when equal and 0 otherwise.
func (m *IASP) Similarity(a, b, slot string) (float64, error) {
	ja, err := m.f.Job(a)
	if err != nil {
		return 0, err
	}
	jb, err := m.f.Job(b)
	if err != nil {
		return 0, err
	}
	s, err := m.f.Slot(slot)
	if err != nil {
		return 0, err
	}
	return centredCosine(m.Profile(ja, s), m.Profile(jb, s)), nil
}

func centredCosine(x, y []float64) float64 {
	mean := func(v []float64) float64 {
		s := 0.0
		for _, e := range v {
			s += e
		}
		return s / float64(len(v))
	}
	mx, my := mean(x), mean(y)
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		if sxx == syy && mx == my {
			return 1
		}
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}
