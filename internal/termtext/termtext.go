// Package termtext makes text that came from outside — a skill, a trace,
// a server's response, an LLM's reply — safe to print on a terminal.
//
// A terminal obeys some of the characters it is sent: ESC starts a
// control sequence that can clear the screen, move the cursor or set the
// window title; CR returns to the start of the line so what follows
// overwrites it; backspace erases; the C1 controls (U+0080–U+009F) are
// 8-bit forms of ESC sequences; and the Unicode bidi controls reorder
// what a reader sees. A shared skill whose title holds any of them could
// repaint its own receipt. Line and Block replace each such character by
// a visible escape, so the text reads as what it is:
//
//	ESC, C0 controls, DEL  \x1b \x00 … \x7f   (CR is \r, LF in a line is \n)
//	C1 controls            \u0080 … \u009f
//	bidi controls          \u200e \u200f \u061c \u202a … \u202e \u2066 … \u2069
//	line separators        \u2028 \u2029
//	invalid UTF-8          \xNN, one per byte
//
// Forbidden and FirstForbidden are the project's one rule for text that
// came from outside and may not carry these characters at all — a server
// command, a name or a path that reaches a terminal, a YAML file, a shell
// or a workflow: the grammar rejects them in a Servers line, the linter
// reports them anywhere in a skill, and the workflow writer refuses them.
//
// A tab is kept: it only moves the cursor right to the next tab stop, and
// bodies (TSV, indented text) use it for layout. A backslash is not
// escaped: the output is for reading, not for reading back, so `\x1b` in
// the output may be either an escaped ESC or those four characters.
package termtext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Line makes s safe as a one-line field (a title, a name, a message):
// every newline is escaped too, so s stays on one line.
func Line(s string) string { return escape(s, false) }

// Block makes s safe as a multi-line body: line breaks are kept (a CRLF
// is printed as a line break, a lone CR is escaped), everything else is
// escaped as Line escapes it.
func Block(s string) string { return escape(s, true) }

// escape is Line (multiline false) and Block (multiline true).
func escape(s string, multiline bool) string {
	i := firstUnsafe(s, multiline)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' && multiline, c == '\t', c >= 0x20 && c != 0x7f:
				b.WriteByte(c)
			case c == '\r' && multiline && i+1 < len(s) && s[i+1] == '\n':
				// CRLF: the LF that follows is the line break.
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\n':
				b.WriteString(`\n`)
			default:
				writeByteEscape(&b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeByteEscape(&b, c)
		case unsafeRune(r):
			b.WriteString(`\u`)
			hex := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(hex)))
			b.WriteString(hex)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe returns the index of the first byte escape would change,
// or -1.
func firstUnsafe(s string, multiline bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && !(c == '\n' && multiline) || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune reports whether a non-ASCII rune is escaped: a C1 control, a
// bidi control or a line or paragraph separator.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f: // ALM, LRM, RLM
		return true
	case r >= 0x202a && r <= 0x202e: // LRE, RLE, PDF, LRO, RLO
		return true
	case r >= 0x2066 && r <= 0x2069: // LRI, RLI, FSI, PDI
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	}
	return false
}

// writeByteEscape writes \xNN.
func writeByteEscape(b *strings.Builder, c byte) {
	const digits = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(digits[c>>4])
	b.WriteByte(digits[c&0xf])
}

// Forbidden reports whether r is a character untrusted text may not hold
// where it reaches a terminal, a YAML file, a shell or a workflow: a C0
// control other than tab, DEL, a C1 control (NEL, U+0085, among them),
// the line and paragraph separators (YAML 1.1 breaks lines on NEL, LS and
// PS), and the bidi embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069), which reorder what a reader sees. The bidi marks
// (LRM, RLM, ALM) are not: they occur in right-to-left prose, and Line
// and Block still escape them when such text is printed.
func Forbidden(r rune) bool {
	switch {
	case r == '\t':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// FirstForbidden returns the byte offset and the character of the first
// Forbidden character in s, or -1. It reads s once.
func FirstForbidden(s string) (int, rune) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' || c == 0x7f {
				return i, rune(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if Forbidden(r) {
			return i, r
		}
		i += size
	}
	return -1, 0
}

// CodePoint names a character as U+XXXX, for messages about it.
func CodePoint(r rune) string {
	hex := strings.ToUpper(strconv.FormatInt(int64(r), 16))
	if len(hex) < 4 {
		hex = strings.Repeat("0", 4-len(hex)) + hex
	}
	return "U+" + hex
}
