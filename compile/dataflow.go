package compile

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/tool/jsondata"
)

// minLiteralLen is the shortest string (in characters) or number (in
// decimal characters) that dataflow recovery and the repeated-literal
// question consider; shorter values match by coincidence too often.
const minLiteralLen = 4

// pathSeg is one segment of a source path: an object key, or an array
// index when index >= 0.
type pathSeg struct {
	key   string
	index int
}

// source is a place in an earlier step's result where a value was seen:
// a JSON path, or a token of a text result.
//
// A trace has one for every sighting of a value some call sends, so it is
// kept small: the path's text is made only for the places that are bound.
type source struct {
	path []pathSeg
	// bound is the bind made for this place, once a call uses the value:
	// a place in a result holds one value, so it is seen by one source.
	bound *binding
	// raw is the recorded value as JSON text, for a value assert.
	raw string
	// pattern picks a token of a text result with a `body match` bind
	// ("" when no pattern could), positional when the pattern counts
	// lines; label is the word before it on its line.
	pattern string
	label   string
	step    int32 // index into the compiler's steps
	// kind is the recorded value's JSON kind: 's' (string) or 'n'.
	kind byte
	// array is set when the path crosses an array (an index segment).
	array bool
	// bindable is set when every key fits the path grammar
	// ([A-Za-z0-9_]+) and the path is not empty.
	bindable bool
	// text is set for a token of a text result.
	text       bool
	positional bool
	// field is set when the token is the value of a `key: value`,
	// `key=value` or `"key": "value"` on its line.
	field bool
	// labelled is set for a value after a label inside a JSON string
	// (owncopy.go): a phrase counts there as a whole value.
	labelled bool
}

// dotted renders a bindable path as the skill writes it: `items.0.id`.
func (s *source) dotted() string {
	var b strings.Builder
	for i, seg := range s.path {
		if i > 0 {
			b.WriteByte('.')
		}
		if seg.index >= 0 {
			b.WriteString(strconv.Itoa(seg.index))
		} else {
			b.WriteString(seg.key)
		}
	}
	return b.String()
}

// display renders a path for a person: keys that do not fit the path
// grammar are quoted.
func (s *source) display() string {
	var b strings.Builder
	for i, seg := range s.path {
		if i > 0 {
			b.WriteByte('.')
		}
		switch {
		case seg.index >= 0:
			b.WriteString(strconv.Itoa(seg.index))
		case isPathKey(seg.key):
			b.WriteString(seg.key)
		default:
			q, _ := json.Marshal(seg.key)
			b.Write(q)
		}
	}
	return b.String()
}

// isPathKey reports whether a key can be a path segment: [A-Za-z0-9_]+.
func isPathKey(k string) bool { return words.IsWord(k) }

// slot is one value that some call's arguments hold. src is the most
// recent place an earlier result held it, as the records are walked.
type slot struct {
	src    *source
	rank   int32 // how good src is within its result; lower is better
	result int32 // which result src came from (1-based ordinal)
	count  int32 // how many times that result holds the value
	last   int32 // the number of the last step that sends the value
}

// pending is a sighting inside the result being mined; sightings are kept
// only once the whole result has been read.
type pending struct {
	slot *slot
	src  *source
	rank int32
	dead bool
}

// valueIndex maps the scalar values that calls send to where earlier
// results held them. Only values some call sends are indexed, so a result
// costs one walk and a map lookup per leaf, and the index stays as small
// as the arguments.
type valueIndex struct {
	strs map[string]*slot
	nums map[string]*slot
	// built is how many values strs and nums held when last made; once
	// most are forgotten, shrink makes them again at their size.
	strsBuilt, numsBuilt int
	pending              []pending
	results              int32
	// mineStep is the step whose result is being mined.
	mineStep int
	// keys interns the object keys of sightings' paths: results of one
	// tool repeat the same few keys thousands of times.
	keys map[string]string
	scan scanner
	// echo holds, while a result is mined, the values its own call sent
	// (whole and as tokens): a result repeating them is an echo, not a
	// source.
	echo map[string]bool
	// sent are the values the mined result's own step sent through holes.
	sent  []string
	spans []span
	// collect asks leaf to note, in strSpans, where the document's
	// strings that hold a separator are.
	collect  bool
	strSpans []span
}

