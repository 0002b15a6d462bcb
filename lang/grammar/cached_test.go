package grammar

import (
	"errors"
	"testing"
)

func TestCached(t *testing.T) {
	var m map[string]*string
	calls := 0
	parse := func(src string) (*string, error) {
		calls++
		if src == "bad" {
			return nil, errors.New("bad")
		}
		s := src + "!"
		return &s, nil
	}
	for _, tc := range []struct {
		src       string
		want      string
		wantErr   bool
		wantCalls int
	}{
		{"a", "a!", false, 1},
		{"a", "a!", false, 1}, // kept
		{"b", "b!", false, 2},
		{"bad", "", true, 3},
		{"bad", "", true, 4}, // a failure is not kept
		{"b", "b!", false, 4},
	} {
		g, err := cached(&m, tc.src, parse)
		if (err != nil) != tc.wantErr || err == nil && *g != tc.want || calls != tc.wantCalls {
			t.Errorf("cached(%q) = %v, %v after %d parses; want %q, error %v after %d", tc.src, g, err, calls, tc.want, tc.wantErr, tc.wantCalls)
		}
	}
	if len(m) != 2 {
		t.Errorf("the map holds %d texts, want 2", len(m))
	}
}
