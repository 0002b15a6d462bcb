// Package words holds the small word helpers that messages and checks
// share: a count with its noun ("1 step", "3 steps") and the identifier
// rule of variable, input and bind names ([A-Za-z_][A-Za-z0-9_]*).
package words

import (
	"strconv"
	"unicode/utf8"
)

// Count renders n with noun, in the plural unless n is 1: "1 step",
// "3 steps", "0 steps".
func Count(n int, noun string) string { return strconv.Itoa(n) + " " + Noun(n, noun) }

// Noun is noun for one, and its plural (an added s) otherwise.
func Noun(n int, noun string) string { return noun + Suffix(n) }

// Suffix is the plural ending for a count of n: "" for 1, "s" otherwise.
func Suffix(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// IsIdent reports whether s is an identifier: [A-Za-z_][A-Za-z0-9_]*.
func IsIdent(s string) bool {
	return IsWord(s) && !(s[0] >= '0' && s[0] <= '9')
}

// IsWord reports whether s is a word: [A-Za-z0-9_]+, an identifier that
// may start with a digit (a path segment written bare, an argument name
// shown unquoted).
func IsWord[T ~string | ~[]byte](s T) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsIdentByte(s[i]) {
			return false
		}
	}
	return true
}

// IsIdentByte reports whether c may stand in an identifier: an ASCII
// letter, digit or underscore.
func IsIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Clip shortens s to at most n bytes, cut on a character boundary and
// marked with "…"; a string that fits is returned as it is.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ClipRunes shortens s to n characters, marked with "…"; a string of at
// most n characters is returned as it is.
func ClipRunes(s string, n int) string {
	k := 0
	for i := range s {
		if k == n {
			return s[:i] + "…"
		}
		k++
	}
	return s
}
