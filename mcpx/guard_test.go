package mcpx

import (
	"errors"
	"testing"
)

func TestGuard(t *testing.T) {
	for _, tc := range []struct {
		name     string
		register func()
		want     string
	}{
		{"returns", func() {}, ""},
		{"panics with a string", func() { panic("invalid tool name") }, "invalid tool name"},
		{"panics with an error", func() { panic(errors.New("bad schema")) }, "bad schema"},
		{"panics with a number", func() { panic(42) }, "42"},
	} {
		err := Guard(tc.register)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: Guard = %q, want %q", tc.name, got, tc.want)
		}
	}
}
