package server

import (
	"strings"
	"testing"
)

func TestKeyNameProblem(t *testing.T) {
	tests := []struct{ name, want string }{
		{"ci", ""},
		{"team deploy key", ""},
		{"", "it must be 1 to 100 bytes"},
		{strings.Repeat("k", 101), "it must be 1 to 100 bytes"},
		{"a\x07b", "it must be printable"},
	}
	for _, tt := range tests {
		if got := KeyNameProblem(tt.name); got != tt.want {
			t.Errorf("KeyNameProblem(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
