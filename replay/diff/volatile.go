package diff

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay"
)

// Values that change on every run — the time a file was read, how long a
// call took, a request's id — make two faithful replays differ. A change
// whose two sides are both such a value is volatile: it is listed apart
// (Step.Volatile) and does not make its step DRIFTED. Only the shape of
// both values decides, never one side alone: "open" → "2026-12-07" is a
// change, "2026-12-06T10:00:00Z" → "2026-12-07T09:12:44Z" is volatile.

// The kinds of volatile value.
const (
	VolatileTime     = "a timestamp"
	VolatileDuration = "a duration"
	VolatileID       = "an id"
)

// The patterns are compiled when a diff first needs them, not at every
// process's start.
var (
	// uuidRE is a UUID (any version).
	uuidRE = lazyRE(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	// jsDateRE is JavaScript's Date.prototype.toString and toUTCString
	// ("Mon Dec 07 2026 04:35:25 GMT+0000 (Coordinated Universal Time)",
	// "Mon, 07 Dec 2026 04:35:25 GMT"), the form Node servers print.
	jsDateRE = lazyRE(`^(Mon|Tue|Wed|Thu|Fri|Sat|Sun),? (\d{1,2} [A-Z][a-z]{2}|[A-Z][a-z]{2} \d{1,2}) \d{4} \d{2}:\d{2}:\d{2}( GMT([+-]\d{4})?( \([^()]*\))?)?$`)
	// stampRE finds the date-time tokens of a line of text: ISO dates
	// with a time, clock times, JavaScript's dates.
	stampRE = lazyRE(`(Mon|Tue|Wed|Thu|Fri|Sat|Sun),? (\d{1,2} [A-Z][a-z]{2}|[A-Z][a-z]{2} \d{1,2}) \d{4} \d{2}:\d{2}:\d{2}( GMT([+-]\d{4})?( \([^()]*\))?)?|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?|\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b`)
)

// lazyRE compiles pattern on first use.
func lazyRE(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// timeWords and durationWords are what a member name holds when its
// number is a time or a duration.
var (
	timeWords     = []string{"time", "date", "created", "updated", "modified", "accessed", "expires", "timestamp", "at", "ts"}
	durationWords = []string{"duration", "elapsed", "took", "latency", "millis", "ms", "seconds"}
	idWords       = []string{"request id", "requestid", "trace id", "traceid", "etag", "nonce"}
)

// volatile says which kind of volatile value both sides of c are, or "".
func volatile(c Change) string {
	if c.Kind != Changed || !observed(c.Path) {
		return ""
	}
	if c.Lines != nil {
		return volatileLines(c.Lines)
	}
	if strings.HasPrefix(c.Path, "body") {
		a, erra := strconv.Unquote(c.From)
		b, errb := strconv.Unquote(c.To)
		if erra != nil || errb != nil || strings.HasSuffix(a, "…") || strings.HasSuffix(b, "…") {
			return ""
		}
		return volatileLines([]string{"-" + a, "+" + b})
	}
	a, oka := decodeSide(c.From)
	b, okb := decodeSide(c.To)
	if !oka || !okb {
		return ""
	}
	key := lastKey(c.Path)
	ka, kb := valueKind(key, a), valueKind(key, b)
	if ka != "" && ka == kb {
		return ka
	}
	return ""
}

// observed reports whether path is in what a tool returned (a result's
// json or body) — never what was sent or bound, where a changed value is
// a different call.
func observed(path string) bool {
	for _, root := range []string{"json", "body", "result", "structuredContent"} {
		if path == root || strings.HasPrefix(path, root+".") || strings.HasPrefix(path, root+" ") {
			return true
		}
	}
	return false
}

// decodeSide reads a change's side: a JSON value as the walk renders it.
// A value cut short ("…") is not read.
func decodeSide(s string) (any, bool) {
	if strings.HasSuffix(s, "…") {
		return nil, false
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, false
	}
	return v, true
}

// lastKey is the last member name of a path (json.items.0.created →
// created).
func lastKey(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// valueKind says what kind of volatile value v, under key, is.
func valueKind(key string, v any) string {
	switch v := v.(type) {
	case string:
		switch {
		case uuidRE().MatchString(v):
			return VolatileID
		case jsDateRE().MatchString(v):
			return VolatileTime
		case len(v) > 10 && v[4] == '-' && (v[10] == 'T' || v[10] == 't' || v[10] == ' '):
			// A date and a time; a date alone (a due date, a booking's
			// day) is data.
			if _, ok := replay.ReadOrderKey(v, ast.OrderDate); ok {
				return VolatileTime
			}
		}
		if hasWord(key, idWords) && v != "" {
			return VolatileID
		}
	case float64:
		switch {
		case hasWord(key, durationWords) && v >= 0:
			return VolatileDuration
		case hasWord(key, timeWords) && (v >= 1e9 && v < 4.2e9 || v >= 1e12 && v < 4.2e12):
			return VolatileTime // seconds or milliseconds since 1970, 2001–2103
		}
	}
	return ""
}

func hasWord(key string, words []string) bool {
	spaced := " " + strings.Join(keyWords(key), " ") + " "
	for _, w := range words {
		if strings.Contains(spaced, " "+w+" ") {
			return true
		}
	}
	return false
}

// keyWords splits a member name into its lower-case words at '_', '-',
// '.' and camel case (createdAt → created at, request_id → request id),
// so that "ts" names a timestamp and not "results".
func keyWords(key string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range key {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			flush()
		case unicode.IsUpper(r) && prev != 0 && !unicode.IsUpper(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return words
}

// volatileLines says whether every changed line of a line diff differs
// from its counterpart only in its date-time tokens: a - line and the
// + line after it, as pairs; a line only added or only removed is not
// volatile.
func volatileLines(lines []string) string {
	var minus, plus []string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "-"):
			minus = append(minus, l[1:])
		case strings.HasPrefix(l, "+"):
			plus = append(plus, l[1:])
		}
	}
	if len(minus) == 0 || len(minus) != len(plus) {
		return ""
	}
	for i := range minus {
		if stampRE().ReplaceAllString(minus[i], "\x00") != stampRE().ReplaceAllString(plus[i], "\x00") {
			return ""
		}
	}
	return VolatileTime
}

// lineDiff is the line diff of two texts: the changed lines ("-" and "+")
// with one line of context (" ") around each run, and "…" between runs
// that are apart; at most maxDiffLines lines, the rest counted in a last
// "… N more lines" entry.
func lineDiff(a, b []string) []string {
	ops := opcodes(a, b)
	var out []string
	last := -1 // the last line of a shown so far
	for k, op := range ops {
		if op.tag == 'e' {
			continue
		}
		from := max(op.i1-1, 0)
		if k > 0 && ops[k-1].tag == 'e' && from > last+1 && last >= 0 {
			out = append(out, "…")
		}
		for i := max(from, last+1); i < op.i1; i++ {
			out = append(out, " "+a[i])
		}
		for i := op.i1; i < op.i2; i++ {
			out = append(out, "-"+a[i])
		}
		for j := op.j1; j < op.j2; j++ {
			out = append(out, "+"+b[j])
		}
		last = op.i2 - 1
		if k+1 < len(ops) && ops[k+1].tag == 'e' && op.i2 < len(a) {
			out = append(out, " "+a[op.i2])
			last = op.i2
		}
	}
	if len(out) > maxDiffLines {
		n := len(out) - maxDiffLines
		out = append(out[:maxDiffLines:maxDiffLines], "… "+strconv.Itoa(n)+" more lines")
	}
	return out
}

// maxDiffLines bounds a line diff kept in a change.
const maxDiffLines = 200

// opcode is one run of a line diff: 'e' equal, 'r' replaced, 'd' deleted,
// 'i' inserted; a[i1:i2] against b[j1:j2].
type opcode struct {
	tag            byte
	i1, i2, j1, j2 int
}

// maxMatched bounds the middle of two texts (after their common first and
// last lines are set aside) that is matched line by line; a larger middle
// is shown as one replaced run, so the diff stays linear in the texts.
const maxMatched = 2000

// opcodes lines up two texts: their common first and last lines are equal
// runs, and what lies between is matched with go-difflib's sequence
// matcher when it is small (as one replaced run otherwise).
func opcodes(a, b []string) []opcode {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var ops []opcode
	if p > 0 {
		ops = append(ops, opcode{'e', 0, p, 0, p})
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	switch {
	case len(ma) == 0 && len(mb) == 0:
	case len(ma) == 0:
		ops = append(ops, opcode{'i', p, p, p, p + len(mb)})
	case len(mb) == 0:
		ops = append(ops, opcode{'d', p, p + len(ma), p, p})
	case len(ma) > maxMatched || len(mb) > maxMatched:
		ops = append(ops, opcode{'r', p, p + len(ma), p, p + len(mb)})
	default:
		for _, o := range difflib.NewMatcher(ma, mb).GetOpCodes() {
			ops = append(ops, opcode{o.Tag, p + o.I1, p + o.I2, p + o.J1, p + o.J2})
		}
	}
	if s > 0 {
		ops = append(ops, opcode{'e', len(a) - s, len(a), len(b) - s, len(b)})
	}
	return ops
}
