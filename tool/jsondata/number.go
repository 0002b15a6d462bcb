package jsondata

import "strings"

// IsNumber reports whether s, whole, is written as a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func IsNumber(s string) bool { return isNumber(s, false) }

// IsDecimal reports whether s is a decimal number in the looser reading of
// a number held in a string: JSON's number syntax, but leading zeros are
// allowed ("007") and a '+' may stand before the sign ("+5", "+-5").
func IsDecimal(s string) bool { return isNumber(strings.TrimPrefix(s, "+"), true) }

// isNumber is IsNumber, with or without leading zeros in the integer part.
func isNumber(s string, leadingZeros bool) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		from := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - from
	}
	switch n := digits(); {
	case n == 0:
		return false
	case n > 1 && s[i-n] == '0' && !leadingZeros:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
