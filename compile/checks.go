package compile

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/runtime/jsondata"
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
				out = append(out, check{path: dotted, typ: ast.TypeArray})
			}
		case string:
			if len(path) == 0 {
				return
			}
			if isVolatileKey(key) || isVolatileText(v) || utf8.RuneCountInString(v) > maxCheckedText || isRedacted(v) || strings.ContainsAny(v, "\n\r") || holdsAny(v, sent) {
				out = append(out, check{path: dotted, typ: ast.TypeString})
				return
			}
			out = append(out, check{path: dotted, value: jsondata.String(v)})
		case jsondata.Number:
			if len(path) == 0 {
				return
			}
			if isVolatileKey(key) || isVolatileText(string(v)) || strings.ContainsAny(string(v), ".eE") {
				out = append(out, check{path: dotted, typ: ast.TypeNumber})
				return
			}
			out = append(out, check{path: dotted, value: string(v)})
		case bool:
			if len(path) == 0 {
				return
			}
			if isVolatileKey(key) {
				out = append(out, check{path: dotted, typ: ast.TypeBoolean})
				return
			}
			out = append(out, check{path: dotted, value: jsondata.String(v)})
		}
	}
	walk(root, nil, "")
	return out
}

// textChecks picks up to maxTextLines lines of a text result to assert
// with `body contains`: lines with no volatile shape and no redaction,
// cut at a token boundary when long. A contains check finds the line
// anywhere, so lines added around it do not fail it.
func textChecks(text string, sent []string) []string {
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		if len(out) >= maxTextLines {
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