func newValueIndex() *valueIndex {
	x := &valueIndex{strs: map[string]*slot{}, nums: map[string]*slot{}, keys: map[string]string{}}
	x.scan.leaf = x.leaf
	x.scan.kill = func(from, to int) {
		for i := from; i < to; i++ {
			x.pending[i].dead = true
		}
	}
	return x
}

// argLeaf is one string or number a call sends, as dataflow recovery and
// the literal questions need it. Nothing keeps them: each walk lists a
// call's leaves afresh from its arguments.
type argLeaf struct {
	ord      int    // which scalar leaf of the arguments it is, in document order
	num      bool   // a number, not a string
	template bool   // a string with a {{…}} hole inside
	eligible bool   // long enough to be recovered or asked about as repeated
	raw      string // the string's value, or the number as written
	key      string // what it matches: the string, or the number's canonical text
	member   string // the object key it is the value of (an array's elements take the array's key), "" at the top
}

// argLeaves lists the string and number leaves of a call's arguments.
// They are appended to out, which the caller may reuse.
func argLeaves(args ast.Value, out []argLeaf) []argLeaf {
	ord := 0
	ast.WalkLeaves(args, "", func(v ast.Value, member string) {
		if l := leafOf(v); l.key != "" || l.template {
			l.ord, l.member = ord, member
			out = append(out, l)
		}
		ord++
	})
	return out
}

// leafOf describes a string or number leaf; any other value gives the zero
// argLeaf, which nothing looks at.
func leafOf(v ast.Value) argLeaf {
	switch v := v.(type) {
	case *ast.String:
		return argLeaf{raw: v.Value, key: v.Value, template: len(v.Holes) > 0,
			eligible: utf8.RuneCountInString(v.Value) >= minLiteralLen}
	case *ast.Number:
		l := argLeaf{num: true, raw: v.Raw, key: numberKey([]byte(v.Raw))}
		l.eligible = len(l.key) >= minLiteralLen
		return l
	}
	return argLeaf{}
}

// value rebuilds the leaf as a syntax node, for quoting it.
func (l argLeaf) value() ast.Value {
	if l.num {
		return &ast.Number{Raw: l.raw}
	}
	return &ast.String{Value: l.raw}
}

// slots returns the index map the leaf belongs to.
func (x *valueIndex) slots(l argLeaf) map[string]*slot {
	if l.num {
		return x.nums
	}
	return x.strs
}

// want registers a value that step n sends: the whole value, and each
// token of a string long enough to look for inside a longer one.
func (x *valueIndex) want(l argLeaf, n int) {
	x.each(l, func(m map[string]*slot, key string) {
		s := m[key]
		if s == nil {
			// A copy of the text, so the index does not keep the whole
			// argument string it was cut from.
			s = &slot{}
			m[strings.Clone(key)] = s
		}
		s.last = int32(n)
	})
}

// each calls fn with the index map and key of every value the leaf is
// looked up by: the leaf itself and, for a string, its tokens of at least
// minTokenLen characters. A redacted value is never looked up.
func (x *valueIndex) each(l argLeaf, fn func(m map[string]*slot, key string)) {
	if l.key == "" || (!l.num && isRedacted(l.raw)) {
		return
	}
	fn(x.slots(l), l.key)
	if l.num {
		// Also as text: a result may hold the number as a string
		// ("1200"), which a bind could not send as a number.
		fn(x.strs, l.raw)
		return
	}
	x.spans = tokenSpans(l.raw, x.spans[:0])
	if len(x.spans) == 1 && x.spans[0] == (span{0, len(l.raw)}) {
		if part := letterLed(l.raw); part != "" {
			fn(x.strs, part)
		}
		return
	}
	for _, ng := range phrases(l.raw, x.spans) {
		fn(x.strs, l.raw[ng.start:ng.end])
	}
	for _, sp := range x.spans {
		tok := l.raw[sp.start:sp.end]
		if utf8.RuneCountInString(tok) < minTokenLen {
			continue
		}
		fn(x.strs, tok)
		// A name with a prefix or suffix added (`report.txt.summary`,
		// `backup-report.txt`) holds the name as a part.
		for _, part := range subTokens(tok) {
			fn(x.strs, part)
		}
		if part := letterLed(tok); part != "" {
			fn(x.strs, part)
		}
	}
}

