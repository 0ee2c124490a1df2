package model

// pairDim is the length of a pair vector in frame f.
func pairDim(f *Frame) int { return 2*f.Dim() + len(f.Slots) }

// pairVec writes the input of the feature-based models into dst (length
// pairDim): the standardized features of A, then of B, on slot s, then an
// indicator of the slot. It returns dst.
func pairVec(f *Frame, a, b, s int, dst []float64) []float64 {
	d := f.Dim()
	copy(dst, f.Z(a, s))
	copy(dst[d:], f.Z(b, s))
	tail := dst[2*d:]
	for i := range tail {
		tail[i] = 0
	}
	tail[s] = 1
	return dst
}
