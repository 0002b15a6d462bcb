package compile

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reelier/reelier/redact"
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

// tokenChar and sepChar are the regular-expression classes of a token's
// characters and of the separators between tokens (isSeparator's ASCII
// separators and blanks).
const (
	tokenChar = `[^\s/\\,;:=?&#"'` + "`" + `()\[\]{}<>|!*+$%^~]`
	sepChar   = `[\s/\\,;:=?&#"'` + "`" + `()\[\]{}<>|!*+$%^~]`
	// tokenEnd is a token character other than a dot: a token ends with
	// one, since trailing dots end a sentence.
	tokenEnd = `[^\s/\\,;:=?&#"'` + "`" + `()\[\]{}<>|!*+$%^~.]`
)

// shapeOf returns the stable ends of a name: the letters before its first
// digit, up to and including the last `-`, `_` or `.` among them
// (`meeting-` of `meeting-2026-03-02.txt`), and its extension (`.txt`).
// A name with neither gives two empty strings.
func shapeOf(name string) (prefix, ext string) {
	if first := strings.IndexAny(name, "0123456789"); first > 0 {
		if cut := strings.LastIndexAny(name[:first], "-_."); cut >= 0 {
			prefix = name[:cut+1]
		}
	}
	if dot := strings.LastIndexByte(name, '.'); dot > 0 && dot > len(prefix)-1 && len(name)-dot-1 >= 1 && len(name)-dot-1 <= 5 {
		e := name[dot+1:]
		letter := false
		for i := 0; i < len(e); i++ {
			c := e[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return prefix, ""
			}
			letter = letter || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		}
		if letter {
			ext = "." + e
		}
	}
	return prefix, ext
}

// valueShape is the `matches` pattern a bound single-line string is held
// to: its folder (for a path) and the stable ends of its name, anything in
// between (`^\/inbox\/report-.*\.csv$`). A value that is no name or path,
// or has no stable ends, gives "".
func valueShape(v string) string {
	if v == "" || strings.ContainsAny(v, " \t\r\n") || isRedacted(v) {
		return ""
	}
	dir, name := "", v
	if i := strings.LastIndexByte(v, '/'); i >= 0 {
		dir, name = v[:i+1], v[i+1:]
	}
	if !isNameToken(name) && dir == "" {
		return ""
	}
	prefix, ext := shapeOf(name)
	if dir == "" && prefix == "" && ext == "" {
		return ""
	}
	return "^" + escapeRegex(dir+prefix) + ".*" + escapeRegex(ext) + "$"
}

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

// isRedacted reports whether a value holds a redaction placeholder —
// «redacted», or «redacted:NAME» for a variable REELIER_REDACT named: it
// is not a value the recording saw, and never matches anything.
func isRedacted(s string) bool { return redact.HasMarker(s) }

// snake turns an argument key or a label into a variable name:
// `entityName` → entity_name, `File Name` → file_name; "" when nothing
// usable is left.
func snake(s string) string {
	if isSnake(s) {
		return s
	}
	return snakeSlow(s)
}

// snakeSlow is snake, rune by rune.
func snakeSlow(s string) string {
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

// isSnake reports a key snake returns as it is: lower-case letters and
// digits, not first, joined by single underscores, at most 40 of them.
func isSnake(s string) bool {
	if s == "" || len(s) > 40 || s[0] >= '0' && s[0] <= '9' || s[0] == '_' || s[len(s)-1] == '_' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
		case c == '_' && s[i-1] != '_':
		default:
			return false
		}
	}
	return true
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
