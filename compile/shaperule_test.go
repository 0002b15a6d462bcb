package compile

import (
	"strings"
	"testing"
)

func TestShapesOf(t *testing.T) {
	tests := []struct {
		value    string
		patterns []string
		same     []string // values every shape matches
		other    []string // values the last shape does not match
	}{
		{value: "feature/login-form", patterns: []string{`^feature\/`}, same: []string{"feature/dark-mode"}, other: []string{"bugfix/typo", "main"}},
		{value: "release: 2.4.0", patterns: []string{`^release:`, `^release: \d+\.\d+\.\d+$`}, same: []string{"release: 2.10.0"}, other: []string{"release: 2.4", "docs: 2.4.0"}},
		{value: "v3.0.0-rc.1", patterns: []string{`^v\d+\.\d+\.\d+-rc\.\d+$`}, same: []string{"v2.9.0-rc.12"}, other: []string{"v3.0.0", "v3.0.0-beta.1"}},
		{value: "main"},
		{value: "2026"},
		{value: "/srv/a: b"},
		{value: "two\nlines 1"},
	}
	for _, tt := range tests {
		got := shapesOf(tt.value)
		var pats []string
		for _, sh := range got {
			pats = append(pats, sh.pattern())
			if !sh.match(tt.value) {
				t.Errorf("%q: shape %s does not match the value itself", tt.value, sh.pattern())
			}
		}
		if strings.Join(pats, " ") != strings.Join(tt.patterns, " ") {
			t.Errorf("%q: shapes %q, want %q", tt.value, pats, tt.patterns)
		}
		for _, v := range tt.same {
			for _, sh := range got {
				if !sh.match(v) {
					t.Errorf("%q: shape %s does not match %q", tt.value, sh.pattern(), v)
				}
			}
		}
		for _, v := range tt.other {
			if len(got) > 0 && got[len(got)-1].match(v) {
				t.Errorf("%q: shape %s matches %q", tt.value, got[len(got)-1].pattern(), v)
			}
		}
	}
}

func TestLabelledCopy(t *testing.T) {
	tests := []struct {
		text, val, pattern, label string
	}{
		{text: `{"observations": ["Renewal due", "Account manager: Priya Raman"], "relations": [{"from": "Priya Raman"}]}`, val: "Priya Raman", pattern: `"Account manager: ((?:[^"\\]|\\.)*)"`, label: "account_manager"},
		{text: `{"from": "Priya Raman"}`, val: "Priya Raman"},
		{text: `{"note": "call Priya Raman"}`, val: "Priya Raman"},
		{text: `{"note": "Owner: Priya Raman and Tom"}`, val: "Priya Raman"},
		{text: `{"note": "x", "a": "2 managers: Priya Raman"}`, val: "Priya Raman"},
	}
	for _, tt := range tests {
		src := labelledCopy(tt.text, tt.val)
		switch {
		case tt.pattern == "" && src != nil:
			t.Errorf("%s: found %s, want none", tt.text, src.pattern)
		case tt.pattern != "" && src == nil:
			t.Errorf("%s: found none, want %s", tt.text, tt.pattern)
		case src != nil && (src.pattern != tt.pattern || src.label != tt.label):
			t.Errorf("%s: found %s (%s), want %s (%s)", tt.text, src.pattern, src.label, tt.pattern, tt.label)
		}
	}
}

func TestLetterLed(t *testing.T) {
	for tok, want := range map[string]string{"v2.4.0": "2.4.0", "r1234": "1234", "v1.0": "", "vx2.4.0": "", "2.4.0": "", "v": ""} {
		if got := letterLed(tok); got != want {
			t.Errorf("letterLed(%q) = %q, want %q", tok, got, want)
		}
	}
}
