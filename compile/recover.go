package compile

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
	"github.com/reelier/reelier/trace"
)

// dataflow is the second walk over the records. Each result is read as the
// observation replay will see (tool.ToolResult), its checks are derived,
// and the values later calls send are indexed — except those its own call
// sent, which it merely echoes. Each call's values that an earlier result
// held become holes filled by a bind on the source step: a whole value, or
// a token inside a longer string. A redacted value becomes an input. The
// literals that stay are entered in the literal table as they are met.
// The walk stops where the first one did, and a call that is not the one
// the first walk saw there means the trace changed in between.
func (c *compiler) dataflow() error {
	idx := c.idx
	c.idx = nil
	b := newBinder(len(c.steps))
	c.binder = b
	// echoes holds each call's values until its result is mined.
	echoes := map[int]map[string]bool{}
	seen, calls := 0, 0
	err := c.src.walk(func(rec trace.Record, at trace.Place) error {
		line := at.Line
		if seen == c.records {
			return errWalked
		}
		seen++
		switch rec := rec.(type) {
		case *trace.Result:
			st := c.byI.get(rec.I)
			if st == nil || st.resultLine != line {
				return ErrTraceChanged
			}
			echo := echoes[rec.I]
			delete(echoes, rec.I)
			if res, ok := c.result(st, rec); ok {
				c.observe(st, res, idx, echo)
			}
		case *trace.Call:
			if calls == len(c.steps) {
				return ErrTraceChanged
			}
			st := c.steps[calls]
			calls++
			if !st.same(rec, line, c.seed) {
				return ErrTraceChanged
			}
			c.leaves = callLeaves(rec.Args, c.leaves[:0])
			for _, l := range c.leaves {
				c.recover(st, l, idx, b)
			}
			for _, l := range c.leaves {
				c.precondition(st, l)
				c.listingPrecondition(st, l)
				c.emptyReadPrecondition(st, l)
			}
			c.rememberWords(st, c.leaves)
			// What the call sent, which its result merely echoes. A value
			// is forgotten once the last step that sends it has looked it
			// up: no later call can use where it was seen, so the index
			// holds only the values the calls still to come send.
			echo := map[string]bool{}
			n := int32(st.n)
			for _, l := range c.leaves {
				idx.each(l, func(m map[string]*slot, key string) {
					echo[key] = true
					if s := m[key]; s != nil && s.last == n {
						delete(m, key)
					}
				})
			}
			echoes[rec.I] = echo
			idx.shrink()
		}
		return nil
	})
	switch {
	case errors.Is(err, errWalked):
	case err != nil:
		return err
	case seen != c.records:
		return ErrTraceChanged
	}
	// A result with content but nothing stable to check is asked about
	// once the walk is over, when it is known whether a later step takes
	// a value from it (its binds are checked).
	for _, st := range c.steps {
		if st.unchecked && len(st.binds) == 0 && len(st.pre) == 0 {
			c.q.add(st.n, KindNoStableCheck, "%s: the result has no field or line the compiler could check without it changing from run to run (dates, ids, long numbers, or the values the step sends), so the step asserts only its status — add an assert if some part of it is stable.", ref(st))
		}
	}
	c.binds = len(b.all)
	return nil
}

