package compile

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/grammar"
	"github.com/reelier/reelier/internal/jsregex"
	"github.com/reelier/reelier/runtime"
	"github.com/reelier/reelier/runtime/jsondata"
	"github.com/reelier/reelier/trace"
)

// Checks. A step whose result has content gets asserts a replay can stand
// on, derived from what the recording saw (SPEC.md §11, docs/compile.md):
//
//   - every value a later step takes gets a type assert (`json.p is
//     string`), and a value taken from a position in an array gets a value
//     assert (`json.p == "…"`), so a list that now has another element
//     first fails instead of feeding the wrong one on;
//   - fields outside arrays, up to maxDepth deep: a value assert on a
//     stable field, a type assert on a volatile one (ids, timestamps,
//     dates, counters, sizes, hashes — by key name or by shape), and
//     `is array` on an array;
//   - a text result no later step takes a token from: `body contains` on
//     its first stable lines.
//
// A step gets at most maxChecks of these besides its binds' own.

const (
	maxChecks    = 6
	maxDepth     = 3
	maxTextLines = 2
	// maxFedLines is how many lines are checked of a text a later step
	// wrote words of.
	maxFedLines = 12
	// maxCheckedText is the longest string a value assert repeats; a
	// longer one gets a type assert.
	maxCheckedText = 80
)

// check is one assert a step will carry.
type check struct {
	path  string       // dotted
	typ   ast.TypeName // for a type assert, or "" for a value assert
	value string       // the recorded scalar as JSON text, for a value assert
}

// volatileKeyWords are the words of a key that make its value volatile.
var volatileKeyWords = setOf(`id ids uuid guid token etag nonce session
	created updated modified deleted timestamp time date at ts expires expiry
	size bytes length count total duration elapsed ms latency seq sequence
	random uptime pid port mtime ctime atime birthtime accessed hash digest
	checksum sha md5 nanos micros millis seconds last first started finished
	generated issued cursor offset ref handle sid stars views likes
	followers score rank votes hits remaining balance`)

// isVolatileKey reports whether a key names a value that changes from run
// to run: `id`, `userId`, `created_at`, `lastModified`, `size`.
func isVolatileKey(key string) bool {
	for _, w := range strings.Split(snake(key), "_") {
		if volatileKeyWords[w] {
			return true
		}
	}
	return false
}

var (
	volatileShapes = regexp.MustCompile(`\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}:\d{2}|[0-9a-fA-F]{12,}|\d{6,}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-`)
)

// isVolatileText reports a string whose shape changes from run to run: it
// holds a date, a time, a long hex or digit run, or a UUID.
func isVolatileText(s string) bool { return volatileShapes.MatchString(s) }

// docChecks derives the field checks of one JSON result.
//
// An array is held to being an array, never to its recorded length: a
// list that grew by an unrelated item is the same answer, and a write
// repeated on a world that already has what it makes may report nothing
// new (SPEC.md §11: a skill must not fail a second replay only because
// the first one made what it makes).
func docChecks(root any, sent []string) []check {
	var out []check
	var walk func(v any, path []string, key string)
	walk = func(v any, path []string, key string) {
		if len(out) >= maxChecks {
			return
		}
		dotted := strings.Join(path, ".")
		switch v := v.(type) {
		case *jsondata.Object:
			if len(path) >= maxDepth {
				return
			}
			for _, m := range v.Members {
				if !isPathKey(m.Key) || isDigits(m.Key) {
					continue
				}
				walk(m.Value, append(path, m.Key), m.Key)
			}
		case []any:
			if len(path) > 0 {
				dotted = strings.Clone(dotted)
				out = append(out, check{path: dotted, typ: ast.TypeArray})
			}
		default:
			if len(path) == 0 {
				return
			}
			if ck, ok := leafCheck(v, dotted, key, sent); ok {
				out = append(out, ck)
			}
		}
	}
	walk(root, nil, "")
	return out
}

// leafCheck is the check on one scalar: a value assert when it is stable,
// a type assert when it is volatile (by key or shape), too long, on
// several lines, redacted, or one of the values the step sends.
//
// The check's strings are copies: the parsed document's strings share the
// result's text, which must not stay in memory.
func leafCheck(v any, path, key string, sent []string) (check, bool) {
	path = strings.Clone(path)
	switch v := v.(type) {
	case string:
		if isVolatileKey(key) || isVolatileText(v) || utf8.RuneCountInString(v) > maxCheckedText || isRedacted(v) || strings.ContainsAny(v, "\n\r") || holdsAny(v, sent) {
			return check{path: path, typ: ast.TypeString}, true
		}
		return check{path: path, value: jsondata.String(v)}, true
	case jsondata.Number:
		if isVolatileKey(key) || isVolatileText(string(v)) || strings.ContainsAny(string(v), ".eE") {
			return check{path: path, typ: ast.TypeNumber}, true
		}
		return check{path: path, value: strings.Clone(string(v))}, true
	case bool:
		if isVolatileKey(key) {
			return check{path: path, typ: ast.TypeBoolean}, true
		}
		return check{path: path, value: jsondata.String(v)}, true
	}
	return check{}, false
}

