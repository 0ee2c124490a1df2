package model

import "math"

// The forward pass and gradient of IASP over its flat parameter vector.

// ensure computes the embeddings and effects of combination k = s*nj+j
// from Theta unless they are current.
func (m *IASP) ensure(k int) {
	if m.valid[k] {
		return
	}
	m.valid[k] = true
	l, th, b := m.lay, m.Theta, m.buf
	s, j := k/l.nj, k%l.nj
	z := m.f.Z(j, s)
	b.r[k] = th[l.rf+j] + th[l.rs+k] + dot(th[l.wr:l.wr+l.p], z)
	b.c[k] = th[l.cf+j] + th[l.cs+k] + dot(th[l.wc:l.wc+l.p], z)
	for e := 0; e < l.d; e++ {
		b.ep[k][e] = th[l.pf+j*l.d+e] + dot(th[l.wp+e*l.p:l.wp+(e+1)*l.p], z)
		b.eq[k][e] = th[l.qf+j*l.d+e] + dot(th[l.wq+e*l.p:l.wq+(e+1)*l.p], z)
		b.em[k][e] = th[l.mf+j*l.d+e] + dot(th[l.wm+e*l.p:l.wm+(e+1)*l.p], z)
		b.en[k][e] = th[l.nf+j*l.d+e] + dot(th[l.wn+e*l.p:l.wn+(e+1)*l.p], z)
	}
}

// forward returns the prediction for (a, b, s) from the cached embeddings,
// leaving the MLP activations in the buffer.
func (m *IASP) forward(a, bj, s int) float64 {
	l, th, b := m.lay, m.Theta, m.buf
	ka, kb := s*l.nj+a, s*l.nj+bj
	m.ensure(ka)
	m.ensure(kb)
	y := th[l.mu+s] + b.r[ka] + b.c[kb]
	pa, qb := b.ep[ka], b.eq[kb]
	for e := 0; e < l.d; e++ {
		y += th[l.hg+e] * pa[e] * qb[e]
	}
	in := b.in
	copy(in, b.em[ka])
	copy(in[l.d:], b.en[kb])
	for i := 2 * l.d; i < len(in); i++ {
		in[i] = 0
	}
	in[2*l.d+s] = 1
	nin := len(in)
	for o := 0; o < l.h; o++ {
		v := th[l.b1+o] + dot(th[l.w1+o*nin:l.w1+(o+1)*nin], in)
		b.h1[o] = math.Max(v, 0)
	}
	for o := 0; o < l.h2; o++ {
		v := th[l.b2+o] + dot(th[l.w2+o*l.h:l.w2+(o+1)*l.h], b.h1)
		b.h2[o] = math.Max(v, 0)
	}
	return y + dot(th[l.hm:l.hm+l.h2], b.h2)
}

// accumulate adds the gradient of the mean squared error over obs to grad.
func (m *IASP) accumulate(obs []Obs, grad []float64) {
	l, th, b := m.lay, m.Theta, m.buf
	for _, k := range m.touched {
		b.dr[k], b.dc[k] = 0, 0
		clear(b.dp[k])
		clear(b.dq[k])
		clear(b.dm[k])
		clear(b.dn[k])
	}
	m.touched = m.touched[:0]
	seen := b.mark
	for _, o := range obs {
		for _, k := range [2]int{o.S*l.nj + o.A, o.S*l.nj + o.B} {
			if !seen[k] {
				seen[k] = true
				m.touched = append(m.touched, k)
			}
		}
	}
	for _, k := range m.touched {
		seen[k] = false
	}
	nin := 2*l.d + l.ns
	scale := 2 / float64(len(obs))
	for _, o := range obs {
		e := scale * (m.forward(o.A, o.B, o.S) - o.Y)
		ka, kb := o.S*l.nj+o.A, o.S*l.nj+o.B
		grad[l.mu+o.S] += e
		b.dr[ka] += e
		b.dc[kb] += e
		pa, qb := b.ep[ka], b.eq[kb]
		for i := 0; i < l.d; i++ {
			grad[l.hg+i] += e * pa[i] * qb[i]
			b.dp[ka][i] += e * th[l.hg+i] * qb[i]
			b.dq[kb][i] += e * th[l.hg+i] * pa[i]
		}
		for i := 0; i < l.h2; i++ {
			grad[l.hm+i] += e * b.h2[i]
			if b.h2[i] > 0 {
				b.dh2[i] = e * th[l.hm+i]
			} else {
				b.dh2[i] = 0
			}
		}
		clear(b.dh1)
		for o2 := 0; o2 < l.h2; o2++ {
			d := b.dh2[o2]
			if d == 0 {
				continue
			}
			grad[l.b2+o2] += d
			g := grad[l.w2+o2*l.h : l.w2+(o2+1)*l.h]
			w := th[l.w2+o2*l.h : l.w2+(o2+1)*l.h]
			for i, v := range b.h1 {
				g[i] += d * v
				b.dh1[i] += d * w[i]
			}
		}
		clear(b.din)
		for o1 := 0; o1 < l.h; o1++ {
			if b.h1[o1] <= 0 || b.dh1[o1] == 0 {
				continue
			}
			d := b.dh1[o1]
			grad[l.b1+o1] += d
			g := grad[l.w1+o1*nin : l.w1+(o1+1)*nin]
			w := th[l.w1+o1*nin : l.w1+(o1+1)*nin]
			for i, v := range b.in {
				g[i] += d * v
				b.din[i] += d * w[i]
			}
		}
		for i := 0; i < l.d; i++ {
			b.dm[ka][i] += b.din[i]
			b.dn[kb][i] += b.din[l.d+i]
		}
	}
	// back through the embeddings: free part and side-feature maps
	for _, k := range m.touched {
		s, j := k/l.nj, k%l.nj
		z := m.f.Z(j, s)
		if d := b.dr[k]; d != 0 {
			grad[l.rf+j] += d
			if m.perSlot {
				grad[l.rs+k] += d
			}
			axpy(d, z, grad[l.wr:l.wr+l.p])
		}
		if d := b.dc[k]; d != 0 {
			grad[l.cf+j] += d
			if m.perSlot {
				grad[l.cs+k] += d
			}
			axpy(d, z, grad[l.wc:l.wc+l.p])
		}
		for _, blk := range [4]struct {
			d          []float64
			free, side int
		}{{b.dp[k], l.pf, l.wp}, {b.dq[k], l.qf, l.wq}, {b.dm[k], l.mf, l.wm}, {b.dn[k], l.nf, l.wn}} {
			for e, d := range blk.d {
				if d == 0 {
					continue
				}
				grad[blk.free+j*l.d+e] += d
				axpy(d, z, grad[blk.side+e*l.p:blk.side+(e+1)*l.p])
			}
		}
	}
}

func axpy(a float64, x, y []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}
