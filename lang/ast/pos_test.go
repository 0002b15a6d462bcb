package ast

import "testing"

// TestColumn counts characters, not bytes or UTF-16 units: "é" is 2
// bytes, "中" 3, "😀" 4 bytes and 2 UTF-16 units, and each is one column,
// as is a tab. An invalid byte is one column; an offset inside a character
// gives that character's column; bytes past the end count one each.
func TestColumn(t *testing.T) {
	tests := []struct {
		name string
		line string
		off  int
		want int
	}{
		{"start", "abc", 0, 1},
		{"ascii", "abc", 2, 3},
		{"end of line", "abc", 3, 4},
		{"after é", "é=1", 2, 2},
		{"after 中", "中=1", 3, 2},
		{"after 😀", "😀=1", 4, 2},
		{"after a tab", "\t=1", 1, 2},
		{"after all four", "é中😀\tx", 10, 5},
		{"inside 中", "a中b", 2, 2},
		{"inside 😀", "a😀b", 4, 2},
		{"invalid bytes", "\xff\xfe=", 2, 3},
		{"cut-off character: two invalid bytes", "a\xe4\xb8", 3, 4},
		{"past the end", "é", 4, 4},
		{"empty", "", 0, 1},
		{"negative", "abc", -1, 1},
	}
	for _, tt := range tests {
		if got := Column(tt.line, tt.off); got != tt.want {
			t.Errorf("%s: Column(%q, %d) = %d, want %d", tt.name, tt.line, tt.off, got, tt.want)
		}
	}
}