// letterLed returns the number a token writes after one letter (`2.4.0`
// of the tag `v2.4.0`, `1234` of `r1234`), when it is at least
// minTokenLen long, or "": the letter marks what the number is, and the
// number is what an earlier result held.
func letterLed(tok string) string {
	if len(tok) < 1+minTokenLen || !(tok[0] >= 'a' && tok[0] <= 'z' || tok[0] >= 'A' && tok[0] <= 'Z') || !isDigitByte(tok[1]) {
		return ""
	}
	return tok[1:]
}

// maxPhraseWords is the most tokens a phrase joins; maxPhraseTokens the
// most tokens a string may have for its phrases to be looked up.
const (
	maxPhraseWords  = 4
	maxPhraseTokens = 40
)

// phrases lists the runs of 2 to maxPhraseWords tokens of s joined by
// single blanks ("Priya Raman" in "Renewal call booked with Priya Raman"),
// longest first: a name of several words a result held is found inside a
// longer string. Strings of more than maxPhraseTokens tokens have none.
func phrases(s string, spans []span) []span {
	if len(spans) < 2 || len(spans) > maxPhraseTokens {
		return nil
	}
	var out []span
	for n := maxPhraseWords; n >= 2; n-- {
		for i := 0; i+n <= len(spans); i++ {
			ok := true
			for j := i; j < i+n-1; j++ {
				if s[spans[j].end:spans[j+1].start] != " " {
					ok = false
					break
				}
			}
			if ok && (spans[i].start != 0 || spans[i+n-1].end != len(s)) {
				out = append(out, span{spans[i].start, spans[i+n-1].end})
			}
		}
	}
	return out
}

// subTokens lists the parts of a token that start or end at one of its
// inner `.`, `-`, `_` or `@`, of at least minTokenLen characters, longest
// first. Most tokens have few such places; the list is capped.
func subTokens(tok string) []string {
	var cuts []int
	for i := 1; i < len(tok)-1; i++ {
		switch tok[i] {
		case '.', '-', '_', '@':
			cuts = append(cuts, i)
		}
	}
	if len(cuts) == 0 || len(cuts) > 6 {
		return nil
	}
	var out []string
	for _, c := range cuts {
		if pre := tok[:c]; utf8.RuneCountInString(pre) >= minTokenLen {
			out = append(out, pre)
		}
		if suf := tok[c+1:]; utf8.RuneCountInString(suf) >= minTokenLen {
			out = append(out, suf)
		}
	}
	return out
}

// lookup returns the slot of the most recent earlier result that held the
// value, or nil.
func (x *valueIndex) lookup(m map[string]*slot, key string) *slot {
	if s := m[key]; s != nil && s.src != nil {
		return s
	}
	return nil
}

// shrink makes the index's maps again once three quarters of the values
// they were made for are forgotten: a map keeps the room of its largest
// size, and the first walk fills them with every value of every call.
func (x *valueIndex) shrink() {
	x.strs, x.strsBuilt = shrunk(x.strs, x.strsBuilt)
	x.nums, x.numsBuilt = shrunk(x.nums, x.numsBuilt)
}

func shrunk(m map[string]*slot, built int) (map[string]*slot, int) {
	built = max(built, len(m))
	if built < 4096 || len(m) > built/4 {
		return m, built
	}
	fresh := make(map[string]*slot, len(m))
	for k, v := range m {
		fresh[k] = v
	}
	return fresh, len(fresh)
}

// empty reports whether no call sends anything worth looking for.
func (x *valueIndex) empty() bool { return len(x.strs) == 0 && len(x.nums) == 0 }

