package session

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// maxIgnoredTypes is how many ignored line types IgnoredSummary names.
const maxIgnoredTypes = 6

// WriteSkipped writes the skip list: every tool left out, once per
// reason, with how many of its calls were.
func (s *Session) WriteSkipped(w io.Writer) {
	n := s.SkippedCalls()
	if n == 0 {
		fmt.Fprintln(w, "Skipped: none — every tool call in the session replays.")
		return
	}
	fmt.Fprintf(w, "Skipped %d tool call(s) that will not be replayed:\n", n)
	for _, k := range s.Skipped {
		fmt.Fprintf(w, "  %s ×%d — %s\n", k.Tool, k.Count, k.Reason)
	}
}

// WriteLines writes what was read of the transcript's lines.
func (s *Session) WriteLines(w io.Writer) {
	fmt.Fprintf(w, "Lines: %d", s.Lines.Lines)
	if ig := s.Lines.IgnoredSummary(); ig != "" {
		fmt.Fprintf(w, "; %s ignored", ig)
	}
	if p := s.Lines.Problems(); p != "" {
		fmt.Fprintf(w, "; not read: %s", p)
	}
	fmt.Fprintln(w, ".")
}

// Problems describes the lines that could not be read, or is "" when
// every line was read or deliberately ignored.
func (c LineCounts) Problems() string {
	var parts []string
	if c.Invalid > 0 {
		parts = append(parts, fmt.Sprintf("%d not valid JSON", c.Invalid))
	}
	if c.Truncated > 0 {
		parts = append(parts, fmt.Sprintf("%d cut off at the end of the file", c.Truncated))
	}
	if c.TooLong > 0 {
		parts = append(parts, fmt.Sprintf("%d too long to read", c.TooLong))
	}
	return strings.Join(parts, ", ")
}

// IgnoredSummary describes the lines of types that hold no tool calls,
// the most frequent first — "22 of other types (attachment ×10, …)" — or
// is "" when there were none.
func (c LineCounts) IgnoredSummary() string {
	total := c.IgnoredTotal()
	if total == 0 {
		return ""
	}
	keys := make([]string, 0, len(c.Ignored))
	for k := range c.Ignored {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := c.Ignored[keys[i]], c.Ignored[keys[j]]
		if a != b {
			return a > b
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for i, k := range keys {
		if i == maxIgnoredTypes {
			parts = append(parts, fmt.Sprintf("%d more", len(keys)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s ×%d", k, c.Ignored[k]))
	}
	return fmt.Sprintf("%d of other types (%s)", total, strings.Join(parts, ", "))
}