// bindQuestions asks about the binds whose source may not hold the same
// thing at replay: positions in arrays and lines, and elements picked by
// a field.
func (c *compiler) bindQuestions() {
	for _, bd := range c.binder.all {
		from := c.steps[bd.step]
		switch {
		case bd.selector != "":
			c.q.add(from.n, KindSelectedBind, "%s: the bind %s takes the first element whose %s — the value the step itself sent — so another element listed before it is passed over; if the result can hold several such elements, %s would receive the first — is that the one?", ref(from), bd.name, bd.selector, stepsPhrase(c.binder.consumers[bd]))
		case bd.unexplained && bd.array:
			c.q.add(from.n, KindArrayIndexBind, "%s: the bind %s reads json.%s, a position among several elements, because no rule explains the pick: the element is not the only one holding a value the agent sent, bound or named in a note, not the unique newest (or the extreme a note asks for), not the only one of its kind; %s — if the agent had a reason, write it as a selection (`only(json.… where …)`, `max(json.… by …)`).", ref(from), bd.name, bd.path, pickCheckPhrase(bd, stepsPhrase(c.binder.consumers[bd])))
		case bd.unexplained && bd.positional:
			c.q.add(from.n, KindLinePositionBind, "%s: the bind %s takes the value from a fixed line among several of the same shape (/%s/), because no rule explains the pick (not the only line holding a value the agent sent, bound or named in a note, not the unique newest or the extreme a note asks for); if lines come back in another order or number, %s would receive a different value — if the agent had a reason, write it as a selection (`max(lines /…/ by …)`).", ref(from), bd.name, bd.pattern, stepsPhrase(c.binder.consumers[bd]))
		case bd.array && bd.volatile():
			c.q.add(from.n, KindArrayIndexBind, "%s: the bind %s reads json.%s, a position in an array, and the value looks generated (it is checked by type only); if the array comes back in another order or length, %s would receive a different value — is the order guaranteed?", ref(from), bd.name, bd.path, stepsPhrase(c.binder.consumers[bd]))
		case bd.array:
			c.q.add(from.n, KindArrayIndexBind, "%s: the bind %s reads json.%s, a position in an array; a value assert checks that position still holds the recorded %s, so a list that now has something else there fails instead of feeding it to %s — is the order guaranteed, or should the step look the element up by a key?", ref(from), bd.name, bd.path, clipQuote(bd.raw), stepsPhrase(c.binder.consumers[bd]))
		case bd.positional:
			c.q.add(from.n, KindLinePositionBind, "%s: the bind %s takes the value from a fixed line of the text result (/%s/); if lines come back in another order or number, %s would receive a different value — is the order guaranteed?", ref(from), bd.name, bd.pattern, stepsPhrase(c.binder.consumers[bd]))
		}
	}
}

// pickCheckPhrase says how a positional pick is checked, and what a
// reordered list then does to the steps that use it.
func pickCheckPhrase(bd *binding, users string) string {
	if bd.volatile() {
		return "the value looks generated, so it is checked by type only, and a reordered list would feed " + users + " another element"
	}
	return "a value assert holds the position to the recorded " + clipQuote(bd.raw) + ", so a reordered list fails instead of feeding " + users + " another element"
}

// clipQuote shows a recorded JSON value in a question.
func clipQuote(raw string) string {
	if utf8.RuneCountInString(raw) > maxQuoted {
		return string([]rune(raw)[:maxQuoted]) + "…"
	}
	return raw
}

