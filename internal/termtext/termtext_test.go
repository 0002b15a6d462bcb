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

// TestEscapesEveryControl: every character the project's rule for
// untrusted text names — C0 but tab, DEL, C1 (NEL among them), the line
// and paragraph separators, the bidi overrides, embeddings and isolates —
// is escaped by Line, and by Block but for the line break; nothing of
// them is left raw.
func TestEscapesEveryControl(t *testing.T) {
	var controls []rune
	for r := rune(0); r < 0x20; r++ {
		if r != '\t' {
			controls = append(controls, r)
		}
	}
	controls = append(controls, 0x7f)
	for r := rune(0x80); r <= 0x9f; r++ {
		controls = append(controls, r)
	}
	controls = append(controls, 0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c)
	for _, r := range controls {
		in := "a" + string(r) + "b"
		if got := Line(in); strings.ContainsRune(got, r) || got == in {
			t.Errorf("Line(%q) = %q: U+%04X left raw", in, got, r)
		}
		got := Block(in)
		if r == '\n' {
			if got != in {
				t.Errorf("Block(%q) = %q: the line break changed", in, got)
			}
			continue
		}
		if strings.ContainsRune(got, r) {
			t.Errorf("Block(%q) = %q: U+%04X left raw", in, got, r)
		}
	}
	if got := Line("a\tb"); got != "a\tb" {
		t.Errorf("Line kept no tab: %q", got)
	}
}

// TestForbidden: the rule's set, and FirstForbidden finds the first.
func TestForbidden(t *testing.T) {
	for r := rune(0); r < 0x3000; r++ {
		want := r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
		if Forbidden(r) != want {
			t.Errorf("Forbidden(%s) = %v", CodePoint(r), !want)
		}
	}
	tests := []struct {
		in   string
		at   int
		want rune
	}{
		{"npx -y server", -1, 0},
		{"a\tb שלום \u200f", -1, 0},
		{"é\u0085x", 2, 0x85},
		{"ab\x1b[2K", 2, 0x1b},
		{"a\u202eb\x00", 1, 0x202e},
		{"\xff\x7f", 1, 0x7f},
	}
	for _, tt := range tests {
		if at, r := FirstForbidden(tt.in); at != tt.at || r != tt.want {
			t.Errorf("FirstForbidden(%q) = %d, %s; want %d, %s", tt.in, at, CodePoint(r), tt.at, CodePoint(tt.want))
		}
	}
	if CodePoint(0x85) != "U+0085" || CodePoint(0x202e) != "U+202E" || CodePoint(0x1f600) != "U+1F600" {
		t.Error("CodePoint")
	}
}
