package compile

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/internal/jsregex"
)

// maxPatternText is the largest text result, in bytes, a `body match`
// pattern is derived and verified against; a value found in a larger one
// gets a question instead.
const maxPatternText = 1 << 20

// textPattern derives a `body match` pattern whose first match's group 1
// is the token at sp of text, and checks it on text with the engine
// replay uses. It tries the text just before the token on its line,
// longer and longer, then the whole line anchored at a line start, and
// last the same anchored at the line's position (positional is then set:
// the pattern counts lines, like a bind that reads an array position).
// It returns "" when no pattern picks the token.
//
// The context never holds a value the result's own step sent through a
// hole (sent): where it would, a token class stands in its place, so the
// pattern still matches when that value changes (`The sum of 1200 and
// [^…]+ is (…)`). A field value (field set: `version: 4.12.0`) is tried
// with its whole line prefix first, so it is picked by its key.
func textPattern(text string, sp span, sent []string, field bool) (pattern string, positional bool) {
	if len(text) > maxPatternText {
		return "", false
	}
	tok := text[sp.start:sp.end]
	lineStart := strings.LastIndexByte(text[:sp.start], '\n') + 1
	prefix := text[lineStart:sp.start]
	// The group stops before a token's trailing dots, as tokens do. A name
	// is first picked by its shape — its stable ends (`meeting-…​.txt`) —
	// so another file listed before it is not taken instead.
	groups := []string{"(" + tokenChar + "*" + tokenEnd + ")"}
	if prefix, ext := shapeOf(tok); isNameToken(tok) && (prefix != "" || ext != "") {
		shaped := "(" + escapeRegex(prefix) + tokenChar + "*?" + escapeRegex(ext) + ")(?=\\.*(?:" + sepChar + "|$))"
		groups = append([]string{shaped}, groups...)
	}
	try := func(p string) bool {
		re, err := jsregex.CompileUncached(p)
		if err != nil {
			return false
		}
		got, ok, err := jsregex.FirstGroup(re, text)
		return err == nil && ok && got == tok
	}
	ctx := func(c string) string { return escapeContext(c, sent) }
	for _, group := range groups {
		if field {
			if p := `(?:^|\n)` + ctx(prefix) + group; try(p) {
				return p, false
			}
		}
		for _, n := range []int{8, 16, 32} {
			if n >= len(prefix) {
				break
			}
			cut := len(prefix) - n
			for cut < len(prefix) && !utf8.RuneStart(prefix[cut]) {
				cut++
			}
			tail := prefix[cut:]
			// Start the context at a token boundary, so it does not begin
			// inside a word that may change.
			if i := strings.IndexFunc(tail, isSeparator); i > 0 {
				tail = tail[i:]
			}
			if strings.TrimSpace(tail) == "" {
				continue
			}
			if p := ctx(tail) + group; try(p) {
				return p, false
			}
		}
		if p := `(?:^|\n)` + ctx(prefix) + group; try(p) {
			return p, false
		}
	}
	group := groups[len(groups)-1]
	line := strings.Count(text[:lineStart], "\n")
	if p := `^(?:.*\n){` + strconv.Itoa(line) + `}` + ctx(prefix) + group; line > 0 && try(p) {
		return p, true
	}
	return "", false
}

// escapeContext quotes context text for a pattern, with a token class in
// place of each value the step sent (longest first).
func escapeContext(c string, sent []string) string {
	var b strings.Builder
	for i := 0; i < len(c); {
		best := ""
		for _, v := range sent {
			if len(v) >= 2 && len(v) > len(best) && strings.HasPrefix(c[i:], v) {
				best = v
			}
		}
		if best != "" {
			b.WriteString(tokenChar + "+")
			i += len(best)
			continue
		}
		_, size := utf8.DecodeRuneInString(c[i:])
		b.WriteString(escapeRegex(c[i : i+size]))
		i += size
	}
	return b.String()
}

// escapeRegex quotes text for a JavaScript pattern written between
// slashes on one line.
func escapeRegex(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '^', '$', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				b.WriteString(`\x`)
				b.WriteString(strconv.FormatInt(int64(r)+0x100, 16)[1:])
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// labelBefore returns the last word before a token on its line, as a
// name ("[FILE] a.txt" → "FILE", "Temperature: 36" → "Temperature"), or "".
func labelBefore(prefix string) string {
	words := strings.FieldsFunc(prefix, func(r rune) bool { return isSeparator(r) || r == '.' || r == '-' })
	for i := len(words) - 1; i >= 0 && i >= len(words)-2; i-- {
		if w := snake(words[i]); w != "" && !startsWithDigit(w) && !strings.HasPrefix(w, "v_") && !labelStopwords[w] {
			return w
		}
	}
	return ""
}

// labelStopwords are words before a value that do not say what it is.
var labelStopwords = setOf(`a an the is are was be of to in on at by for from with and or
	as than then into onto per via its it this that`)