// mine indexes the values of one result that later calls send: the
// leaves of its JSON document (structuredContent, or a text that is JSON),
// or else the tokens of its text. echo holds what the result's own call
// sent, which the result does not count as holding.
//
// doc, which must be valid JSON, is walked even when no call sends
// anything, so that node (when not nil) sees every value of it.
func (x *valueIndex) mine(step int, doc []byte, text string, echo map[string]bool, node func(kind byte, raw []byte, esc bool, path []segment)) {
	x.results++
	x.pending = x.pending[:0]
	x.mineStep = step
	x.echo = echo
	// When the document is the body's own text, only its strings that
	// hold a separator can hold a token worth a pattern: the scan notes
	// where they are.
	docIsText := doc != nil && len(doc) == len(text) && string(doc) == text
	x.strSpans, x.collect = x.strSpans[:0], docIsText
	if doc != nil {
		x.scan.s, x.scan.i, x.scan.path, x.scan.marks = doc, 0, x.scan.path[:0], 0
		x.scan.node = node
		x.scan.value()
		x.scan.s, x.scan.node = nil, nil
	}
	x.collect = false
	if doc != nil {
		x.ownCopies(text)
	}
	// The body's tokens too: a value inside a longer string (a name in a
	// listing, in structured content's text or a JSON string) is picked
	// from the body with a pattern. A value the document held whole is
	// taken from the document.
	if !x.empty() {
		if docIsText {
			x.mineText(text, x.strSpans)
		} else {
			x.mineText(text, nil)
		}
	}
	x.echo = nil
	for _, p := range x.pending {
		if p.dead {
			continue
		}
		if p.slot.result != x.results {
			p.slot.src, p.slot.rank, p.slot.result, p.slot.count = p.src, p.rank, x.results, 1
			continue
		}
		p.slot.count++
		if p.rank < p.slot.rank {
			p.slot.src, p.slot.rank = p.src, p.rank
		}
	}
}

// mineText indexes the tokens of a text result that later calls send; the
// first sighting of each gets the pattern that picks it.
//
// regions, when not nil, are the only parts of text to look in (the
// strings of a JSON text); nil means all of it.
func (x *valueIndex) mineText(text string, regions []span) {
	if regions == nil {
		x.spans = tokenSpans(text, x.spans[:0])
	} else {
		x.spans = x.spans[:0]
		for _, r := range regions {
			from := len(x.spans)
			x.spans = tokenSpans(text[r.start:r.end], x.spans)
			for k := from; k < len(x.spans); k++ {
				x.spans[k].start += r.start
				x.spans[k].end += r.start
			}
		}
	}
	var first, whole map[*slot]bool
	mark := len(x.pending)
	for _, p := range x.pending {
		if whole == nil {
			whole = map[*slot]bool{}
		}
		whole[p.slot] = true
	}
	for _, sp := range x.spans {
		tok := text[sp.start:sp.end]
		var s *slot
		num := false
		switch {
		case isIntegerString(tok):
			s, num = x.nums[tok], true
		case looksNumeric(tok):
			s, num = x.nums[numberKey([]byte(tok))], true
		}
		if s == nil {
			s, num = x.strs[tok], false
		}
		if s == nil || x.echo[tok] || whole[s] {
			continue
		}
		if first == nil {
			first = map[*slot]bool{}
		}
		src := &source{step: int32(x.mineStep), text: true, kind: 's', raw: strings.Clone(tok)}
		if num {
			src.kind = 'n'
		}
		if !first[s] {
			first[s] = true
			lineStart := strings.LastIndexByte(text[:sp.start], '\n') + 1
			src.label = labelBefore(text[lineStart:sp.start])
			src.field = isFieldContext(text[lineStart:sp.start])
			src.pattern, src.positional = textPattern(text, sp, x.sent, src.field)
		} else {
			// A later sighting in the same text only counts.
			src = nil
		}
		x.pending = append(x.pending, pending{slot: s, src: src, rank: textRank})
	}
	// Sightings after the first keep the first one's source.
	var last = map[*slot]*source{}
	for i := mark; i < len(x.pending); i++ {
		p := &x.pending[i]
		if p.src != nil {
			last[p.slot] = p.src
		} else {
			p.src, p.rank = last[p.slot], textRank+1
		}
	}
}

// textRank ranks a text sighting below any place in the JSON document.
const textRank = 8

// isFieldContext reports whether the text before a token on its line is
// a field name and nothing else: `version: `, `  channel=`, `"channel": "`,
// `- owner: `. "Weekly sync: " is prose with a colon, not a field.
func isFieldContext(prefix string) bool {
	p := strings.TrimLeft(prefix, " \t-*>")
	p = strings.TrimRight(p, " \t\"'")
	if p == "" || (p[len(p)-1] != ':' && p[len(p)-1] != '=') {
		return false
	}
	key := strings.Trim(strings.TrimSpace(p[:len(p)-1]), "\"'")
	return key != "" && !strings.ContainsAny(key, " \t:=")
}

