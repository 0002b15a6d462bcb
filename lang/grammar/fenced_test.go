package grammar

import "testing"

func TestFenced(t *testing.T) {
	lines := []struct {
		t     string
		skip  bool
		after string
	}{
		{"- a", false, ""},
		{"```json", true, "```"},
		{"- inside", true, "```"},
		{"~~~", true, "```"}, // another fence does not close it
		{"```", true, ""},
		{"- b", false, ""},
		{"~~~~", true, "~~~"},
		{"````", true, "~~~"},
		{"~~~ end", true, ""},
		{"text ```", false, ""},
	}
	fence := ""
	for i, l := range lines {
		if got := fenced(&fence, l.t); got != l.skip || fence != l.after {
			t.Errorf("line %d %q: fenced = %v with fence %q, want %v with %q", i, l.t, got, fence, l.skip, l.after)
		}
	}
}
