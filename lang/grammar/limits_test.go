package grammar

import (
	"strings"
	"testing"
)

// TestTooLarge checks the one diagnostic of a file too large for the
// tree's 32-bit positions (a real one would be 2 GiB).
func TestTooLarge(t *testing.T) {
	d := tooLarge("big.skill.md", 1<<31)
	if len(d) != 1 || d[0].Code != CodeFileTooLarge || d[0].Range.Start.Line != 1 || d[0].Range.Start.Column != 1 {
		t.Fatalf("got %v", d)
	}
	if want := "File is 2147483648 bytes long — a skill may be at most 2147483647 bytes"; d[0].Message != want {
		t.Fatalf("message %q, want %q", d[0].Message, want)
	}
	if !strings.Contains(d[0].String(), "file_too_large") {
		t.Fatalf("String() = %q", d[0].String())
	}
}
