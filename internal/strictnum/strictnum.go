// Package strictnum parses the numbers of coloc's text inputs (CSV cells,
// trace fields, YAML scalars) in one plain decimal syntax, so that a value
// is read as written or refused: strconv and the YAML library also accept
// digit separators (1_000), hexadecimal and octal forms (0x10, 0o17, hex
// floats), and words (Inf, NaN, .inf), each of which turns a typo into a
// different number without a word.
//
// The syntax: an optional sign, digits with at most one decimal point
// (at least one digit), and an optional exponent (e or E, optional sign,
// digits). An integer has no point and no exponent.
package strictnum

import (
	"fmt"
	"math"
	"strconv"
)

// IsDecimal reports whether s is a number in the plain decimal syntax.
func IsDecimal(s string) bool {
	_, ok := scan(s)
	return ok
}

// IsInteger reports whether s is an integer in the plain decimal syntax
// (no point, no exponent).
func IsInteger(s string) bool {
	integral, ok := scan(s)
	return ok && integral
}

// scan checks the syntax; integral says there is no point or exponent.
func scan(s string) (integral, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	point := false
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !point:
			point = true
		default:
			goto exponent
		}
	}
exponent:
	if digits == 0 {
		return false, false
	}
	integral = !point
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		integral = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		n := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			n++
		}
		if n == 0 {
			return false, false
		}
	}
	return integral, i == len(s)
}

// ParseFloat reads a finite number in the plain decimal syntax.
func ParseFloat(s string) (float64, error) {
	if !IsDecimal(s) {
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return v, nil
}

// ParseInt reads an integer in the plain decimal syntax that fits 64 bits.
func ParseInt(s string) (int64, error) {
	if !IsInteger(s) {
		return 0, fmt.Errorf("%q is not a decimal integer", s)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return v, nil
}
