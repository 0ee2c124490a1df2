package peers

// mt is the Mersenne Twister MT19937 seeded from an integer the way
// CPython's random.Random(seed) seeds it, with randrange drawing as
// CPython's does. Gavel's simulator is Python and its fifo draws a GPU
// type with random.Random(seed).randrange; the same generator here makes
// the same draws from the same seed, so the two simulators can agree run
// for run, not only on average (mt_test.go checks draws CPython printed).
type mt struct {
	state [624]uint32
	i     int
}

func newMT(seed uint64) *mt {
	m := &mt{}
	// random.seed(n) for an integer n feeds init_by_array the 32-bit
	// words of |n|, least significant first; at least one word.
	key := []uint32{uint32(seed)}
	if seed>>32 != 0 {
		key = append(key, uint32(seed>>32))
	}
	m.initGenrand(19650218)
	i, j := 1, 0
	for k := max(624, len(key)); k > 0; k-- {
		m.state[i] = (m.state[i] ^ ((m.state[i-1] ^ (m.state[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= 624 {
			m.state[0] = m.state[623]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := 623; k > 0; k-- {
		m.state[i] = (m.state[i] ^ ((m.state[i-1] ^ (m.state[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= 624 {
			m.state[0] = m.state[623]
			i = 1
		}
	}
	m.state[0] = 0x80000000
	m.i = 624
	return m
}

func (m *mt) initGenrand(s uint32) {
	m.state[0] = s
	for i := 1; i < 624; i++ {
		m.state[i] = 1812433253*(m.state[i-1]^(m.state[i-1]>>30)) + uint32(i)
	}
}

// uint32 returns the next 32 random bits (genrand_uint32).
func (m *mt) uint32() uint32 {
	if m.i >= 624 {
		for k := 0; k < 624; k++ {
			y := (m.state[k] & 0x80000000) | (m.state[(k+1)%624] & 0x7fffffff)
			v := m.state[(k+397)%624] ^ (y >> 1)
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			m.state[k] = v
		}
		m.i = 0
	}
	y := m.state[m.i]
	m.i++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// randrange returns an integer uniform in [0, n), n in [1, 2^32), drawn
// as CPython's randrange(n): k = bit length of n, then k-bit draws until
// one is below n.
func (m *mt) randrange(n int) int {
	k := 0
	for v := n; v > 0; v >>= 1 {
		k++
	}
	for {
		r := int(m.uint32() >> (32 - k))
		if r < n {
			return r
		}
	}
}
