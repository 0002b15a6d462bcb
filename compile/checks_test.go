package compile

import (
	"strings"
	"testing"

	"github.com/reelier/reelier/tool/jsondata"
)

func TestVolatileAt(t *testing.T) {
	tests := []struct {
		s  string
		at int
	}{
		{"plain text", -1},
		{"version 4.12.0", -1},
		{"Revenue: 1200", -1},
		{"id 123456", 3},
		{"sha 0123456789abcdef", 4},
		{"on 2026-03-02 at noon", 3},
		{"at 9:30:00", 3},
		{"at 12:30:00Z", 3},
		{"u 3f2a9c1e-1b2c-4d5e", 2},
		{"deadbeef cafe", -1},
		{"2026-13", -1},
		{"12:30 only", -1},
		{"cafebabecafe", 0},
	}
	for _, tt := range tests {
		if got := volatileAt(tt.s); got != tt.at {
			t.Errorf("volatileAt(%q) = %d, want %d", tt.s, got, tt.at)
		}
	}
}

func TestRawAt(t *testing.T) {
	doc := []byte(` {"a": {"b": [10, {"c": "x\"}y"}, [1,2]], "b2": true}, "a": {"k": "last"}, "e\u0073c": 3, "s": "]}"} `)
	tests := []struct {
		path string
		want string
		ok   bool
	}{
		{"a.k", `"last"`, true}, // a repeated key: the last member counts
		{"a.b", ``, false},      // ... so the first one's members are hidden
		{"esc", `3`, true},
		{"s", `"]}"`, true},
		{"a.k.x", ``, false},
		{"zz", ``, false},
	}
	for _, tt := range tests {
		got, ok := jsondata.RawAt(doc, strings.Split(tt.path, "."))
		if ok != tt.ok || string(got) != tt.want {
			t.Errorf("RawAt(%s) = %q, %v; want %q, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
	nested := []byte(`{"l": [10, {"c": "x\"}y"}, [1, 2]]}`)
	for path, want := range map[string]string{"l.0": `10`, "l.1": `{"c": "x\"}y"}`, "l.1.c": `"x\"}y"`, "l.2.1": `2`, "l.3": ``} {
		got, _ := jsondata.RawAt(nested, strings.Split(path, "."))
		if string(got) != want {
			t.Errorf("RawAt(%s) = %q; want %q", path, got, want)
		}
	}
}

func TestTextPattern(t *testing.T) {
	tests := []struct {
		name       string
		text, tok  string
		sent       []string
		field      bool
		want       string // the pattern must contain this
		positional bool
	}{
		{"listing by shape", "[FILE] README.md\n[FILE] meeting-2026-03-02.txt", "meeting-2026-03-02.txt", nil, false, `\[FILE\] (meeting-`, false},
		{"a value the step sent is a class in the context", "The sum of 1200 and 36 is 1236.", "1236", []string{"36"}, false, "~]+ is (", false},
		{"a field by its key", "{\n  \"name\": \"svc\",\n  \"version\": \"4.12.0\"\n}", "4.12.0", nil, true, `(?:^|\n)  "version": "(`, false},
		{"a sentence's last dot is not the token's", "Build ab12 is live.", "live", nil, false, `is (`, false},
		{"non-ASCII context", "Grüße: wert_1\nÄnderung: wert_2", "wert_2", nil, false, `nderung: (`, false},
		{"position when nothing else picks it", "x a_1\nx a_2", "a_2", nil, false, `^(?:.*\n){1}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := strings.LastIndex(tt.text, tt.tok)
			p, positional := textPattern(tt.text, span{at, at + len(tt.tok)}, tt.sent, tt.field)
			if !strings.Contains(p, tt.want) || positional != tt.positional {
				t.Errorf("pattern %q (positional %v); want it to contain %q (positional %v)", p, positional, tt.want, tt.positional)
			}
		})
	}
}

func TestIsFieldContext(t *testing.T) {
	for prefix, want := range map[string]bool{
		"version: ":         true,
		`    "channel": "`:  true,
		"  - owner: ":       true,
		"PORT=":             true,
		"Weekly sync: ":     false,
		"The sum of 1 and ": false,
		"":                  false,
		"[FILE] ":           false,
		`{"a":"`:            true,
		"key with space = ": false,
	} {
		if got := isFieldContext(prefix); got != want {
			t.Errorf("isFieldContext(%q) = %v, want %v", prefix, got, want)
		}
	}
}

func TestLooksNumeric(t *testing.T) {
	for tok, want := range map[string]bool{
		"36": true, "-1": true, "0": true, "1.5": true, "1e3": true, "1.5E-2": true, "-0.5": true,
		"01": false, "1.": false, ".5": false, "1e": false, "4.12.0": false, "2026-03-02": false,
		"1_000": false, "0x1p-2": false, "Inf": false, "": false, "-": false, "12a": false,
	} {
		if got := looksNumeric(tok); got != want {
			t.Errorf("looksNumeric(%q) = %v, want %v", tok, got, want)
		}
	}
}
