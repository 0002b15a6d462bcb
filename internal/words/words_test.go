package words

import (
	"fmt"
	"testing"
)

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n          int
		noun, want string
	}{
		{0, "step", "0 steps"},
		{1, "step", "1 step"},
		{2, "call", "2 calls"},
		{-1, "day", "-1 days"},
		{12, "MCP server", "12 MCP servers"},
	} {
		if got := Count(tc.n, tc.noun); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
		// The forms the helpers replaced wrote it with Sprintf.
		if old := fmt.Sprintf("%d %s", tc.n, Noun(tc.n, tc.noun)); old != tc.want {
			t.Errorf("%d %q: Noun gives %q", tc.n, tc.noun, old)
		}
	}
	for n, want := range map[int]string{0: "s", 1: "", 2: "s", -1: "s"} {
		if got := Suffix(n); got != want {
			t.Errorf("Suffix(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestIsIdent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"a", true},
		{"_", true},
		{"_x9", true},
		{"Name_2", true},
		{"", false},
		{"9a", false},
		{"a-b", false},
		{"a.b", false},
		{"a b", false},
		{"é", false},
		{"aé", false},
		{"a\x00", false},
	} {
		if got := IsIdent(tc.in); got != tc.want {
			t.Errorf("IsIdent(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzIsIdent holds IsIdent to the rune-by-rune form serve used.
func FuzzIsIdent(f *testing.F) {
	for _, s := range []string{"a", "9", "_x", "é", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := s != ""
		for i, c := range s {
			if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
				want = false
			}
		}
		if got := IsIdent(s); got != want {
			t.Fatalf("IsIdent(%q) = %v, want %v", s, got, want)
		}
	})
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in           string
		n            int
		bytes, runes string
	}{
		{"", 3, "", ""},
		{"abc", 3, "abc", "abc"},
		{"abcd", 3, "abc…", "abc…"},
		{"abc", 0, "…", "…"},
		{"héllo", 2, "h…", "hé…"},
		{"héllo", 3, "hé…", "hél…"},
		{"日本語", 4, "日…", "日本語"},
		{"日本語", 2, "…", "日本…"},
	} {
		if got := Clip(tc.in, tc.n); got != tc.bytes {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.bytes)
		}
		if got := ClipRunes(tc.in, tc.n); got != tc.runes {
			t.Errorf("ClipRunes(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.runes)
		}
	}
}
