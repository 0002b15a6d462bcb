package diff

import (
	"slices"
	"strings"
	"testing"
)

// TestVolatile: a change is volatile only when both of its sides are the
// same kind of every-run value, in what a tool returned.
func TestVolatile(t *testing.T) {
	tests := []struct {
		name string
		c    Change
		want string
	}{
		{"two date-times", Change{Path: "json.updated", From: `"2026-07-18T14:02:01Z"`, To: `"2026-07-19T09:00:00Z"`, Kind: Changed}, VolatileTime},
		{"date-times with a space", Change{Path: "json.items.0.at", From: `"2026-07-18 14:02:01"`, To: `"2026-07-19 09:00:00"`, Kind: Changed}, VolatileTime},
		{"JavaScript dates", Change{Path: "json.created", From: `"Mon Dec 07 2026 04:35:25 GMT+0000 (Coordinated Universal Time)"`, To: `"Tue Dec 08 2026 05:00:00 GMT+0000 (Coordinated Universal Time)"`, Kind: Changed}, VolatileTime},
		{"a date alone is data", Change{Path: "json.due", From: `"2026-07-18"`, To: `"2026-07-19"`, Kind: Changed}, ""},
		{"text to a date-time", Change{Path: "json.status", From: `"open"`, To: `"2026-07-19T09:00:00Z"`, Kind: Changed}, ""},
		{"what was sent is never volatile", Change{Path: "args.when", From: `"2026-07-18T14:02:01Z"`, To: `"2026-07-19T09:00:00Z"`, Kind: Changed}, ""},
		{"a bind is never volatile", Change{Path: "binds.stamp", From: `"2026-07-18T14:02:01Z"`, To: `"2026-07-19T09:00:00Z"`, Kind: Changed}, ""},
		{"UUIDs", Change{Path: "json.request", From: `"0b6f6a3e-4c1d-4e0a-9a57-2f1d2a9c7e11"`, To: `"7d2c1b9a-1e3f-4a5b-8c6d-9e0f1a2b3c4d"`, Kind: Changed}, VolatileID},
		{"a request id by its name", Change{Path: "json.meta.request_id", From: `"req_81"`, To: `"req_92"`, Kind: Changed}, VolatileID},
		{"a duration by its name", Change{Path: "json.duration_ms", From: `12`, To: `15`, Kind: Changed}, VolatileDuration},
		{"epoch milliseconds under a time name", Change{Path: "json.modifiedTime", From: `1765081525000`, To: `1765167925000`, Kind: Changed}, VolatileTime},
		{"a number under results is no timestamp", Change{Path: "json.results", From: `1765081525`, To: `1765167925`, Kind: Changed}, ""},
		{"seconds since 1970 under created_at", Change{Path: "json.created_at", From: `1765081525`, To: `1765167925`, Kind: Changed}, VolatileTime},
		{"a duration under tookMs", Change{Path: "json.tookMs", From: `3`, To: `9`, Kind: Changed}, VolatileDuration},
		{"a count is data", Change{Path: "json.count", From: `3`, To: `4`, Kind: Changed}, ""},
		{"a small number under a time name is data", Change{Path: "json.times", From: `3`, To: `4`, Kind: Changed}, ""},
		{"added is never volatile", Change{Path: "json.updated", To: `"2026-07-19T09:00:00Z"`, Kind: Added}, ""},
		{"a value cut short is not read", Change{Path: "json.updated", From: `"2026-07-18T14:02:01Z…`, To: `"2026-07-19T09:00:00Z"`, Kind: Changed}, ""},
		{"text lines differing in their times", Change{Path: "body line 3", Kind: Changed, Lines: []string{" size: 12", "-created: Mon Dec 07 2026 04:35:25 GMT+0000 (Coordinated Universal Time)", "+created: Tue Dec 08 2026 05:00:00 GMT+0000 (Coordinated Universal Time)", "-accessed: 2026-12-07T04:35:25.120Z", "+accessed: 2026-12-08T05:00:00.004Z"}}, VolatileTime},
		{"a text line differing in a count", Change{Path: "body line 1", Kind: Changed, Lines: []string{"-open bugs: 3", "+open bugs: 4"}}, ""},
		{"a one-line body differing in its time", Change{Path: "body", From: `"ran at 10:00:01"`, To: `"ran at 10:02:44"`, Kind: Changed}, VolatileTime},
		{"a one-line body that changed", Change{Path: "body", From: `"mcptest: hi"`, To: `"b: hi"`, Kind: Changed}, ""},
		{"a text line added", Change{Path: "body", Kind: Changed, Lines: []string{" a.txt", "+b.txt"}}, ""},
		{"a line whose time and text changed", Change{Path: "body line 1", Kind: Changed, Lines: []string{"-10:00:01 ok", "+10:00:02 failed"}}, ""},
	}
	for _, tc := range tests {
		if got := volatile(tc.c); got != tc.want {
			t.Errorf("%s: volatile = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestLineDiff: a text body's diff shows the lines that changed, with a
// line of context, so a line added to a listing is seen (it was cut to
// the line counts before).
func TestLineDiff(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want []string
	}{
		{"a line added at the end", "a.txt\nb.txt", "a.txt\nb.txt\nc.txt", []string{" b.txt", "+c.txt"}},
		{"a line added in the middle", "a\nb\nc\nd", "a\nb\nnew\nc\nd", []string{" b", "+new", " c"}},
		{"a line changed", "a\nb\nc", "a\nB\nc", []string{" a", "-b", "+B", " c"}},
		{"two runs apart", "1\n2\n3\n4\n5\n6\n7", "1\nX\n3\n4\n5\nY\n7", []string{" 1", "-2", "+X", " 3", "…", " 5", "-6", "+Y", " 7"}},
		{"a line removed", "a\nb\nc", "a\nc", []string{" a", "-b", " c"}},
	}
	for _, tc := range tests {
		got := lineDiff(strings.Split(tc.a, "\n"), strings.Split(tc.b, "\n"))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestLineDiffLarge: a large middle is one replaced run (no quadratic
// matching) and the diff is bounded.
func TestLineDiffLarge(t *testing.T) {
	var a, b []string
	for i := range 50000 {
		a = append(a, "a"+strings.Repeat("x", i%7))
		b = append(b, "b"+strings.Repeat("y", i%5))
	}
	got := lineDiff(a, b)
	if len(got) != maxDiffLines+1 || !strings.HasPrefix(got[maxDiffLines], "… ") {
		t.Fatalf("%d lines, last %q", len(got), got[len(got)-1])
	}
}

// FuzzLineDiff: every "-" line of a diff is a line of a and every "+"
// line one of b, in order; equal texts have no diff.
func FuzzLineDiff(f *testing.F) {
	f.Add("a\nb\nc", "a\nc\nd")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
		got := lineDiff(la, lb)
		if a == b && len(got) != 0 {
			t.Fatalf("equal texts: %q", got)
		}
		var minus, plus []string
		for _, l := range got {
			switch {
			case strings.HasPrefix(l, "-"):
				minus = append(minus, l[1:])
			case strings.HasPrefix(l, "+"):
				plus = append(plus, l[1:])
			}
		}
		if len(got) <= maxDiffLines && (!subsequence(minus, la) || !subsequence(plus, lb)) {
			t.Fatalf("diff %q does not come from %q and %q", got, la, lb)
		}
	})
}

func subsequence(sub, of []string) bool {
	i := 0
	for _, s := range of {
		if i < len(sub) && sub[i] == s {
			i++
		}
	}
	return i == len(sub)
}
