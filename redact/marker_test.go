package redact_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reelier/reelier/redact"
)

// TestMarkers pins which text is a redaction placeholder: the two forms
// the redactor writes, and nothing that only looks like them.
func TestMarkers(t *testing.T) {
	tests := []struct {
		s    string
		want []string // NAME of each placeholder, "-" for the unnamed one
	}{
		{"«redacted»", []string{"-"}},
		{"Bearer «redacted»", []string{"-"}},
		{"«redacted:PAYMENTS_TOKEN»", []string{"PAYMENTS_TOKEN"}},
		{"«redacted» «redacted»", []string{"-", "-"}},
		{"«redacted:LEDGER_KEY» «redacted:AUDIT_KEY»", []string{"LEDGER_KEY", "AUDIT_KEY"}},
		{"user:«redacted:A»@host?k=«redacted»", []string{"A", "-"}},
		{"«redacted:«redacted»", []string{"-"}},
		{"«redacted:a b-c.d»", []string{"a b-c.d"}},
		{"redacted", nil},
		{"«redacted", nil},
		{"«redacted:»", nil},
		{"«redactedness»", nil},
		{"«Redacted»", nil},
		{"[redacted]", nil},
		{"«redacted:A\nB»", nil},
		{"«redacted:" + strings.Repeat("N", 257) + "»", nil},
		{"«redacted:" + strings.Repeat("N", 256) + "»", []string{strings.Repeat("N", 256)}},
	}
	for _, tt := range tests {
		var got []string
		for _, m := range redact.Markers(tt.s, nil) {
			name := m.Name
			if name == "" {
				name = "-"
			}
			got = append(got, name)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Markers(%q) (-want +got):\n%s", tt.s, diff)
		}
		if redact.HasMarker(tt.s) != (len(tt.want) > 0) {
			t.Errorf("HasMarker(%q) = %v", tt.s, !(len(tt.want) > 0))
		}
	}
}

// TestMarkersAreTheRedactors: what the redactor writes for a named
// variable is the placeholder Markers finds, with its name.
func TestMarkersAreTheRedactors(t *testing.T) {
	r := redact.NewRedactor([]string{"PAYMENTS_TOKEN"}, func(string) (string, bool) { return "tok_live_4242", true })
	out := r.String("note", "pay with tok_live_4242 now")
	ms := redact.Markers(out, nil)
	if len(ms) != 1 || ms[0].Name != "PAYMENTS_TOKEN" || out[ms[0].Start:ms[0].End] != redact.NamedRedacted("PAYMENTS_TOKEN") {
		t.Fatalf("redacted %q, markers %+v", out, ms)
	}
}

// FuzzMarkers: any text gives placeholders in order, apart, each exactly
// one of the two forms, and HasMarker agrees; nothing panics.
func FuzzMarkers(f *testing.F) {
	for _, s := range []string{"«redacted»", "a «redacted:X» b «redacted»", "«redacted:«redacted»", "«redacted:»", "«redacted:\x00»", "««redacted»»"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms := redact.Markers(s, nil)
		last := 0
		for _, m := range ms {
			if m.Start < last || m.End <= m.Start || m.End > len(s) {
				t.Fatalf("%q: marker %+v out of order or bounds", s, m)
			}
			want := redact.Redacted
			if m.Name != "" {
				want = redact.NamedRedacted(m.Name)
			}
			if s[m.Start:m.End] != want {
				t.Fatalf("%q: marker %+v is %q, not %q", s, m, s[m.Start:m.End], want)
			}
			last = m.End
		}
		if redact.HasMarker(s) != (len(ms) > 0) {
			t.Fatalf("%q: HasMarker disagrees with %d markers", s, len(ms))
		}
	})
}

// TestMarkersLinear: text made of unclosed openings is read once, not
// once per opening. At 2.2 MB a quadratic scan reads some 200 GB (minutes);
// a linear one a few tens of MB (milliseconds), so the generous bound
// below holds on a loaded machine and still catches the quadratic case.
func TestMarkersLinear(t *testing.T) {
	s := strings.Repeat("«redacted:", 200_000) + "»"
	start := time.Now()
	if ms := redact.Markers(s, nil); len(ms) != 0 {
		t.Fatalf("%d markers in unclosed openings", len(ms))
	}
	if redact.HasMarker(s) {
		t.Fatal("HasMarker finds a marker in unclosed openings")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("reading %d bytes of unclosed openings took %s", len(s), d)
	}
}
