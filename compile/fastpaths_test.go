package compile

import "testing"

var fastPathCases = []string{
	"", "a", "id", "user_id", "userId", "created_at", "a__b", "_a", "a_", "1a", "a1", "Step 3 of the workflow",
	" lead", "trail ", "two  spaces", "tab\there", "line\nbreak", "ünï", "del\x7f", "a b c", "x_y_z_" + "0123456789012345678901234567890123456789",
}

// TestFastPaths checks the shortcuts of snake and oneLine against their
// rune-by-rune forms.
func TestFastPaths(t *testing.T) {
	for _, s := range fastPathCases {
		checkFastPaths(t, s)
	}
}

func checkFastPaths(t *testing.T, s string) {
	t.Helper()
	if isSnake(s) && snakeSlow(s) != s {
		t.Errorf("snake(%q): isSnake, but the slow path gives %q", s, snakeSlow(s))
	}
	if snake(s) != snakeSlow(s) {
		t.Errorf("snake(%q) = %q, slow %q", s, snake(s), snakeSlow(s))
	}
	if oneLine(s) != oneLineSlow(s) {
		t.Errorf("oneLine(%q) = %q, slow %q", s, oneLine(s), oneLineSlow(s))
	}
}

func FuzzFastPaths(f *testing.F) {
	for _, s := range fastPathCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkFastPaths(t, s) })
}