// observe reads one successful result: it derives the step's checks and
// indexes the values later calls send.
func (c *compiler) observe(st *step, res *tool.ToolResult, idx *valueIndex, echo map[string]bool) {
	text, single := resultText(res)
	doc := []byte(res.Structured)
	docText := ""
	structured := doc != nil
	// structuredContent is part of the result's body, which the trace
	// reader found valid JSON.
	switch {
	case structured:
		docText = string(doc)
	default:
		js := text
		if !single {
			js = res.JSONText()
		}
		if jsonLike(js) {
			if b := []byte(js); json.Valid(b) {
				doc, docText = b, js
			}
		}
	}
	// Structured content that only wraps the text (`{"content": "<the
	// text>"}`) is checked as the text it wraps.
	wrapped := false
	if structured && doc != nil {
		if root, err := jsondata.Parse(docText); err == nil {
			if !textMatches(text, root) {
				c.q.add(st.n, KindStructuredMismatch, "%s: the result's text and its structuredContent disagree; json paths read structuredContent and body asserts read the text — check which one later steps depend on.", ref(st))
			}
			if obj, ok := root.(*jsondata.Object); ok && len(obj.Members) == 1 {
				if s, ok := obj.Members[0].Value.(string); ok && s == text {
					wrapped = true
				}
			}
		}
	}
	var checks *docCollector
	if doc != nil && !wrapped {
		// The collector and its lists are the compiler's, reused result
		// after result; the step keeps a copy of the checks at their size.
		checks = &c.collector
		*checks = docCollector{sent: st.sent, paths: &c.paths, out: checks.out[:0], seen: checks.seen, buf: checks.buf[:0]}
		clear(checks.seen)
		st.doc = true
	}
	var node func(byte, []byte, bool, []segment)
	if checks != nil {
		node = checks.node
	}
	idx.sent = st.sent
	idx.mine(st.n-1, doc, text, echo, node)
	idx.sent = nil
	if checks != nil && len(checks.out) > 0 {
		st.checks = slices.Clone(checks.out)
	}
	// Kept for the binds later calls make: a JSON result for its arrays,
	// a text for its listings.
	c.keepRecent(&recentResult{step: st.n - 1, doc: document{text: doc}, text: text, sent: echo})
	if (doc == nil || wrapped) && strings.TrimSpace(text) != "" {
		st.lines = textChecks(text, st.sent)
	}
	st.readBack = c.readBacks(st, text, echo)
	if doc != nil || strings.TrimSpace(text) != "" {
		st.unchecked = len(st.lines) == 0 && len(st.checks) == 0
	}
}

// resultText is res.Text(); single is set when the result is one text
// block, whose text is then also res.JSONText() and is not copied.
func resultText(res *tool.ToolResult) (text string, single bool) {
	if len(res.Content) == 1 && res.Content[0].Type == "text" && res.Structured == nil {
		return res.Content[0].Text, true
	}
	return res.Text(), false
}

// textMatches reports whether a result's text says what its structured
// content says: the same JSON, or the text of the structured content's
// only member (`{"content": "<the text>"}`), or the JSON of that member.
// A text that is not JSON alongside a structured object of several
// members is a summary, and matches too: only two JSON documents can
// disagree.
func textMatches(text string, root any) bool {
	if obj, ok := root.(*jsondata.Object); ok && len(obj.Members) == 1 {
		if s, ok := obj.Members[0].Value.(string); ok && s == text {
			return true
		}
	}
	if !jsonLike(text) {
		return true
	}
	tv, err := jsondata.Parse(text)
	if err != nil {
		return true
	}
	if jsondata.String(tv) == jsondata.String(root) {
		return true
	}
	if obj, ok := root.(*jsondata.Object); ok && len(obj.Members) == 1 && jsondata.String(obj.Members[0].Value) == jsondata.String(tv) {
		return true
	}
	return false
}

// jsonLike reports a text that may be a JSON document (an object or an
// array), the only texts json paths read.
func jsonLike(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && (s[0] == '{' || s[0] == '[')
}

// recover decides one leaf step st sends: an input (redacted), a hole
// filled by a bind (the value, or tokens of it, came from an earlier
// result), a question (a short value seen by chance, prose repeated from a
// result), or a literal.
func (c *compiler) recover(st *step, l argLeaf, idx *valueIndex, b *binder) {
	if l.key == "" && !l.template {
		c.noteWritten(st, l)
		return
	}
	if !l.num && isRedacted(l.raw) {
		c.redactedInput(st, l, b)
		return
	}
	if l.member != "" && c.fixedMembers(st.tool)[l.member] && !c.namedSetting(st, l, idx) {
		// The schema lists the values: the agent chose one (fixedargs.go).
		if s := idx.lookup(idx.slots(l), l.key); l.key != "" && s != nil {
			c.q.add(st.n, KindChosenValue, "%s: %s sends %s, one of the values the tool's input schema allows; step %d's result also shows it (%s), but the agent chose it, so it stays a literal — make it an input if it should vary.", ref(st), memberPhrase(l), quote(l.value()), c.steps[int(s.src.step)].n, s.src.where())
		}
		c.literal(st, l)
		return
	}
	if l.key != "" {
		if s := idx.lookup(idx.slots(l), l.key); s != nil {
			if c.wholeFrom(st, l, s, b) {
				return
			}
		}
	}
	if l.num {
		// The number as a JSON string of an earlier result: a bind would
		// send a string where the call sent a number.
		if s := idx.lookup(idx.strs, l.raw); s != nil && !s.src.text {
			c.q.add(st.n, KindUnbindablePath, "%s: %s sends the number %s, which step %d's result held as the string \"%s\" (%s); a bind would send a string where the call sent a number, so it stays a literal — make it an input if it should follow that result.", ref(st), memberPhrase(l), l.raw, c.steps[int(s.src.step)].n, l.raw, s.src.where())
			c.literal(st, l)
			return
		}
	}
	if !l.num && l.key != "" && c.tokensFrom(st, l, idx, b) {
		return
	}
	if l.num {
		// A total the agent computed from an earlier result's rows.
		if name := c.aggregate(st, l.raw, l.member); name != "" {
			st.holes = append(st.holes, argHole{ord: l.ord, whole: name})
			return
		}
	}
	c.literal(st, l)
}

