package jsregex_test

import (
	"testing"

	"github.com/reelier/reelier/internal/jsregex"
)

func TestJavaScriptSemantics(t *testing.T) {
	tests := []struct {
		pattern, input string
		match          bool
	}{
		{`^a(?=b)`, "ab", true},
		{`^a(?!b)`, "ab", false},
		{`(?<=\$)\d+`, "$42", true},
		{`^(\w)\1$`, "aa", true},
		{`^\d{3}$`, "123", true},
		{`^\d{3}$`, "١٢٣", false}, // \d is ASCII only, as in JavaScript
		{`^[a-f0-9]{8}$`, "deadbeef", true},
	}
	for _, tt := range tests {
		re, err := jsregex.Compile(tt.pattern)
		if err != nil {
			t.Fatalf("%s: %v", tt.pattern, err)
		}
		if got, err := re.MatchString(tt.input); err != nil || got != tt.match {
			t.Errorf("%s on %q = %v (%v), want %v", tt.pattern, tt.input, got, err, tt.match)
		}
	}
}

func TestInvalidPatterns(t *testing.T) {
	for _, p := range []string{"(", "[", "a{2,1}", "*a"} {
		if _, err := jsregex.Compile(p); err == nil {
			t.Errorf("%q compiled", p)
		}
	}
}

func TestFirstGroup(t *testing.T) {
	re, _ := jsregex.Compile(`id=(\d+)`)
	if g, ok, err := jsregex.FirstGroup(re, "x id=42 id=7"); !ok || err != nil || g != "42" {
		t.Errorf("got %q %v %v", g, ok, err)
	}
	if _, ok, _ := jsregex.FirstGroup(re, "none"); ok {
		t.Error("matched nothing but reported a group")
	}
	noGroup, _ := jsregex.Compile(`id=\d+`)
	if _, ok, _ := jsregex.FirstGroup(noGroup, "id=1"); ok {
		t.Error("pattern without a group reported group 1")
	}
	optional, _ := jsregex.Compile(`a(b)?`)
	if _, ok, _ := jsregex.FirstGroup(optional, "a"); ok {
		t.Error("non-participating group reported as matched")
	}
}
