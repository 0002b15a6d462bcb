package compile

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reelier/reelier/trace"
)

// Tokens. A text result, and a string a call sends, are cut into tokens
// at separators: blanks and the punctuation that delimits names in paths,
// URLs, lists and prose. `.`, `-`, `_` and `@` do not separate, so a file
// name, a host, a slug or an address stays one token.
//
// The token is the unit of text dataflow: a string a call sends that
// equals, or holds as one of its tokens, a token of an earlier result is
// taken from that result (a `body match` bind, or a hole inside a longer
// string).

// isSeparator reports whether r ends a token.
func isSeparator(r rune) bool {
	if unicode.IsSpace(r) || unicode.IsControl(r) {
		return true
	}
	switch r {
	case '/', '\\', ',', ';', ':', '=', '?', '&', '#', '"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', '|', '!', '*', '+', '$', '%', '^', '~':
		return true
	}
	return false
}

// tokenClass is the regular-expression class of token characters, the
// complement of isSeparator for the ASCII separators (and blanks).
const tokenClass = `[^\s/\\,;:=?&#"'` + "`" + `()\[\]{}<>|!*+$%^~]+`

// span is a token's byte range in its text.
type span struct{ start, end int }

// tokenSpans returns the tokens of s, in order. A token's trailing dots
// are not part of it: they end a sentence ("… is 40.").
func tokenSpans(s string, out []span) []span {
	start := -1
	add := func(end int) {
		for end > start && s[end-1] == '.' {
			end--
		}
		if end > start {
			out = append(out, span{start, end})
		}
	}
	for i, r := range s {
		if isSeparator(r) {
			if start >= 0 {
				add(i)
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		add(len(s))
	}
	return out
}

// minTokenLen is the shortest token text dataflow looks for inside a
// longer string; whole values are looked up whatever their length.
const minTokenLen = 4

// isNameToken reports whether a token reads as a name rather than a word
// of prose: it holds a digit or one of `.`, `_`, `-`, `@`, or an upper-case
// letter after its first character. Prose words an agent repeats from a
// result it read ("Quarterly", "report") are text it wrote, not values it
// carried; they get a question, not a bind.
func isNameToken(tok string) bool {
	for i, r := range tok {
		switch {
		case r >= '0' && r <= '9', r == '.', r == '_', r == '-', r == '@':
			return true
		case i > 0 && unicode.IsUpper(r):
			return true
		}
	}
	return false
}

// isRedacted reports whether a value holds the redaction placeholder: it is
// not a value the recording saw, and never matches anything.
func isRedacted(s string) bool { return strings.Contains(s, trace.Redacted) }

// snake turns an argument key or a label into a variable name:
// `entityName` → entity_name, `File Name` → file_name; "" when nothing
// usable is left.
func snake(s string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			if prevLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			prevLower = true
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
			prevLower = false
		}
	}
	out := strings.Trim(b.String(), "_")
	if utf8.RuneCountInString(out) > 40 {
		out = strings.TrimRight(out[:40], "_")
	}
	if out != "" && out[0] >= '0' && out[0] <= '9' {
		out = "v_" + out
	}
	return out
}

// genericKeys are argument keys that say nothing about what a value is;
// a bind named after one would not help a reader.
var genericKeys = setOf(`a b c x y n value values text content data input
	arg args param params query q body item items path uri url key val str
	string number num string1 string2 message msg`)

// singular drops a plural's s: entities → entity, files → file.
func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 4:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses"), strings.HasSuffix(s, "ches"), strings.HasSuffix(s, "shes"), strings.HasSuffix(s, "xes"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss") && len(s) > 3:
		return s[:len(s)-1]
	}
	return s
}

// setOf makes a set of the blank-separated words of s.
func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
