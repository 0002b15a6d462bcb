package format_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/reelier/reelier/lang/format"
)

// TestDiffApplies: what Diff and Patch print applies with patch(1) and
// turns old into new exactly — also when a hunk reaches the end of the
// file, and when either side lacks a final line break.
func TestDiffApplies(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch(1) is not installed")
	}
	tests := []struct{ name, old, new string }{
		{"last line changed", "a\nb\nc\n", "a\nb\nC\n"},
		{"line added at the end", "a\nb\n", "a\nb\nc\n"},
		{"no final newline before", "a\nb", "a\nb\n"},
		{"no final newline after", "a\nb\n", "a\nB"},
		{"middle", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n"},
	}
	for _, tt := range tests {
		for _, patchOf := range []func(string, []byte, []byte) string{format.Diff, format.Patch} {
			dir := t.TempDir()
			file := filepath.Join(dir, "s.skill.md")
			if err := os.WriteFile(file, []byte(tt.old), 0o644); err != nil {
				t.Fatal(err)
			}
			d := patchOf("s.skill.md", []byte(tt.old), []byte(tt.new))
			cmd := exec.Command("patch", "-p0", "s.skill.md")
			cmd.Dir = dir
			in, _ := os.CreateTemp(dir, "diff")
			in.WriteString(d)
			in.Seek(0, 0)
			cmd.Stdin = in
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: patch: %v\n%s\n%s", tt.name, err, out, d)
			}
			in.Close()
			got, _ := os.ReadFile(file)
			if string(got) != tt.new {
				t.Errorf("%s: patched file %q, want %q\n%s", tt.name, got, tt.new, d)
			}
		}
	}
}
