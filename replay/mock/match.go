package mock

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay/diff"
	"github.com/reelier/reelier/tool/jsondata"
)

// Mode says how a call's arguments are compared with a recorded call's.
type Mode string

// The modes.
const (
	// Exact: the arguments are the recorded ones as JSON values (key
	// order ignored, numbers by value). A recorded value that redaction
	// blanked, and one at an --ignore-arg path, is not compared.
	Exact Mode = "exact"
	// Loose: the arguments have the recorded shape — the same keys at
	// every level, arrays of the same length, a value of the same JSON
	// type at every leaf; values are not compared. Of the recorded calls
	// of that shape, the ones whose values differ least answer.
	Loose Mode = "loose"
)

// ParseMode reads a --match value.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case Exact, Loose:
		return Mode(s), nil
	}
	return "", fmt.Errorf("--match %q: want exact or loose", s)
}

// Path is an argument path to ignore: its segments, "*" matching any one.
type Path []string

// ParsePath reads an --ignore-arg path, written the way an unmatched call's
// answer names a differing argument: segments joined by ".", an array
// index as a number, a segment holding a dot or a blank in double quotes;
// the leading "args." is optional, and "*" matches any one segment
// (`args.items.*.id`).
func ParsePath(s string) (Path, error) {
	var segs Path
	rest := s
	for rest != "" {
		var seg string
		if rest[0] == '"' {
			end := closingQuote(rest)
			if end < 0 {
				return nil, fmt.Errorf("--ignore-arg %q: a quoted segment is not closed", s)
			}
			u, err := strconv.Unquote(rest[:end+1])
			if err != nil {
				return nil, fmt.Errorf("--ignore-arg %q: %v", s, err)
			}
			seg, rest = u, rest[end+1:]
			if rest != "" && rest[0] != '.' {
				return nil, fmt.Errorf("--ignore-arg %q: want a dot after a quoted segment", s)
			}
		} else {
			i := strings.IndexByte(rest, '.')
			if i < 0 {
				i = len(rest)
			}
			seg, rest = rest[:i], rest[i:]
			if seg == "" {
				return nil, fmt.Errorf("--ignore-arg %q: an empty segment (quote it: \"\")", s)
			}
		}
		segs = append(segs, seg)
		if rest != "" {
			rest = rest[1:]
			if rest == "" {
				return nil, fmt.Errorf("--ignore-arg %q: ends with a dot", s)
			}
		}
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("--ignore-arg %q: an empty path", s)
	}
	if len(segs) > 1 && segs[0] == "args" {
		segs = segs[1:]
	} else if len(segs) == 1 && segs[0] == "args" {
		return nil, fmt.Errorf("--ignore-arg %q: name an argument (args.NAME), not all of them; --match loose compares only their shape", s)
	}
	return segs, nil
}

// closingQuote returns the index of the quote closing the one at s[0].
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// matches reports whether p names path or a path above it.
func (p Path) matches(path []string) bool {
	if len(path) < len(p) {
		return false
	}
	for i, seg := range p {
		if seg != "*" && seg != path[i] {
			return false
		}
	}
	return true
}

// Matcher compares calls with recorded calls and keeps, per client
// session, which recorded calls were answered.
type Matcher struct {
	Mode   Mode
	Ignore []Path
}

// Answer is what the mock answers one call with.
type Answer struct {
	// Recorded is the recorded call whose result answers; nil when none
	// matched.
	Recorded *Recorded
	// Repeat is set when every recorded call that answers this one was
	// answered already in this session: the last is answered again.
	Repeat bool
	// Nearest is the recorded call closest to an unmatched call, and
	// Differ what differs from it (paths under "args").
	Nearest *Recorded
	Differ  []diff.Change
}

// cursor is what one session has been answered.
type cursor struct {
	mu   sync.Mutex
	used map[*Recorded]bool
	// calls counts the session's tools/call requests (count).
	calls int
}

// count numbers the session's next tools/call request, from 1.
func (c *cursor) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	return c.calls
}

func newCursor() *cursor { return &cursor{used: map[*Recorded]bool{}} }

// candidate is a recorded call compared with a call.
type candidate struct {
	rec     *Recorded
	blocks  []diff.Change // what keeps it from matching; none when it matches
	differs int           // how many values differ (loose: the tie-break)
}

// compare compares a call's arguments with one recorded call's.
func (m *Matcher) compare(rec *Recorded, got any) candidate {
	a, b := prune(rec.args, m.Ignore, nil), prune(got, m.Ignore, nil)
	redacted := redactedPaths(a)
	strict, _ := diff.Values("args", a, b, func(path string) bool { return redacted[path] })
	c := candidate{rec: rec, blocks: strict, differs: len(strict)}
	if m.Mode == Loose {
		c.blocks, _ = diff.Values("args", a, b, func(string) bool { return true })
	}
	return c
}

