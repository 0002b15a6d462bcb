package agentskill

import (
	"strings"
	"testing"
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
	} {
		if got := PlainProblems(v); (len(got) > 0) != bad {
			t.Errorf("PlainProblems(%q) = %q; want bad=%v", v, got, bad)
		}
		if d := Description(v); len(PlainProblems(d)) > 0 {
			t.Errorf("Description(%q) = %q still has %v", v, d, PlainProblems(d))
		}
	}
}
