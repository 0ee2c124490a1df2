// Package packsort sorts items by a float64 value, highest first, as
// integers: each item's key packs its value, in an encoding whose integer
// order is the values' order reversed, above its place among the items.
// Sorting the keys settles almost every comparison without a call; the
// items whose values agree in the bits the place leaves form runs that a
// comparison function then puts in order. The simulator's policies sort
// thousands of jobs or entries at every decision this way, where a sort
// with a comparison function per pair was a tenth of a run.
package packsort

import (
	"math"
	"math/bits"
	"slices"
)

// Mask returns the mask of the low bits that hold a place among n items:
// as few as the places need, so that the value keeps the most bits.
func Mask(n int) uint64 { return 1<<bits.Len(uint(n)) - 1 }

// Key is the key of the value v at place i (i <= mask) under mask.
func Key(v float64, i int, mask uint64) uint64 { return Descending(v)&^mask | uint64(i) }

// Descending maps v to an integer that sorts as v does from highest to
// lowest, NaN after everything (as cmp.Compare orders values, reversed);
// -0 and +0 map to one integer, as they compare equal.
func Descending(v float64) uint64 {
	if math.IsNaN(v) {
		return math.MaxUint64
	}
	if v == 0 {
		v = 0 // -0 as +0: equal values, equal keys
	}
	b := math.Float64bits(v)
	if b>>63 == 1 {
		b = ^b // negative: larger magnitude sorts lower
	} else {
		b |= 1 << 63
	}
	return ^b
}

// Sort sorts keys made by Key under mask: as integers, then each run of
// keys whose values agree in the bits the place leaves by cmp of their
// places. The result is cmp's order when cmp orders first by value,
// highest first (NaN last), and is a total order.
func Sort(keys []uint64, mask uint64, cmp func(x, y int) int) {
	slices.Sort(keys)
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi]&^mask == keys[lo]&^mask {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(keys[lo:hi], func(x, y uint64) int { return cmp(int(x&mask), int(y&mask)) })
		}
		lo = hi
	}
}
