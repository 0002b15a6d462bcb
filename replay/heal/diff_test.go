package heal

import "testing"

// TestUnifiedDiff: the proposal's patch applies with patch -p0: both sides
// carry the path, no phantom line follows the last one, and a last line
// without a line break is marked.
func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{name: "equal", old: "a\n", new: "a\n", want: ""},
		{name: "a line added at the end", old: "a\nb\n", new: "a\nb\nc\n",
			want: "--- s.md\n+++ s.md\n@@ -1,2 +1,3 @@\n a\n b\n+c\n"},
		{name: "a line changed in the middle", old: "1\n2\n3\n4\n5\n6\n7\n8\n9\n", new: "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			want: "--- s.md\n+++ s.md\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{name: "no line break at the end", old: "a\nb", new: "a\nb\nc\n",
			want: "--- s.md\n+++ s.md\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n"},
	}
	for _, tt := range tests {
		if got := unifiedDiff("s.md", []byte(tt.old), []byte(tt.new)); got != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}
