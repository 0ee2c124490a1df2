package sampler

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// ncuValueKind classifies one metric value of ncu's CSV.
type ncuValueKind int

const (
	ncuNumber ncuValueKind = iota
	ncuMissing
	ncuText
	ncuBad
)

// thousands matches a number written with ',' thousands separators.
var thousands = regexp.MustCompile(`^[+-]?\d{1,3}(,\d{3})+(\.\d*)?([eE][+-]?\d+)?$`)

// numberish matches text made only of what numbers are made of.
var numberish = regexp.MustCompile(`^[+-]?[\d.,]*\d[\d.,]*([eE][+-]?\d+)?$`)

// parseNCUNumber classifies one metric value and returns it as a plain
// decimal (thousands separators removed) when it is a number.
func parseNCUNumber(s string) (string, ncuValueKind) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "n/a", "na", "-":
		return "", ncuMissing
	}
	if thousands.MatchString(s) {
		s = strings.ReplaceAll(s, ",", "")
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) && numberish.MatchString(s) {
		return s, ncuNumber
	}
	if numberish.MatchString(s) || isInfOrNaN(s) {
		return "", ncuBad
	}
	return "", ncuText
}

func isInfOrNaN(s string) bool {
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "inf", "infinity", "nan":
		return true
	}
	return false
}

// scaleDecimal returns the decimal number s times 10^exp, rounded once:
// the power of ten goes into the exponent before parsing, so "16.38" Kbyte
// is 16380 bytes exactly, not 16379.999999999998.
func scaleDecimal(s string, exp int) float64 {
	mant, e := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, _ = strconv.Atoi(s[i+1:])
	}
	v, _ := strconv.ParseFloat(mant+"e"+strconv.Itoa(e+exp), 64)
	return v
}

// ncuPrefixes are the SI prefixes ncu puts on units, as powers of ten.
var ncuPrefixes = map[byte]int{'n': -9, 'u': -6, 'm': -3, 'K': 3, 'M': 6, 'G': 9, 'T': 12, 'P': 15}

// ncuBaseUnits are the unit words prefixes are removed from, with the name
// they take in the table.
var ncuBaseUnits = map[string]string{
	"second": "s", "byte": "bytes", "cycle": "cycle", "inst": "inst", "warp": "warp",
	"thread": "thread", "sector": "sector", "request": "request", "block": "block", "register": "register",
}

// normalizeNCUUnit returns the unit values are stored in and the power of
// ten that converts a value in unit into it.
func normalizeNCUUnit(unit string) (string, int) {
	unit = strings.TrimSpace(unit)
	if unit == "" {
		return "1", 0
	}
	parts := strings.Split(unit, "/")
	exp := 0
	for i, p := range parts {
		base, e := normalizeUnitWord(p)
		parts[i] = base
		if i == 0 {
			exp += e
		} else {
			exp -= e
		}
	}
	return strings.Join(parts, "/"), exp
}

func normalizeUnitWord(w string) (string, int) {
	if b, ok := ncuBaseUnits[w]; ok {
		return b, 0
	}
	if len(w) > 1 {
		if e, ok := ncuPrefixes[w[0]]; ok {
			if b, ok := ncuBaseUnits[w[1:]]; ok {
				return b, e
			}
		}
	}
	return w, 0
}