// textChecks picks up to maxTextLines lines of a text result to assert
// with `body contains`: lines with no volatile shape and no redaction,
// cut at a token boundary when long. A contains check finds the line
// anywhere, so lines added around it do not fail it.
func textChecks(text string, sent []string) []string {
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		if len(out) >= maxFedLines {
			break
		}
		line = strings.TrimSpace(line)
		// A line is checked up to the first thing in it that changes from
		// run to run: a volatile shape, or a value the step's holes send.
		if loc := volatileShapes.FindStringIndex(line); loc != nil {
			line = cutAt(line, loc[0])
		}
		if line = cutBefore(line, sent); line == "" {
			continue
		}
		if utf8.RuneCountInString(line) < 3 || isRedacted(line) || strings.ContainsAny(line, "\r\t") || strings.Contains(line, "{{") {
			continue
		}
		// A `key: value` line is volatile when its key is.
		if k, _, ok := strings.Cut(line, ":"); ok && len(k) < 40 && isVolatileKey(k) {
			continue
		}
		if utf8.RuneCountInString(line) > maxCheckedText {
			r := []rune(line)[:maxCheckedText]
			cut := string(r)
			if i := strings.LastIndexFunc(cut, isSeparator); i > maxCheckedText/2 {
				cut = cut[:i]
			}
			line = strings.TrimSpace(cut)
		}
		if line == "" || !utf8.ValidString(line) {
			continue
		}
		out = append(out, line)
	}
	return out
}

// createVerbs are the verbs of a tool that makes something new: replayed
// on the world a first replay left, it meets what that replay made.
var createVerbs = setOf(`create add insert register new make upload import
	book reserve invite append post publish send submit`)

// rerunQuestions says, for each step that makes something new, that a
// second replay against the same world meets what the first one made:
// whether the skill is re-runnable depends on the server, which the
// recording cannot tell.
func (c *compiler) rerunQuestions() {
	for _, st := range c.steps {
		if st.class == nil || st.class.Effect == ast.EffectRead {
			continue
		}
		verb := ""
		for _, w := range strings.Split(snake(st.tool), "_") {
			if createVerbs[w] {
				verb = w
				break
			}
		}
		if verb == "" {
			continue
		}
		c.q.add(st.n, KindNotRerunnable, "%s: the tool's verb %q makes something new with the values it sends; a second replay against the world the first one changed asks for it again, and the server may refuse, duplicate or ignore it — the skill is re-runnable only if a repeat is harmless here; otherwise reset the world between runs or turn the names it sends into inputs.", ref(st), verb)
	}
}

// holdsAny reports whether s contains one of the values.
func holdsAny(s string, values []string) bool {
	for _, v := range values {
		if v != "" && strings.Contains(s, v) {
			return true
		}
	}
	return false
}

// cutBefore returns line up to the first of the values it holds, cut at a
// token boundary; "" when less than 8 characters would be left. A line
// holding none is returned whole.
func cutBefore(line string, values []string) string {
	at := len(line)
	for _, v := range values {
		if i := strings.Index(line, v); v != "" && i >= 0 && i < at {
			at = i
		}
	}
	return cutAt(line, at)
}

// cutAt returns line cut before byte at, at a token boundary; "" when
// less than 8 characters would be left.
func cutAt(line string, at int) string {
	if at >= len(line) {
		return line
	}
	if i := strings.LastIndexFunc(line[:at], isSeparator); i >= 0 {
		at = i + 1
	} else {
		at = 0
	}
	line = strings.TrimSpace(line[:at])
	if utf8.RuneCountInString(line) < 8 {
		return ""
	}
	return line
}

// picks reports whether a later step takes a value from a position in an
// array of st's result.
func (st *step) picks() bool {
	for _, bd := range st.binds {
		if bd.array && bd.path != "" {
			return true
		}
	}
	return false
}

// readPicks reads again the result of every step a later step picked an
// element from, and derives the checks on the picked elements. Only those
// results are read: the walks kept no bodies.
func (c *compiler) readPicks() error {
	var read func(trace.Place) (trace.Record, error)
	for _, st := range c.steps {
		if !st.picks() || st.resultLine == 0 {
			continue
		}
		if read == nil {
			r, done, err := c.src.open()
			if err != nil {
				return err
			}
			defer done()
			read = r
		}
		rec, err := read(st.resultAt)
		if err != nil {
			return ErrTraceChanged
		}
		r, ok := rec.(*trace.Result)
		if !ok || r.I != st.i {
			return ErrTraceChanged
		}
		crec, err := read(st.at)
		if err != nil {
			return ErrTraceChanged
		}
		call, ok := crec.(*trace.Call)
		if !ok || !st.same(call, st.at.Line, c.seed) {
			return ErrTraceChanged
		}
		c.selectors(st, r, call)
		st.pickChks = c.pickChecks(st, r)
	}
	return nil
}

