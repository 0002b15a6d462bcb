package compile

import (
	"strconv"
	"strings"

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
func textPattern(text string, sp span) (pattern string, positional bool) {
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
	for _, group := range groups {
		for _, n := range []int{8, 16, 32} {
			if n >= len(prefix) {
				break
			}
			tail := prefix[len(prefix)-n:]
			// Start the context at a token boundary, so it does not begin
			// inside a word that may change.
			if i := strings.IndexFunc(tail, isSeparator); i > 0 {
				tail = tail[i:]
			}
			if strings.TrimSpace(tail) == "" {
				continue
			}
			if p := escapeRegex(tail) + group; try(p) {
				return p, false
			}
		}
		if p := `(?:^|\n)` + escapeRegex(prefix) + group; try(p) {
			return p, false
		}
	}
	group := groups[len(groups)-1]
	line := strings.Count(text[:lineStart], "\n")
	if p := `^(?:.*\n){` + strconv.Itoa(line) + `}` + escapeRegex(prefix) + group; line > 0 && try(p) {
		return p, true
	}
	return "", false
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
		if w := snake(words[i]); w != "" && !startsWithDigit(w) && !strings.HasPrefix(w, "v_") {
			return w
		}
	}
	return ""
}
