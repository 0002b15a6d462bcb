package agentskill

import (
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

func TestNameProblems(t *testing.T) {
	tests := []struct {
		name string
		bad  bool
	}{
		{"weekly-bookings", false},
		{"a", false},
		{"pdf2png", false},
		{strings.Repeat("a", 64), false},
		{"", true},
		{strings.Repeat("a", 65), true},
		{"Weekly", true},
		{"weekly_bookings", true},
		{"-weekly", true},
		{"weekly-", true},
		{"weekly--bookings", true},
		{"claude-helper", true},
		{"my-anthropic-tool", true},
		{"a<b>", true},
		{"zürich-wetter", false},
		{"Zürich", true},
	}
	for _, tt := range tests {
		if got := NameProblems(tt.name); (len(got) > 0) != tt.bad {
			t.Errorf("NameProblems(%q) = %q; want bad=%v", tt.name, got, tt.bad)
		}
	}
}

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"Weekly Bookings":          "weekly-bookings",
		"memory_onboard--customer": "memory-onboard-customer",
		"  -- ":                    "",
		"Claude session 2f8e":      "agent-session-2f8e",
		"café-menü":                "café-menü",
		strings.Repeat("ab-", 40):  strings.TrimRight(strings.Repeat("ab-", 40)[:64], "-"),
		"../../etc/passwd":         "etc-passwd",
	} {
		got := Name(in)
		if got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
		if got != "" && len(NameProblems(got)) > 0 {
			t.Errorf("Name(%q) = %q, which is not a valid name: %v", in, got, NameProblems(got))
		}
	}
}

func TestDescription(t *testing.T) {
	if got := Description("Replays <b>the</b> recording"); len(DescriptionProblems(got)) > 0 || got != "Replays the recording" {
		t.Errorf("Description = %q (%v)", got, DescriptionProblems(got))
	}
	long := Description(strings.Repeat("x", 2000))
	if len(DescriptionProblems(long)) > 0 {
		t.Errorf("a cut description still fails: %v", DescriptionProblems(long))
	}
	if len(DescriptionProblems("")) == 0 || len(DescriptionProblems(strings.Repeat("y", 1025))) == 0 {
		t.Error("an empty or too long description passes")
	}
}

func TestPlainProblems(t *testing.T) {
	for v, bad := range map[string]bool{
		"Replays the weekly recording (3 steps), compiled without an LLM": false,
		"Replays the weekly recording: 3 steps":                           true,
		"ends with a colon:":                                              true,
		"a #hashtag":                                                      true,
		"- a list":                                                        true,
		"\"quoted\"":                                                      true,
		"weekly-bookings":                                                 false,
		"C#":                                                              false,
		"time 10:30":                                                      false,
		"0":                                                               true, // a number
		"1.5e3":                                                           true,
		"true":                                                            true, // a boolean
		"null":                                                            true,
		"~":                                                               true,
		"yes":                                                             false, // a string in YAML 1.2
		"0x":                                                              false,
	} {
		if got := PlainProblems(v); (len(got) > 0) != bad {
			t.Errorf("PlainProblems(%q) = %q; want bad=%v", v, got, bad)
		}
		if d := Description(v); len(PlainProblems(d)) > 0 {
			t.Errorf("Description(%q) = %q still has %v", v, d, PlainProblems(d))
		}
	}
}

// FuzzMakeValid: whatever text a skill's title or intent holds, Name and
// Description turn it into a value the format accepts, and the description
// reads back from YAML frontmatter as exactly the string written.
func FuzzMakeValid(f *testing.F) {
	for _, s := range []string{"0", "\x87", "0:: 000", "<<A>A>", "", "Look up a package: npm", "# heading", "a #tag", "key:", "<b>bold</b> text", "- list", "Claude's anthropic helper", "ÄÖ über-cool", "x\ty", strings.Repeat("long ", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n := Name(s); n != "" {
			if p := NameProblems(n); len(p) != 0 {
				t.Errorf("Name(%q) = %q: %v", s, n, p)
			}
		}
		d := Description(s)
		if d == "" {
			return
		}
		if p := append(DescriptionProblems(d), PlainProblems(d)...); len(p) != 0 {
			t.Errorf("Description(%q) = %q: %v", s, d, p)
			return
		}
		if !utf8.ValidString(d) || strings.ContainsAny(d, "\n\r") {
			return // the compiler writes single-line valid UTF-8 intents; other text is not claimed
		}
		var doc map[string]any
		if err := yaml.Unmarshal([]byte("description: "+d+"\n"), &doc); err != nil {
			t.Fatalf("Description(%q) = %q is not YAML: %v", s, d, err)
		}
		if got, ok := doc["description"].(string); !ok || got != d {
			t.Errorf("Description(%q) = %q reads back from YAML as %#v", s, d, doc["description"])
		}
	})
}