// selectors turns a bind that reads a position in a list into one that
// picks the element by what the step asked for, when the recording shows
// that: the picked element has a string field equal to a value the step
// itself sent (a search for "customer" whose picked element has
// entityType "customer"). The bind becomes a `body match` whose pattern
// finds the first element with that field in the result's text, verified
// against the recorded text; an element listed before it that does not
// match is passed over, as the agent passed it over.
func (c *compiler) selectors(st *step, rec *trace.Result, call *trace.Call) {
	res, err := runtime.ParseToolResult(rec.Body)
	if err != nil {
		return
	}
	doc := res.JSONText()
	root, err := jsondata.Parse(doc)
	if err != nil {
		return
	}
	text := res.Text()
	sent := map[string]bool{}
	args, _ := grammar.ParseArgs(string(call.Args), ast.Pos{})
	walkLeaves(args, "", func(v ast.Value, _ string) {
		if s, ok := v.(*ast.String); ok && len(s.Holes) == 0 && s.Value != "" {
			sent[s.Value] = true
		}
	})
	if len(sent) == 0 {
		return
	}
	for _, bd := range st.binds {
		if !bd.array || bd.path == "" || bd.kind != 's' {
			continue
		}
		segs := strings.Split(bd.path, ".")
		if len(segs) < 3 || !isDigits(segs[len(segs)-2]) {
			continue
		}
		key := segs[len(segs)-1]
		el, ok := resolveDotted(root, segs[:len(segs)-1])
		obj, isObj := el.(*jsondata.Object)
		if !ok || !isObj {
			continue
		}
		want := unquoteRaw(bd.raw)
		for _, m := range obj.Members {
			v, isStr := m.Value.(string)
			if !isStr || m.Key == key || !sent[v] || !isPathKey(m.Key) {
				continue
			}
			if p := selectorPattern(text, key, want, m.Key, v); p != "" {
				bd.pattern, bd.path, bd.array = p, "", false
				bd.selector = fmt.Sprintf("%s is %s", m.Key, jsondata.String(v))
				break
			}
		}
	}
}

// selectorPattern derives a pattern whose first match's group 1 is the
// value of key in the first object of text whose selKey is selVal, and
// checks it picks want there; "" when no pattern does.
func selectorPattern(text, key, want, selKey, selVal string) string {
	q := func(s string) string { return escapeRegex(jsondata.String(s)) }
	val := `"((?:[^"\\]|\\.)*)"`
	sel := q(selKey) + `\s*:\s*` + q(selVal)
	for _, p := range []string{
		q(key) + `\s*:\s*` + val + `[^{}]*?` + sel,
		sel + `[^{}]*?` + q(key) + `\s*:\s*` + val,
	} {
		re, err := jsregex.CompileUncached(p)
		if err != nil {
			continue
		}
		if got, ok, err := jsregex.FirstGroup(re, text); err == nil && ok && got == want {
			return p
		}
	}
	return ""
}

// maxPickChecks bounds the checks on one picked element.
const maxPickChecks = 8

// pickChecks holds each element a later step picked to what it was: its
// stable fields get value asserts, its volatile ones type asserts, and
// the strings of short lists inside it (an entity's observations) value
// asserts. So an element that is still at the position but is no longer
// the thing the agent chose — the on-call note moved to someone else —
// fails the step.
func (c *compiler) pickChecks(st *step, rec *trace.Result) []check {
	res, err := runtime.ParseToolResult(rec.Body)
	if err != nil {
		return nil
	}
	doc := res.JSONText()
	root, err := jsondata.Parse(doc)
	if err != nil {
		return nil
	}
	var out []check
	seen := map[string]bool{}
	for _, bd := range st.binds {
		if !bd.array || bd.path == "" || bd.selector != "" {
			continue
		}
		segs := strings.Split(bd.path, ".")
		// The element is the path up to the last index.
		last := -1
		for i, sg := range segs {
			if isDigits(sg) {
				last = i
			}
		}
		if last < 0 {
			continue
		}
		elemPath := strings.Join(segs[:last+1], ".")
		if seen[elemPath] {
			continue
		}
		seen[elemPath] = true
		el, ok := resolveDotted(root, segs[:last+1])
		if !ok {
			continue
		}
		n := 0
		var walk func(v any, path string, key string, depth int)
		walk = func(v any, path, key string, depth int) {
			if n >= maxPickChecks {
				return
			}
			switch v := v.(type) {
			case *jsondata.Object:
				if depth >= 2 {
					return
				}
				for _, m := range v.Members {
					if isPathKey(m.Key) && !isDigits(m.Key) {
						walk(m.Value, path+"."+m.Key, m.Key, depth+1)
					}
				}
			case []any:
				if depth >= 2 || len(v) > 4 {
					return
				}
				for i, e := range v {
					if _, scalar := e.(string); scalar {
						walk(e, path+"."+strconv.Itoa(i), key, depth+1)
					}
				}
			default:
				if ck, ok := leafCheck(v, path, key, nil); ok {
					out = append(out, ck)
					n++
				}
			}
		}
		walk(el, elemPath, "", 0)
	}
	return out
}

// resolveDotted follows path segments through a document.
func resolveDotted(v any, segs []string) (any, bool) {
	for _, sg := range segs {
		switch x := v.(type) {
		case *jsondata.Object:
			next, ok := x.Get(sg)
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(sg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
