package compile

import (
	"strings"
	"testing"
	"time"
)

func TestDateLint(t *testing.T) {
	rec := time.Date(2026, 7, 18, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		lit  string
		kind Kind
		want string // a fragment of the question; "" when the literal is not date-shaped
	}{
		{"2026-07-18", KindDateLiteral, `write "{{today}}" instead`},
		{"2026-07-17", KindDateLiteral, `1 day before the recording date (2026-07-18); if it means 1 day before the day the skill runs, write "{{today-1d}}"`},
		{"2026-07-11", KindDateLiteral, `write "{{today-7d}}"`},
		{"2026-07-19", KindDateLiteral, `write "{{today+1d}}"`},
		{"2027-07-18", KindDateLiteral, `write "{{today+365d}}"`},
		{"2025-07-18", KindDateLiteral, `write "{{today-365d}}"`},
		{"2027-07-19", KindDateLiteral, "366 days after the recording date (2026-07-18); computed dates reach at most 365 days"},
		{"2025-07-17", KindDateLiteral, "366 days before"},
		{"2026-07-11T09:30:00Z", KindDateLiteral, `write "{{today-7d}}T09:30:00Z"`},
		{"2026-07-11T09:30", KindDateLiteral, `write "{{today-7d}}T09:30"`},
		{"2026-07-11T23:30:00-05:00", KindDateLiteral, "falls on 2026-07-12 in UTC"},
		{"2026-07-11T10:00:00+02:00", KindDateLiteral, `write "{{today-7d}}T10:00:00+02:00" instead; if the date is fixed, keep it.`},
		{"2026-02-29", KindImpossibleDate, "2026-02 has no day 29"},
		{"2028-02-29", KindDateLiteral, "591 days after"},
		{"2026-02-30", KindImpossibleDate, "not a real calendar date"},
		{"2026-04-31", KindImpossibleDate, "2026-04 has no day 31"},
		{"2026-13-40", KindImpossibleDate, "there is no month 13"},
		{"2026-00-10", KindImpossibleDate, "there is no month 0"},
		{"2026-07-00", KindImpossibleDate, "has no day 0"},
		{"1.2.3", "", ""},
		{"2026-7-18", "", ""},
		{"2026-07-18 10:00", "", ""},
		{"3f2b8c1e-9a4d-4e7b-b1c2-0d9e8f7a6b5c", "", ""},
		{"20260718", "", ""},
		{"x2026-07-18", "", ""},
	}
	for _, tt := range tests {
		l, ok := dateLint(tt.lit, rec)
		if ok != (tt.want != "") {
			t.Errorf("dateLint(%q) flagged = %v", tt.lit, ok)
			continue
		}
		if ok && (l.kind != tt.kind || !strings.Contains(l.rest, tt.want)) {
			t.Errorf("dateLint(%q) = %s %q\nwant %s containing %q", tt.lit, l.kind, l.rest, tt.kind, tt.want)
		}
	}
	// An offset that stays on the same UTC day gets no note.
	if l, _ := dateLint("2026-07-11T10:00:00+02:00", rec); strings.Contains(l.rest, "Note:") {
		t.Errorf("same-day offset noted: %s", l.rest)
	}
}

func TestUnixAndUUID(t *testing.T) {
	rec := time.Date(2026, 7, 18, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		lit  string
		want string
	}{
		{"1752847320", "in seconds (2025-07-18T14:02:00Z, 365 days before the recording date)"},
		{"1752847320123", "in milliseconds (2025-07-18T14:02:00.123Z"},
		{"1784332800", "the recording date)"},
		{"1784419200", "1 day after"},
		{"5551234567", ""},  // a phone number: year 2145
		{"0999999999", ""},  // a leading zero
		{"175284732", ""},   // nine digits
		{"-1752847320", ""}, // negative
		{"17528473201", ""}, // eleven digits
	}
	for _, tt := range tests {
		l, ok := unixLint(tt.lit, rec, true)
		if ok != (tt.want != "") || ok && !strings.Contains(l.rest, tt.want) {
			t.Errorf("unixLint(%q) = %v %q, want %q", tt.lit, ok, l.rest, tt.want)
		}
	}
	if l, ok := unixLint("1752847320", time.Time{}, false); !ok || strings.Contains(l.rest, "recording") {
		t.Errorf("without a recording date: %v %q", ok, l.rest)
	}
	for s, want := range map[string]bool{
		"3f2b8c1e-9a4d-4e7b-b1c2-0d9e8f7a6b5c":   true,
		"9E5B1C2D-1111-4222-8333-444455556666":   true,
		"3f2b8c1e-9a4d-4e7b-b1c2-0d9e8f7a6b5":    false,
		"3f2b8c1e_9a4d-4e7b-b1c2-0d9e8f7a6b5c":   false,
		"3f2b8c1e-9a4d-4e7b-b1c2-0d9e8f7a6b5g":   false,
		"{3f2b8c1e-9a4d-4e7b-b1c2-0d9e8f7a6b5c}": false,
	} {
		if isUUID(s) != want {
			t.Errorf("isUUID(%q) = %v", s, !want)
		}
	}
}
