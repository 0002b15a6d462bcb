package compile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/internal/jsregex"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/tool/jsondata"
	"github.com/reelier/reelier/trace"
)

// Checks. A step whose result has content gets asserts a replay can stand
// on, derived from what the recording saw (SPEC.md §11, docs/compile.md):
//
//   - every value a later step takes gets a type assert (`json.p is
//     string`), or a shape assert for a name or path (`json.p matches
//     /^…\/report-.*\.csv$/`); a value taken from a position in an array
//     gets a value assert (`json.p == "…"`) unless it looks generated, and
//     so do the picked element's own fields, so a list that now has
//     another element there fails instead of feeding it on — or the bind
//     picks the element by the field the step searched for (selector);
//   - fields outside arrays, up to maxDepth deep: a value assert on a
//     stable field, a type assert on a volatile one (ids, timestamps,
//     dates, counters, sizes, hashes — by key name or by shape), and
//     `is array` on an array, never its length;
//   - a text result (or structured content that only wraps one): `body
//     contains` on its first stable lines — more when a later step wrote
//     words of it — each cut before anything volatile, anything the step
//     sent and any token a later step takes.
//
// A step gets at most maxChecks field checks besides its binds' own.

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
	for w := range strings.SplitSeq(snake(key), "_") {
		if volatileKeyWords[w] {
			return true
		}
	}
	return false
}

// isVolatileText reports a string whose shape changes from run to run: it
// holds a date (`2026-03-02`), a time (`9:30:00`), a run of 12 or more hex
// digits or of 6 or more digits, or a UUID.
func isVolatileText(s string) bool { return volatileAt(s) >= 0 }