// wholeFrom handles a leaf whose whole value an earlier result held; it
// reports whether the leaf was dealt with.
func (c *compiler) wholeFrom(st *step, l argLeaf, s *slot, b *binder) bool {
	src := s.src
	from := c.steps[int(src.step)]
	if !l.eligible && !c.corroborated(st, l, s) {
		c.q.add(st.n, KindShortValue, "%s: %s sends %s, which step %d's result also held (%s); a value this short matches by chance, so it stays a literal — if it came from there, bind it.", ref(st), memberPhrase(l), quote(l.value()), from.n, src.where())
		c.literal(st, l)
		return true
	}
	switch {
	case typedCategory(l, src):
		// A kind the agent chose, not a value it carried (fixedargs.go).
		c.q.add(st.n, KindChosenValue, "%s: %s sends %s, the kind of thing the step makes; step %d's result held the same word under the same key (%s) for something else, so it is the agent's choice and stays a literal — bind it by hand if it should follow that result.", ref(st), memberPhrase(l), quote(l.value()), from.n, src.where())
	case l.num && src.text:
		c.q.add(st.n, KindUnbindablePath, "%s: %s sends the number %s, which step %d's result held only as text (%s); a `body match` bind gives a string, and the call sent a number, so it stays a literal — make it an input if it should follow that result.", ref(st), memberPhrase(l), l.raw, from.n, src.where())
	case src.text && src.pattern == "":
		c.q.add(st.n, KindUnbindablePath, "%s: %s sends %s, which step %d's text result held where no `body match` pattern the compiler tried picks it, so it stays a literal — bind it by hand or make it an input.", ref(st), memberPhrase(l), quote(l.value()), from.n)
	case !src.text && !src.bindable:
		c.unbindable(st, l, src)
	default:
		bd := b.use(c.steps, src, st.n, l.member)
		c.settlePick(bd)
		st.holes = append(st.holes, argHole{ord: l.ord, whole: bd.name})
		st.sent = append(st.sent, strings.Clone(l.key))
		return true
	}
	c.literal(st, l)
	return true
}

// corroborated reports whether a short value's sighting is more than a
// coincidence: the result named it with the same key the call sends it
// under, or it is the only occurrence in the result just before the call.
func (c *compiler) corroborated(st *step, l argLeaf, s *slot) bool {
	src := s.src
	if l.member != "" {
		name := snake(l.member)
		switch {
		case src.text && src.label != "" && src.label == name:
			return true
		case !src.text && len(src.path) > 0 && src.path[len(src.path)-1].index < 0 && snake(src.path[len(src.path)-1].key) == name:
			return true
		}
	}
	return int(src.step) == st.n-2 && s.count == 1
}

// memberPhrase names where a leaf is in the arguments.
func memberPhrase(l argLeaf) string {
	if l.member == "" {
		return "the call"
	}
	return "the argument " + quoteKey(l.member)
}