// answer picks the recorded call of t that answers a call with args in
// the session whose answers so far cur holds.
//
// The matching recorded calls that differ least from the call (in exact
// mode, every match differs in nothing) answer in recorded order: the
// nth such call of a session gets the nth of them, and once all were
// answered, the last one again (Repeat). Nothing matching gives the
// nearest recorded call and what differs from it.
func (m *Matcher) answer(t *Tool, args any, cur *cursor) Answer {
	var best []*Recorded
	bestDiffers := -1
	var nearest *candidate
	for _, rec := range t.Calls {
		c := m.compare(rec, args)
		if len(c.blocks) > 0 {
			if nearest == nil || len(c.blocks) < len(nearest.blocks) {
				nearest = &c
			}
			continue
		}
		switch {
		case bestDiffers < 0 || c.differs < bestDiffers:
			best, bestDiffers = []*Recorded{rec}, c.differs
		case c.differs == bestDiffers:
			best = append(best, rec)
		}
	}
	if len(best) == 0 {
		if nearest == nil {
			return Answer{}
		}
		return Answer{Nearest: nearest.rec, Differ: nearest.blocks}
	}
	cur.mu.Lock()
	defer cur.mu.Unlock()
	for _, rec := range best {
		if !cur.used[rec] {
			cur.used[rec] = true
			return Answer{Recorded: rec}
		}
	}
	return Answer{Recorded: best[len(best)-1], Repeat: true}
}

// prune returns v without the members and elements at the ignored paths
// (an ignored array element becomes null, so the indexes after it keep
// their meaning). v is not changed.
func prune(v any, ignore []Path, at []string) any {
	if len(ignore) == 0 {
		return v
	}
	switch v := v.(type) {
	case *jsondata.Object:
		out := &jsondata.Object{Members: make([]jsondata.Member, 0, len(v.Members))}
		for _, mem := range v.Members {
			p := append(at[:len(at):len(at)], mem.Key)
			if ignored(ignore, p) {
				continue
			}
			out.Members = append(out.Members, jsondata.Member{Key: mem.Key, Value: prune(mem.Value, ignore, p)})
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			p := append(at[:len(at):len(at)], strconv.Itoa(i))
			if ignored(ignore, p) {
				continue
			}
			out[i] = prune(e, ignore, p)
		}
		return out
	}
	return v
}

func ignored(ignore []Path, path []string) bool {
	for _, p := range ignore {
		if p.matches(path) {
			return true
		}
	}
	return false
}

// redactedPaths returns the paths (segments joined with ".", as
// diff.Values names them to its typeOnly function) of the strings in v
// that redaction blanked, wholly or in part («redacted», or
// «redacted:NAME» for a variable REELIER_REDACT named): the trace cannot
// say what was there, so only the type is compared.
func redactedPaths(v any) map[string]bool {
	out := map[string]bool{}
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		switch v := v.(type) {
		case *jsondata.Object:
			for _, mem := range v.Members {
				walk(mem.Value, append(path[:len(path):len(path)], mem.Key))
			}
		case []any:
			for i, e := range v {
				walk(e, append(path[:len(path):len(path)], strconv.Itoa(i)))
			}
		case string:
			if redact.HasMarker(v) {
				out[strings.Join(path, ".")] = true
			}
		}
	}
	walk(v, nil)
	return out
}

// parseArgs reads a call's arguments; none is the empty object.
func parseArgs(raw json.RawMessage) (any, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return &jsondata.Object{}, nil
	}
	return jsondata.Parse(string(raw))
}

// describe renders what differs from the nearest recorded call, one
// change per entry: `args.date: recorded "2026-07-18", got "2026-12-02"`.
func describe(changes []diff.Change) []string {
	out := make([]string, len(changes))
	for k, c := range changes {
		switch c.Kind {
		case diff.Added:
			out[k] = fmt.Sprintf("%s: not in the recorded call (got %s)", c.Path, c.To)
		case diff.Removed:
			out[k] = fmt.Sprintf("%s: missing (recorded %s)", c.Path, c.From)
		case diff.Type:
			out[k] = fmt.Sprintf("%s: recorded %s, got %s (%s)", c.Path, c.From, c.To, c.Note)
		default:
			out[k] = fmt.Sprintf("%s: recorded %s, got %s", c.Path, c.From, c.To)
		}
	}
	return out
}