// volatileAt returns the byte offset where the first volatile part of s
// starts (see isVolatileText), or -1.
func volatileAt(s string) int {
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	isHex := func(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	run := func(i int, f func(byte) bool) int {
		j := i
		for j < len(s) && f(s[j]) {
			j++
		}
		return j - i
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isHex(c) {
			continue
		}
		if i > 0 && isHex(s[i-1]) {
			// Only runs are measured, from their first character.
			continue
		}
		hex := run(i, isHex)
		digits := run(i, isDigit)
		switch {
		case hex >= 12, digits >= 6:
			return i
		case hex == 8 && i+8 < len(s) && s[i+8] == '-' && run(i+9, isHex) == 4:
			return i // a UUID
		}
		// A date or a time: digits, then '-' or ':' and two digits.
		if digits >= 1 && digits <= 4 && i+digits+2 < len(s) {
			sep := s[i+digits]
			if (sep == '-' && digits == 4 || sep == ':' && digits <= 2) && run(i+digits+1, isDigit) == 2 {
				j := i + digits + 3
				if j < len(s) && s[j] == sep && run(j+1, isDigit) == 2 {
					return i
				}
			}
		}
	}
	return -1
}

// docCollector derives the field checks of one JSON result from the
// scanner's walk over its text, without building its tree: fields outside
// arrays, at most maxDepth keys deep, in document order, at most maxChecks.
// An array is held to being an array, never to its recorded length: a
// list that grew by an unrelated item is the same answer, and a write
// repeated on a world that already has what it makes may report nothing
// new (SPEC.md §11). A key a later
// member of the same object repeats hides the earlier member, as it does
// for json paths: the checks made under it are dropped.
type docCollector struct {
	// paths interns the dotted paths of checks: the results of one tool
	// repeat the same few paths thousands of times.
	paths *pathInterner
	out   []check
	seen  map[string]bool
	sent  []string
	buf   []byte
}

// isPathKeyBytes and isDigitBytes are isPathKey and isDigits on a key as
// written.
func isPathKeyBytes(k []byte) bool { return words.IsWord(k) }

func isDigitBytes(k []byte) bool {
	for _, c := range k {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(k) > 0
}

// node is the scanner's node callback.
func (d *docCollector) node(kind byte, raw []byte, esc bool, path []segment) {
	// Once the checks are made, the rest of the document is not looked
	// at (a key repeated after that point is not noticed).
	if len(path) == 0 || len(path) > maxDepth || len(d.out) >= maxChecks {
		return
	}
	d.buf = d.buf[:0]
	last := 0
	for i, seg := range path {
		if seg.index >= 0 || seg.esc || !isPathKeyBytes(seg.raw) || isDigitBytes(seg.raw) {
			return
		}
		if i > 0 {
			d.buf = append(d.buf, '.')
		}
		last = len(d.buf)
		d.buf = append(d.buf, seg.raw...)
	}
	dotted := d.paths.of(d.buf)
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	if d.seen[dotted] {
		// A repeated key: what the earlier member left is hidden.
		kept := d.out[:0]
		for _, ck := range d.out {
			if ck.path != dotted && !strings.HasPrefix(ck.path, dotted+".") {
				kept = append(kept, ck)
			}
		}
		d.out = kept
	}
	d.seen[dotted] = true
	key := dotted[last:]
	var v any
	switch kind {
	case 'a':
		d.out = append(d.out, check{path: dotted, typ: ast.TypeArray})
		return
	case 's':
		if esc {
			v = unquote(raw)
		} else {
			v = string(raw)
		}
	case 'n':
		v = jsondata.Number(raw)
	case 't', 'f':
		v = kind == 't'
	default:
		return
	}
	if ck, ok := leafCheck(v, dotted, key, d.sent); ok {
		d.out = append(d.out, ck)
	}
}

// leafCheck is the check on one scalar: a value assert when it is stable,
// a type assert when it is volatile (by key or shape), too long, on
// several lines, redacted, or one of the values the step sends.
//
// The check's strings are copies: the parsed document's strings share the
// result's text, which must not stay in memory. path must be a string of
// its own (not part of the text) already.
func leafCheck(v any, path, key string, sent []string) (check, bool) {
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
		if at := volatileAt(line); at >= 0 {
			line = cutAt(line, at)
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

// readPicks settles the pick binds whose source result dataflow no
// longer kept (an element picked from a result more than recentResults
// steps back): it reads that result, and its call, again.
func (c *compiler) readPicks() error {
	var read func(trace.Place) (trace.Record, error)
	for _, st := range c.steps {
		if !st.unsettled || st.resultLine == 0 {
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
		// The record is lent until the next read.
		body := bytes.Clone(r.Body)
		crec, err := read(st.at)
		if err != nil {
			return ErrTraceChanged
		}
		call, ok := crec.(*trace.Call)
		if !ok || !st.same(call, st.at.Line, c.seed) {
			return ErrTraceChanged
		}
		res, err := parseToolResult(body)
		if err != nil {
			continue
		}
		js := []byte(res.JSONText())
		if !json.Valid(js) {
			continue
		}
		doc := document{text: js}
		sent := map[string]bool{}
		args, _ := grammar.ParseArgs(string(call.Args), ast.Pos{})
		ast.WalkLeaves(args, "", func(v ast.Value, _ string) {
			if s, ok := v.(*ast.String); ok && s.Value != "" {
				sent[s.Value] = true
			}
		})
		for _, bd := range st.binds {
			if bd.array && bd.path != "" {
				c.pickFor(st, bd, doc, res.Text(), sent, nil)
			}
		}
	}
	return nil
}

// maxPickChecks bounds the checks on one picked element.
const maxPickChecks = 8

// recentResults is how many parsed results dataflow keeps, so that a bind
// reading a position in a list of one of them is settled without reading
// the trace again.
const recentResults = 16

// recentResult is a parsed result kept for the binds later calls make.
type recentResult struct {
	step int      // index into the compiler's steps
	doc  document // the JSON json paths read
	text string
	sent map[string]bool // what the result's own call sent
	// arrs are the document's arrays of objects, once parsed is set
	// (aggregate.go).
	arrs   []docArray
	parsed bool
	// sums are the sums its collections give, by value, once asked for.
	sums map[int64]sumRef
	// root is the parsed document, once arrays parsed it.
	root any
	// strs are the string values of its first collection's elements
	// (firstStrings).
	strs map[string]bool
}

// keepRecent keeps a parsed result, forgetting the oldest beyond
// recentResults.
func (c *compiler) keepRecent(r *recentResult) {
	if c.recent == nil {
		c.recent = map[int]*recentResult{}
	}
	c.recent[r.step] = r
	c.recentOrder = append(c.recentOrder, r.step)
	if len(c.recentOrder) > recentResults {
		delete(c.recent, c.recentOrder[0])
		c.recentOrder = c.recentOrder[1:]
	}
}

// settlePick decides, for a new bind that reads a position in a list,
// how a replay holds it: by a selector when the recording shows one, and
// otherwise by checks on the picked element. It needs the source's parsed
// result; when that is no longer kept, readPicks reads it again.
func (c *compiler) settlePick(bd *binding) {
	if bd.settled {
		return
	}
	if bd.path == "" && bd.pattern != "" {
		// A token of a text: a row of a listing is picked by a rule.
		if r := c.recent[bd.step]; r != nil {
			c.lineRule(bd, r.text)
		}
		return
	}
	if !bd.array || bd.path == "" {
		return
	}
	if r := c.recent[bd.step]; r != nil {
		c.pickForRoot(c.steps[bd.step], bd, r)
		return
	}
	c.steps[bd.step].unsettled = true
}

// pickForRoot is pickFor on a kept result, reading its parsed document
// when the sums already parsed it (else only the parts the pick reads
// are parsed).
func (c *compiler) pickForRoot(st *step, bd *binding, r *recentResult) {
	c.pickFor(st, bd, r.doc, r.text, r.sent, r.root)
}

// pickFor settles one pick bind with its source step's parsed result
// (root, the parsed document, or nil to parse what it reads).
func (c *compiler) pickFor(st *step, bd *binding, doc document, text string, sent map[string]bool, root any) {
	if bd.settled {
		return
	}
	bd.settled = true
	segs := strings.Split(bd.path, ".")
	// The selector and the element checks mostly read the same element:
	// it is parsed once.
	// The rule reads the array, the checks its element: both kept.
	type memo struct {
		n  int
		v  any
		ok bool
	}
	memos := [2]memo{{n: -1}, {n: -1}}
	at := func(n int) (any, bool) {
		for _, m := range memos {
			if m.n == n {
				return m.v, m.ok
			}
		}
		m := memo{n: n}
		if root != nil {
			m.v, m.ok = walkParsed(root, segs[:n])
		} else if k := len(segs); n > 0 && memos[0].n >= 0 && memos[0].n < n && n <= k {
			// Inside a value already parsed: walk it instead.
			if v, ok := walkParsed(memos[0].v, segs[memos[0].n:n]); ok && memos[0].ok {
				m.v, m.ok = v, true
			} else {
				m.v, m.ok = doc.at(segs[:n])
			}
		} else {
			m.v, m.ok = doc.at(segs[:n])
		}
		if memos[0].n < 0 {
			memos[0] = m
		} else {
			memos[1] = m
		}
		return m.v, m.ok
	}
	if c.jsonRule(bd, segs, at, &recentResult{doc: doc, text: text, sent: sent}) && bd.rule != ruleOnly {
		return
	}
	// The only element there was is no reason by itself: the element's
	// own fields are still checked, so a lone element that is another
	// thing fails instead of being acted on.
	if bd.sel == nil && c.selector(bd, segs, at, text, sent) {
		return
	}
	// The element is the path up to the last index.
	last := -1
	for i, sg := range segs {
		if isDigits(sg) {
			last = i
		}
	}
	if last < 0 {
		return
	}
	elemPath := strings.Join(segs[:last+1], ".")
	for _, p := range st.pickedEls {
		if p == elemPath {
			return
		}
	}
	st.pickedEls = append(st.pickedEls, elemPath)
	el, ok := at(last + 1)
	if !ok {
		return
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
				st.pickChks = append(st.pickChks, ck)
				n++
			}
		}
	}
	walk(el, elemPath, "", 0)
}

// selector turns a bind that reads a position in a list into one that
// picks the element by what the step asked for, when the recording shows
// that: the picked element has a string field equal to a value the step
// itself sent (a search for "customer" whose picked element has
// entityType "customer"). The bind becomes a `body match` whose pattern
// finds the first element with that field in the result's text, verified
// against the recorded text; an element listed before it that does not
// match is passed over, as the agent passed it over. It reports whether
// the bind was turned.
//
// segs is the bind's path split at its dots; at(n) returns the value at
// its first n segments.
func (c *compiler) selector(bd *binding, segs []string, at func(n int) (any, bool), text string, sent map[string]bool) bool {
	if bd.kind != 's' || len(sent) == 0 {
		return false
	}
	if len(segs) < 3 || !isDigits(segs[len(segs)-2]) {
		return false
	}
	key := segs[len(segs)-1]
	el, ok := at(len(segs) - 1)
	obj, isObj := el.(*jsondata.Object)
	if !ok || !isObj {
		return false
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
			return true
		}
	}
	return false
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

// pathInterner hands out one string per distinct dotted path, up to
// maxInterned paths; past that each path gets a string of its own.
type pathInterner struct{ m map[string]string }

const maxInterned = 1 << 14

// of returns the path in b as a string that shares nothing with b.
func (p *pathInterner) of(b []byte) string {
	if s, ok := p.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(p.m) < maxInterned {
		if p.m == nil {
			p.m = map[string]string{}
		}
		p.m[s] = s
	}
	return s
}

// walkParsed follows path segments inside a parsed value: an object's key
// (its last member of that name, as json paths read), an array's index.
func walkParsed(v any, segs []string) (any, bool) {
	for _, sg := range segs {
		switch x := v.(type) {
		case *jsondata.Object:
			found := false
			for i := len(x.Members) - 1; i >= 0; i-- {
				if x.Members[i].Key == sg {
					v, found = x.Members[i].Value, true
					break
				}
			}
			if !found {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(sg)
			if err != nil || !isDigits(sg) || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