func quoteKey(k string) string {
	if isPathKey(k) {
		return k
	}
	return fmt.Sprintf("%q", k)
}

// where names a source for a person.
func (s *source) where() string {
	if s.text {
		if s.label != "" {
			return "in its text, after " + s.label
		}
		return "in its text"
	}
	if len(s.path) == 0 {
		return "as the whole result"
	}
	return "at " + s.display()
}

// tokensFrom handles a string some of whose tokens an earlier result held:
// name-like tokens become holes inside the string; prose words get a
// question. It reports whether the leaf became a composed string.
func (c *compiler) tokensFrom(st *step, l argLeaf, idx *valueIndex, b *binder) bool {
	spans := tokenSpans(l.raw, nil)
	if len(spans) < 2 && (len(spans) == 0 || spans[0] == (span{0, len(l.raw)}) && letterLed(l.raw) == "") {
		return false
	}
	var parts []holePart
	var prose []string
	proseFrom := map[int]bool{}
	// Phrases first, longest first, then single tokens; a part never
	// overlaps one taken before it.
	cands := append(phrases(l.raw, spans), spans...)
	var taken []span
	var short []span
	// Values the agent computed from an earlier result's rows: their ids
	// joined, a total (aggregate.go).
	for _, p := range c.joined(st, l.raw, spans) {
		taken = append(taken, p.span)
		parts = append(parts, p)
	}
	for _, sp := range cands {
		if overlaps(taken, sp) {
			continue
		}
		tok := l.raw[sp.start:sp.end]
		phrase := strings.ContainsRune(tok, ' ')
		if !phrase && utf8.RuneCountInString(tok) < minTokenLen {
			if isDigits(tok) {
				short = append(short, sp)
			}
			continue
		}
		s := idx.lookup(idx.strs, tok)
		if phrase && (s == nil || s.src.text && !s.src.labelled) {
			// A phrase counts only as a whole value of a JSON document;
			// in a text its words are looked at one by one.
			continue
		}
		if s == nil {
			// A part of the token: the name with something added.
			for _, part := range subTokens(tok) {
				if s = idx.lookup(idx.strs, part); s != nil {
					i := strings.Index(tok, part)
					sp = span{sp.start + i, sp.start + i + len(part)}
					tok = part
					break
				}
			}
		}
		if s == nil {
			// A number behind a letter that says what it is (`v2.4.0`).
			if part := letterLed(tok); part != "" {
				if s = idx.lookup(idx.strs, part); s != nil {
					sp = span{sp.start + 1, sp.end}
					tok = part
				}
			}
		}
		if s == nil {
			if name := c.aggregate(st, tok, ""); !phrase && name != "" {
				taken = append(taken, sp)
				parts = append(parts, holePart{span: sp, name: name})
			}
			continue
		}
		src := s.src
		if src.text && !isNameToken(tok) && !src.field {
			prose = append(prose, tok)
			from := c.steps[int(src.step)]
			proseFrom[from.n] = true
			from.proseFed = true
			continue
		}
		taken = append(taken, sp)
		if (src.text && src.pattern == "") || (!src.text && !src.bindable) {
			c.q.add(st.n, KindUnbindablePath, "%s: %s contains %s, which step %d's result held %s where the compiler cannot bind it, so it stays literal text — bind it by hand or make it an input.", ref(st), memberPhrase(l), quote(&ast.String{Value: tok}), c.steps[int(src.step)].n, src.where())
			continue
		}
		bd := b.use(c.steps, src, st.n, "")
		c.settlePick(bd)
		c.noteBind(bd)
		parts = append(parts, holePart{span: sp, name: bd.name})
		st.sent = append(st.sent, strings.Clone(tok))
	}
	// Short numbers: a count of rows a part was computed over, a field
	// after its own key, or a number worked out (rowfacts.go).
	for _, p := range c.shortNumbers(st, l.raw, short, parts) {
		if !overlaps(taken, p.span) {
			taken = append(taken, p.span)
			parts = append(parts, p)
		}
	}
	if len(prose) > 0 {
		c.q.add(st.n, KindDerivedText, "%s: the text %s sends repeats words of %s (%s); the agent wrote it from what it read, so a replay sends the recorded text — the checks on the step it read are what catch a change there.", ref(st), memberPhrase(l), stepWord(sortedKeys(proseFrom)), quoteWords(prose))
	}
	if len(parts) == 0 {
		if len(prose) > 0 {
			c.literal(st, l)
			return true
		}
		return false
	}
	slices.SortFunc(parts, func(a, b holePart) int { return a.start - b.start })
	st.holes = append(st.holes, argHole{ord: l.ord, composed: composeString(l.raw, parts)})
	return true
}

