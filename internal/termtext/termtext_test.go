package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLineAndBlock(t *testing.T) {
	tests := []struct {
		name, in, line, block string
	}{
		{"plain", "List bookings — é 日本 🙂", "List bookings — é 日本 🙂", "List bookings — é 日本 🙂"},
		{"empty", "", "", ""},
		{"tab kept", "a\tb", "a\tb", "a\tb"},
		{"clear screen", "Hi\x1b[2J\x1b[H", `Hi\x1b[2J\x1b[H`, `Hi\x1b[2J\x1b[H`},
		{"title sequence", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`, `\x1b]0;pwned\x07`},
		{"carriage return", "PASS\rFAIL", `PASS\rFAIL`, `PASS\rFAIL`},
		{"newline", "a\nb", `a\nb`, "a\nb"},
		{"crlf", "a\r\nb\r\n", `a\r\nb\r\n`, "a\nb\n"},
		{"lone cr before text", "a\r\r\nb", `a\r\r\nb`, "a\\r\nb"},
		{"backspace and nul", "ab\b\x00", `ab\x08\x00`, `ab\x08\x00`},
		{"del", "x\x7f", `x\x7f`, `x\x7f`},
		{"c1 csi", "x\u009b2J", `x\u009b2J`, `x\u009b2J`},
		{"c1 nel", "x\u0085y", `x\u0085y`, `x\u0085y`},
		{"rlo", "abc\u202Egnp.exe", `abc\u202egnp.exe`, `abc\u202egnp.exe`},
		{"bidi embeddings", "\u202a\u202b\u202c\u202d", `\u202a\u202b\u202c\u202d`, `\u202a\u202b\u202c\u202d`},
		{"bidi isolates", "\u2066\u2067\u2068\u2069", `\u2066\u2067\u2068\u2069`, `\u2066\u2067\u2068\u2069`},
		{"bidi marks", "\u200e\u200f\u061c", `\u200e\u200f\u061c`, `\u200e\u200f\u061c`},
		{"line separators", "a\u2028b\u2029c", `a\u2028b\u2029c`, `a\u2028b\u2029c`},
		{"zero width joiner kept", "👩\u200d💻", "👩\u200d💻", "👩\u200d💻"},
		{"invalid utf-8", "a\xffb\xc3", `a\xffb\xc3`, `a\xffb\xc3`},
		{"raw c1 byte", "a\x9b2J", `a\x9b2J`, `a\x9b2J`},
		{"backslash left alone", `C:\x1b`, `C:\x1b`, `C:\x1b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Line(tt.in); got != tt.line {
				t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.line)
			}
			if got := Block(tt.in); got != tt.block {
				t.Errorf("Block(%q) = %q, want %q", tt.in, got, tt.block)
			}
		})
	}
}

// TestUnchangedIsNotCopied: text with nothing to escape comes back as is.
func TestUnchangedIsNotCopied(t *testing.T) {
	s := strings.Repeat("safe text\t", 100)
	if n := testing.AllocsPerRun(10, func() { Line(s) }); n != 0 {
		t.Errorf("Line allocated %v times on safe text", n)
	}
}

// checkSafe fails unless out holds nothing a terminal would obey.
func checkSafe(t *testing.T, in, out string, multiline bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%q → %q: not valid UTF-8", in, out)
	}
	for _, r := range out {
		bad := r < 0x20 && r != '\t' && !(r == '\n' && multiline) || r == 0x7f || unsafeRune(r)
		if bad {
			t.Fatalf("%q → %q: still holds %U", in, out, r)
		}
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[2J", "a\r\nb", "\u202e", "\xff\xfe", "\u009b", "a\tb\n", "\r\r\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line, block := Line(s), Block(s)
		checkSafe(t, s, line, false)
		checkSafe(t, s, block, true)
		if strings.Contains(line, "\n") {
			t.Fatalf("Line(%q) = %q holds a line break", s, line)
		}
		if Line(line) != line || Block(block) != block {
			t.Fatalf("escaping is not idempotent on %q", s)
		}
		// Block differs from Line only in the line breaks it keeps.
		if want := Line(strings.ReplaceAll(s, "\r\n", "\n")); Line(block) != want {
			t.Fatalf("Line(Block(%q)) = %q, want %q", s, Line(block), want)
		}
		if firstUnsafe(s, false) < 0 && line != s {
			t.Fatalf("safe %q changed to %q", s, line)
		}
	})
}