// hasSeparatorByte reports whether a JSON string's text holds a byte that
// separates tokens (non-ASCII separators are rare enough to pass over).
func hasSeparatorByte(raw []byte) bool {
	for _, c := range raw {
		if c < 0x80 && isSeparator(rune(c)) {
			return true
		}
	}
	return false
}

// looksNumeric reports a token that is a JSON number.
func looksNumeric(tok string) bool { return jsondata.IsNumber(tok) }

// isIntegerString reports a token of ASCII digits with an optional minus,
// matched by its own text (as isInteger does for bytes).
func isIntegerString(tok string) bool {
	d := strings.TrimPrefix(tok, "-")
	if d == "" {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// key returns a path segment's key, decoded and interned.
func (x *valueIndex) key(seg segment) string {
	if !seg.esc {
		if k, ok := x.keys[string(seg.raw)]; ok {
			return k
		}
	}
	k := seg.keyName()
	x.keys[k] = k
	return k
}

// leaf is the scanner's callback: it keeps a sighting of a wanted value.
func (x *valueIndex) leaf(kind byte, raw []byte, esc bool, path []segment) bool {
	if x.collect && kind == 's' && hasSeparatorByte(raw) {
		// raw shares the document's memory: its offset is where it
		// starts in the document.
		start := cap(x.scan.s) - cap(raw)
		x.strSpans = append(x.strSpans, span{start, start + len(raw)})
	}
	var s *slot
	switch {
	case kind == 'n' && isInteger(raw):
		s = x.nums[string(raw)]
	case kind == 'n':
		s = x.nums[numberKey(raw)]
	case esc:
		s = x.strs[unquote(raw)]
	default:
		s = x.strs[string(raw)]
	}
	if s == nil {
		return false
	}
	if x.echo != nil {
		v := string(raw)
		if kind == 'n' {
			v = numberKey(raw)
		} else if esc {
			v = unquote(raw)
		}
		if x.echo[v] {
			return false
		}
	}
	src := &source{step: int32(x.mineStep), path: make([]pathSeg, len(path)), bindable: len(path) > 0, kind: kind}
	if kind == 's' {
		src.raw = "\"" + string(raw) + "\""
	} else {
		src.raw = string(raw)
	}
	for i, seg := range path {
		if seg.index >= 0 {
			src.path[i] = pathSeg{index: seg.index}
			src.array = true
			continue
		}
		k := x.key(seg)
		src.path[i] = pathSeg{key: k, index: -1}
		src.bindable = src.bindable && isPathKey(k)
	}
	rank := int32(0)
	if !src.bindable {
		rank += 2
	}
	if src.array {
		rank++
	}
	rank += refRank(src.path)
	x.pending = append(x.pending, pending{slot: s, src: src, rank: rank})
	return true
}

// refRank ranks a place where a value is another element's reference to
// it below the element's own copy: under a reference key (`parents`,
// `parent_id`, `customerId`, a relation's `to`), or inside an array
// nested in an element. The element the agent picked holds the value as
// its own id or name; a bind on the reference would act on the wrong
// element when the list changes (#33).
func refRank(path []pathSeg) int32 {
	r, idx := int32(0), 0
	for i, seg := range path {
		if seg.index >= 0 {
			idx++
			continue
		}
		if isRefKey(seg.key, i == len(path)-1) {
			r = 2
		}
	}
	if idx > 1 {
		r += int32(idx - 1)
	}
	return r
}

// refWords are the words of a key that holds a reference to something
// else.
var refWords = setOf(`parent parents ref refs reference references depends dependencies
	blocked blocker blockers related links linked from to source target duplicate duplicates`)

// isRefKey reports a key naming a reference: one of refWords, or, as the
// last key, an id of something else (`parent_id`, `customerId`; `id`
// alone is the element's own).
func isRefKey(k string, last bool) bool {
	ws := strings.Split(snake(k), "_")
	for _, w := range ws {
		if refWords[w] {
			return true
		}
	}
	return last && len(ws) > 1 && (ws[len(ws)-1] == "id" || ws[len(ws)-1] == "ids")
}