// overlaps reports whether sp shares a byte with any span in taken.
func overlaps(taken []span, sp span) bool {
	for _, t := range taken {
		if sp.start < t.end && t.start < sp.end {
			return true
		}
	}
	return false
}

// holePart is a token of a string replaced by a hole.
type holePart struct {
	span
	name string
}

// composeString rebuilds s with each part replaced by its hole.
func composeString(s string, parts []holePart) *ast.String {
	var b strings.Builder
	var holes []*ast.Hole
	at := 0
	for _, p := range parts {
		b.WriteString(s[at:p.start])
		start := b.Len()
		b.WriteString("{{" + p.name + "}}")
		holes = append(holes, &ast.Hole{Kind: ast.HoleVar, Name: p.name, Written: p.name, Start: start, End: b.Len()})
		at = p.end
	}
	b.WriteString(s[at:])
	return &ast.String{Value: b.String(), Holes: holes}
}

// redactedInput turns a leaf holding redaction placeholders into inputs:
// a placeholder was never a value, so no result can have held it and the
// recorded text cannot be sent. Each placeholder is an input of its own,
// save that the same one met again shares it:
//
//   - «redacted:NAME», the value of the variable NAME that REELIER_REDACT
//     named, is the input named after NAME in lower case (PAYMENTS_TOKEN →
//     payments_token), wherever it is sent;
//   - the k-th «redacted» of a leaf is the input named after the leaf's
//     key (or secret, for a key such as value that names nothing), shared
//     with the k-th «redacted» of every leaf under the same key: two
//     placeholders in one string are two secrets, and the same key sent
//     again is taken to send the same one (the question says so).
func (c *compiler) redactedInput(st *step, l argLeaf, b *binder) {
	key := snake(l.member)
	base := key
	if base == "" || genericKeys[base] {
		base = "secret"
	}
	ms := redact.Markers(l.raw, nil)
	parts := make([]holePart, 0, len(ms))
	unnamed := 0
	for _, m := range ms {
		var in *input
		if m.Name != "" {
			in = c.input("name:"+m.Name, []string{m.InputName(), base}, b)
			in.variable = m.Name
		} else {
			unnamed++
			id := "key:" + key
			if unnamed > 1 {
				id += "#" + strconv.Itoa(unnamed)
			}
			in = c.input(id, []string{base}, b)
			in.nth = unnamed
		}
		if len(in.steps) == 0 || in.steps[len(in.steps)-1] != st.n {
			in.steps = append(in.steps, st.n)
		}
		in.leaves++
		parts = append(parts, holePart{span: span{m.Start, m.End}, name: in.name})
	}
	if len(parts) == 1 && parts[0].span == (span{0, len(l.raw)}) {
		st.holes = append(st.holes, argHole{ord: l.ord, whole: parts[0].name})
		return
	}
	st.holes = append(st.holes, argHole{ord: l.ord, composed: composeString(l.raw, parts)})
}

// input returns the input filed under id, made with the first free name
// of cands when there is none yet.
func (c *compiler) input(id string, cands []string, b *binder) *input {
	in := c.inputs[id]
	if in == nil {
		var names []string
		for _, n := range cands {
			if n != "" {
				names = append(names, n)
			}
		}
		in = &input{name: b.fresh(names, 0)}
		c.inputs[id] = in
		c.inputOrder = append(c.inputOrder, in)
	}
	return in
}

