package jsondata

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// appendStringRuneByRune is AppendString as it was written first, one rune
// at a time: the reference the run-copying version must match byte for
// byte.
func appendStringRuneByRune(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch r {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			if r < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xF])
				continue
			}
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

var appendStringCases = []struct{ name, in string }{
	{"empty", ""},
	{"plain", "hello world"},
	{"quote and backslash", `say "hi" \ bye`},
	{"controls", "a\nb\rc\td\be\ff\x00g\x1fh\x7f"},
	{"escape first and last", "\"middle\""},
	{"multibyte", "héllo — 日本語 🎉"},
	{"U+FFFD written", "a\uFFFDb"},
	{"invalid bytes", "a\xffb\xc3"},
	{"truncated sequence at end", "ok\xe6\x97"},
	{"encoded surrogate", "\xed\xa0\x80x"},
	{"line separators", "a\u2028b\u2029c"},
	{"template", `https://api.example.test/orders?page=3&cursor={{cursor2}}`},
}

func TestAppendStringMatchesRuneByRune(t *testing.T) {
	for _, tc := range appendStringCases {
		t.Run(tc.name, func(t *testing.T) {
			want := string(appendStringRuneByRune([]byte("prefix"), tc.in))
			if got := string(AppendString([]byte("prefix"), tc.in)); got != want {
				t.Errorf("AppendString(%q) = %q, want %q", tc.in, got, want)
			}
			if got := string(AppendStringBytes([]byte("prefix"), []byte(tc.in))); got != want {
				t.Errorf("AppendStringBytes(%q) = %q, want %q", tc.in, got, want)
			}
			if !json.Valid([]byte(want[len("prefix"):])) {
				t.Errorf("%q is not valid JSON", want)
			}
		})
	}
}

// FuzzAppendString checks AppendString against the rune-by-rune reference
// on any input, and that its output is valid JSON.
func FuzzAppendString(f *testing.F) {
	for _, tc := range appendStringCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendString(nil, s)
		if want := appendStringRuneByRune(nil, s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %q, want %q", s, got, want)
		}
		if !json.Valid(got) {
			t.Fatalf("AppendString(%q) = %q is not valid JSON", s, got)
		}
	})
}