// input is a variable a run must supply: a value the recording redacted.
type input struct {
	name   string
	steps  []int
	leaves int // how many redacted values it replaces
	// variable is the environment variable a «redacted:NAME» placeholder
	// named, or ""; nth is, for «redacted», which placeholder of its
	// leaf it stands for (1 for the first).
	variable string
	nth      int
}

// inputQuestions asks for each input's value.
func (c *compiler) inputQuestions() {
	for _, in := range c.inputOrder {
		first := c.steps[in.steps[0]-1]
		what := "the recording redacted a secret here"
		if in.variable != "" {
			what = fmt.Sprintf("the recording redacted the value of %s here (a variable REELIER_REDACT named)", in.variable)
		} else if in.nth > 1 {
			what = fmt.Sprintf("the recording redacted another secret in the same text here (the %s), an input of its own", ordinal(in.nth))
		}
		shared := ""
		switch {
		case in.variable != "" && in.leaves > 1:
			shared = fmt.Sprintf(" Every place the recording sent %s (%s) sends this input.", in.variable, stepWord2(in.steps))
		case len(in.steps) > 1:
			shared = fmt.Sprintf(" Steps %s send it under the same key and share the input; give them separate inputs if they are different secrets.", stepList(in.steps))
		case in.leaves > 1:
			shared = fmt.Sprintf(" The %d redacted values under that key share the input; give them separate inputs if they are different secrets.", in.leaves)
		}
		c.q.add(first.n, KindRedactedInput, "%s: %s, so the skill cannot send what was recorded; it sends the input {{%s}} — supply it when you run it: REELIER_VAR_%s in the environment, a %s=… line in a --var-file, or --var %s=….%s", ref(first), what, in.name, in.name, in.name, in.name, shared)
	}
}

// ordinal renders 2 as "2nd", 3 as "3rd", 11 as "11th".
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

var (
	// errWalked ends the second walk where the first one ended.
	errWalked = errors.New("walked every record the first walk saw")
	// ErrTraceChanged is returned when a trace file's calls differ from
	// one read to the next.
	ErrTraceChanged = errors.New("the trace changed while it was being compiled (is it still being recorded?); compile it again once it is complete")
)

// unbindable asks about a value step st sends that an earlier result held
// where no json path can reach it.
func (c *compiler) unbindable(st *step, l argLeaf, src *source) {
	from := c.steps[int(src.step)].n
	where := fmt.Sprintf("came from step %d's result at %s, but a skill path can name only keys made of letters, digits and _", from, src.display())
	if len(src.path) == 0 {
		where = fmt.Sprintf("is the whole result of step %d, and a json path needs at least one key", from)
	}
	c.q.add(st.n, KindUnbindablePath, "%s: %s %s, so it stays a literal and replay sends the recorded value — bind it with `body match` or make it an input.", ref(st), quote(l.value()), where)
}

// stepWord renders "step 2" or "steps 2 and 3".
func stepWord(ns []int) string {
	if len(ns) == 1 {
		return fmt.Sprintf("step %d's result", ns[0])
	}
	return "the results of steps " + stepList(ns)
}

func sortedKeys(m map[int]bool) []int { return slices.Sorted(maps.Keys(m)) }

// quoteWords lists up to five distinct words, quoted, and how many more
// there are.
func quoteWords(ws []string) string {
	var distinct []string
	for _, w := range ws {
		if !slices.Contains(distinct, w) {
			distinct = append(distinct, w)
		}
	}
	shown := distinct[:min(len(distinct), 5)]
	quoted := make([]string, len(shown))
	for i, w := range shown {
		quoted[i] = fmt.Sprintf("%q", w)
	}
	s := strings.Join(quoted, ", ")
	if more := len(distinct) - len(shown); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}
