package lsp

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/lint"
	"go.lsp.dev/protocol"
)

// Tools lists the tool names seen in the workspace, for completion after
// `- action:`. It is called only when such a completion is asked for.
type Tools func() []string

// Completion offers what may be typed at the cursor: a new step header,
// the step keys, the effects, the assert and bind forms as snippets (and
// the rest of a form once its path is written), tool names, and inside
// `{{` the variables bound by earlier steps and the computed dates.
func Completion(doc *Document, pos protocol.Position, tools Tools) *protocol.CompletionList {
	off, err := doc.Mapper.Offset(pos)
	if err != nil {
		return nil
	}
	c := &completer{doc: doc, skill: doc.Skill(), off: off, end: off}
	c.lineStart = strings.LastIndexAny(doc.Mapper.Slice(ast.Range{End: ast.Pos{Offset: int32(off)}}), "\r\n") + 1
	c.prefix = doc.Mapper.Slice(ast.Range{Start: ast.Pos{Offset: int32(c.lineStart)}, End: ast.Pos{Offset: int32(off)}})
	c.step = stepAt(c.skill, off)
	c.complete(tools)
	return &protocol.CompletionList{Items: c.items}
}

// completer holds the context of one completion request.
type completer struct {
	doc       *Document
	skill     *ast.Skill
	off       int       // tree offset of the cursor
	end       int       // tree offset where replaced text ends (the cursor, or past a name after it)
	lineStart int       // tree offset where the cursor's line starts
	prefix    string    // the line's text before the cursor
	step      *ast.Step // the step whose block holds the cursor, or nil
	items     []protocol.CompletionItem
}

// prefixes holds the completion regexps, compiled on first use rather than
// at package initialisation, which every command's start-up paid (#20).
type prefixREs struct {
	heading, key, bullet, jsonOp, is, bindRHS *regexp.Regexp
}

var prefixes = sync.OnceValue(func() *prefixREs {
	return &prefixREs{
		heading: regexp.MustCompile(`^#{1,3}( *[A-Za-z]*)?$`),
		key:     regexp.MustCompile(`^[ \t]*(-[ \t]*)?([A-Za-z]*)$`),
		bullet:  regexp.MustCompile(`^[ \t]*-[ \t]*([A-Za-z]+)[ \t]*:[ \t]*`),
		jsonOp:  regexp.MustCompile(`^json(\.[A-Za-z0-9_]+)+[ \t]+([A-Za-z]*)$`),
		is:      regexp.MustCompile(`^json(\.[A-Za-z0-9_]+)+[ \t]+is[ \t]+([a-z]*)$`),
		bindRHS: regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*[ \t]*=[ \t]*([a-z]*)$`),
	}
})

func (c *completer) complete(tools Tools) {
	if c.holes() {
		return
	}
	if prefixes().heading.MatchString(c.prefix) {
		c.stepSnippet()
		return
	}
	if c.step == nil || c.step.HeaderRange.Contains(c.off) {
		if strings.TrimSpace(c.prefix) == "" && c.step == nil && len(c.skill.Steps) > 0 && c.off > int(c.skill.Steps[0].HeaderRange.Start.Offset) {
			c.stepSnippet()
		}
		return
	}
	if m := prefixes().key.FindStringSubmatch(c.prefix); m != nil {
		c.keys(len(c.prefix)-len(strings.TrimLeft(c.prefix, " \t")), m[1])
		if m[1] == "" && m[2] == "" {
			c.stepSnippet()
		}
		return
	}
	m := prefixes().bullet.FindStringSubmatchIndex(c.prefix)
	if m == nil {
		return
	}
	key, valueAt := c.prefix[m[2]:m[3]], m[1]
	value := c.prefix[valueAt:]
	switch key {
	case "effect":
		c.effects(valueAt)
	case "assert":
		c.asserts(valueAt, value)
	case "bind":
		c.binds(valueAt, value)
	case "action":
		if !strings.ContainsAny(value, " \t") && tools != nil {
			c.tools(valueAt, tools())
		}
	}
}

// rangeFrom is the range from column col of the cursor's line to the
// cursor (or past the rest of a name the cursor is in).
func (c *completer) rangeFrom(col int) protocol.Range {
	return protocol.Range{Start: c.doc.Mapper.Position(c.lineStart + col), End: c.doc.Mapper.Position(c.end)}
}

// add offers text in place of the line from column col to the cursor.
// Clients filter items by comparing that typed text with the filter text,
// which is the label unless set otherwise; items keep the order they are
// added in.
func (c *completer) add(label, detail, doc string, kind protocol.CompletionItemKind, col int, text string, snippet bool) *protocol.CompletionItem {
	item := protocol.CompletionItem{
		Label: label, Detail: detail, Kind: kind,
		TextEdit: &protocol.TextEdit{Range: c.rangeFrom(col), NewText: text},
		SortText: fmt.Sprintf("%04d", len(c.items)),
	}
	if doc != "" {
		item.Documentation = protocol.MarkupContent{Kind: protocol.Markdown, Value: doc}
	}
	if snippet {
		item.InsertTextFormat = protocol.InsertTextFormatSnippet
	}
	c.items = append(c.items, item)
	return &c.items[len(c.items)-1]
}

// stepSnippet offers the header and required fields of the next step.
func (c *completer) stepSnippet() {
	n := 1
	for _, st := range c.skill.Steps {
		if int(st.HeaderRange.Start.Offset) < c.lineStart {
			n = st.Number + 1
		}
	}
	text := fmt.Sprintf("### Step %d — ${1:Title}\n- intent: ${2:what this step is for}\n- action: ${3:tool} {$4}\n- assert: status == ${5:200}\n- effect: ${6|read,idempotent-write,destructive|}", n)
	c.add(fmt.Sprintf("### Step %d — …", n), "new step", "A step header with the fields every step needs.", protocol.CompletionItemKindSnippet, 0, text, true)
}

// keySnippets are the key completions; the required keys a step already
// has are not offered again.
var keySnippets = map[string]string{
	"intent": "intent: ${1:what this step is for}",
	"action": "action: ${1:tool} {$2}",
	"assert": "assert: $0",
	"bind":   "bind: ${1:name} = json.${2:path}",
	"effect": "effect: ${1|read,idempotent-write,destructive|}",
}

// keys offers the step keys in place of what is typed from column col;
// dash is the dash (and blanks) typed before the key, kept in the filter
// text so that "- in" still matches "- intent".
func (c *completer) keys(col int, dash string) {
	have := map[string]bool{"intent": c.step.Intent != nil, "action": c.step.Action != nil, "effect": c.step.Effect != nil}
	for _, k := range grammar.StepKeys {
		if !have[k] {
			item := c.add(k, "step field", keyDocs[k], protocol.CompletionItemKindProperty, col, "- "+keySnippets[k], true)
			item.FilterText = dash + k
		}
	}
}

func (c *completer) effects(col int) {
	for _, e := range ast.Effects {
		c.add(string(e), "effect", effectDocs[e], protocol.CompletionItemKindEnumMember, col, string(e), false)
	}
}

// asserts offers the assert forms; once a json path is written, the rest
// of each json form; after `is`, the type names; inside a selection, what
// may follow there.
func (c *completer) asserts(valueAt int, value string) {
	if c.selection(value) {
		return
	}
	if m := prefixes().is.FindStringSubmatch(value); m != nil {
		for _, t := range grammar.TypeNames {
			c.add(string(t), "type", "Holds when the value is "+typeDocs[t]+".", protocol.CompletionItemKindTypeParameter, len(c.prefix)-len(m[2]), string(t), false)
		}
		return
	}
	if m := prefixes().jsonOp.FindStringSubmatch(value); m != nil {
		for _, f := range grammar.AssertForms {
			if rest, ok := strings.CutPrefix(f.Syntax, "json.<path> "); ok {
				c.add(rest, f.Type, "", protocol.CompletionItemKindSnippet, len(c.prefix)-len(m[2]), snippet(rest, 1), true)
			}
		}
		return
	}
	for _, f := range grammar.AssertForms {
		if !strings.HasPrefix(f.Syntax, "<selection>") {
			c.add(f.Syntax, f.Type, "", protocol.CompletionItemKindSnippet, valueAt, snippet(f.Syntax, 1), true)
		}
	}
	c.picks(valueAt)
}

// picks offers each pick of a selection (SPEC.md §5.1) as a snippet that
// reads a JSON array.
func (c *completer) picks(col int) {
	for _, p := range ast.Picks {
		c.add(string(p)+"(…)", "selection", pickDoc(p), protocol.CompletionItemKindFunction, col, string(p)+"(json.${1:path})$0", true)
	}
}

func pickDoc(p ast.Pick) string { return fmt.Sprintf("**%s(…)** returns %s", p, pickDocs[p]) }

// selectionHead matches an open selection at the start of an assert or a
// bind's right side: the pick and what follows its parenthesis.
var selectionHead = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([a-z]+)[ \t]*\((.*)$`) })

// selection completes inside an open selection: the source right after
// `(`, the orderings after `as`, and otherwise the clauses that may still
// follow (where/and, by, sep for join) and `)`. It reports whether the
// value is an open selection.
func (c *completer) selection(value string) bool {
	m := selectionHead().FindStringSubmatch(value)
	if m == nil || !grammarPick(m[1]) {
		return false
	}
	inner, ok := openSelection(m[2])
	if !ok {
		return true // inside a string or a regex, or past ')': nothing to offer
	}
	n := len(inner)
	for n > 0 && words.IsIdentByte(inner[n-1]) {
		n--
	}
	partial, before := inner[n:], strings.TrimRight(inner[:n], " \t")
	col := len(c.prefix) - len(partial)
	words := strings.Fields(before)
	if len(words) == 0 {
		c.add("json", "source", "The elements of the JSON result, or with `.path` of the array there.", protocol.CompletionItemKindKeyword, col, "json", false)
		c.add("lines", "source", "The body's non-blank lines; `lines /regex/` keeps the matching ones, each an object of its captures.", protocol.CompletionItemKindKeyword, col, "lines", false)
		return true
	}
	if n > 0 && !isBlankByte(inner[n-1]) {
		return true // the partial word is glued to something else (a path)
	}
	last := words[len(words)-1]
	if last == "as" {
		for _, o := range ast.Orderings {
			c.add(string(o), "ordering", "`"+string(o)+"` "+orderingDocs[o], protocol.CompletionItemKindEnumMember, col, string(o), false)
		}
		return true
	}
	switch last {
	case "where", "and", "by", "sep", "not", "matches", "contains", "==", "!=", ">", "<", ">=", "<=":
		return true // a key, a value or a string comes next
	}
	has := map[string]bool{}
	for _, w := range words {
		has[w] = true
	}
	kw := func(word, doc string) {
		c.add(word, "selection clause", doc, protocol.CompletionItemKindKeyword, col, word, false)
	}
	if !has["by"] && !has["sep"] {
		if has["where"] {
			kw("and", "Adds a condition: an element is kept when every condition holds.")
		} else {
			kw("where", "Keeps the elements for which a condition holds: `where key == \"value\"`, `matches /re/`, `contains \"text\"`.")
		}
		kw("by", "Orders the kept elements by a key; `as number|date|version|name|text` says how.")
	}
	if m[1] == string(ast.PickJoin) && !has["sep"] {
		kw("sep", "The text between the joined values, a JSON string (`,` when not written).")
	}
	kw(")", "Closes the selection; a `.path` after it is read in the element picked.")
	return true
}

// openSelection returns the text after a selection's `(` when the cursor
// is in code: not inside a string or a regex, and before the closing `)`.
func openSelection(inner string) (string, bool) {
	inString, inRegex, inClass := false, false, false
	for i := 0; i < len(inner); i++ {
		ch := inner[i]
		switch {
		case (inString || inRegex) && ch == '\\':
			i++
		case inString:
			inString = ch != '"'
		case inRegex && ch == '[':
			inClass = true
		case inRegex && ch == ']':
			inClass = false
		case inRegex:
			inRegex = ch != '/' || inClass
		case ch == '"':
			inString = true
		case ch == '/':
			inRegex = true
		case ch == ')':
			return "", false
		}
	}
	return inner, !inString && !inRegex
}

func grammarPick(w string) bool {
	for _, p := range ast.Picks {
		if string(p) == w {
			return true
		}
	}
	return false
}

func isBlankByte(b byte) bool { return b == ' ' || b == '\t' }

// binds offers the bind forms, or their right-hand sides after `name =`.
func (c *completer) binds(valueAt int, value string) {
	if _, rhs, ok := strings.Cut(value, "="); ok && c.selection(strings.TrimLeft(rhs, " \t")) {
		return
	}
	if m := prefixes().bindRHS.FindStringSubmatch(value); m != nil {
		for _, f := range grammar.BindForms {
			_, rhs, _ := strings.Cut(f.Syntax, "= ")
			if rhs != "<selection>" {
				c.add(rhs, f.Type, "", protocol.CompletionItemKindSnippet, len(c.prefix)-len(m[1]), snippet(rhs, 1), true)
			}
		}
		c.picks(len(c.prefix) - len(m[1]))
		return
	}
	for _, f := range grammar.BindForms {
		if strings.HasSuffix(f.Syntax, "<selection>") {
			c.add(f.Syntax, f.Type, "Binds a value picked from a collection by a rule (SPEC.md §5.1).", protocol.CompletionItemKindSnippet, valueAt,
				"${1:name} = ${2|"+strings.Join(grammar.Picks, ",")+"|}(json.${3:path})$0", true)
			continue
		}
		c.add(f.Syntax, f.Type, "", protocol.CompletionItemKindSnippet, valueAt, snippet(f.Syntax, 1), true)
	}
}

func (c *completer) tools(col int, names []string) {
	seen := map[string]bool{}
	for _, st := range c.skill.Steps {
		if st.Action != nil && st.Action.Tool != "" && !seen[st.Action.Tool] {
			seen[st.Action.Tool] = true
			c.add(st.Action.Tool, "tool used in this skill", "", protocol.CompletionItemKindFunction, col, st.Action.Tool, false)
		}
	}
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			c.add(n, "tool seen in the workspace", "", protocol.CompletionItemKindFunction, col, n, false)
		}
	}
}

// holes completes a `{{` left open before the cursor on an action line.
// It reports whether the cursor was in one.
func (c *completer) holes() bool {
	open := strings.LastIndex(c.prefix, "{{")
	if open < 0 || strings.Contains(c.prefix[open:], "}}") || c.step == nil {
		return false
	}
	m := prefixes().bullet.FindStringSubmatchIndex(c.prefix)
	if m == nil {
		return false
	}
	switch key, value := c.prefix[m[2]:m[3]], c.prefix[m[1]:]; key {
	case "action":
	case "assert", "bind":
		// Only a selection's strings hold holes in asserts and binds.
		if key == "bind" {
			_, value, _ = strings.Cut(value, "=")
		}
		if h := selectionHead().FindStringSubmatch(strings.TrimLeft(value, " \t")); h == nil || !grammarPick(h[1]) {
			return false
		}
	default:
		return false
	}
	col := open + 2
	for col < len(c.prefix) && (c.prefix[col] == ' ' || c.prefix[col] == '\t') {
		col++
	}
	if !words.IsIdent(c.prefix[col:]) && c.prefix[col:] != "" {
		return true // something other than a name is being typed: nothing to offer
	}
	// Replace the rest of a name the cursor is in, and close the hole
	// unless it is closed already.
	after := c.doc.Mapper.Slice(ast.Range{Start: ast.Pos{Offset: int32(c.off)}, End: ast.Pos{Offset: int32(c.off + maxHoleScan)}})
	n := 0
	for n < len(after) && words.IsIdentByte(after[n]) {
		n++
	}
	c.end = c.off + n
	closing := "}}"
	if strings.HasPrefix(strings.TrimLeft(after[n:], " \t"), "}}") {
		closing = ""
	}
	// The latest binds first: the value just bound is the likeliest one.
	// The detail says where each is bound; hover tells the rest.
	bound := map[string]bool{}
	for _, b := range boundBefore(c.skill, c.step) {
		if bound[b.name()] {
			continue
		}
		bound[b.name()] = true
		detail := fmt.Sprintf("step %d: %s", b.step.Number, format.Bind(b.field.Expr))
		c.add(b.name(), detail, "", protocol.CompletionItemKindVariable, col, b.name()+closing, false)
	}
	// Then the inputs the preamble documents, which a run supplies.
	for _, in := range lint.DocumentedInputs(c.skill) {
		if !bound[in.Name] {
			bound[in.Name] = true
			c.add(in.Name, "input (documented in the preamble)", "", protocol.CompletionItemKindVariable, col, in.Name+closing, false)
		}
	}
	c.add("today", "the run's UTC date", "", protocol.CompletionItemKindConstant, col, "today"+closing, false)
	c.add("today-Nd", "N days before today", "", protocol.CompletionItemKindConstant, col, "today-${1:7}d"+escapeSnippet(closing), true)
	c.add("today+Nd", "N days after today", "", protocol.CompletionItemKindConstant, col, "today+${1:7}d"+escapeSnippet(closing), true)
	return true
}

// maxHoleScan bounds how far after the cursor a hole's name and closing
// braces are looked for.
const maxHoleScan = 256

// placeholders gives the text a snippet proposes for each placeholder of
// the grammar's form syntax.
var placeholders = map[string]string{
	"<int>": "1", "<text>": "text", "<path>": "path", "<regex>": "regex", "<json-scalar>": "value", "<name>": "name",
}

// placeholder is compiled on first use, not at start-up.
var placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[a-z-]+>`) })

// snippet turns a form's syntax, as grammar.AssertForms and BindForms
// write it, into an LSP snippet: each <placeholder> becomes a tab stop and
// each a|b|c list becomes a choice. Tab stops are numbered from n.
func snippet(syntax string, n int) string {
	words := strings.Split(syntax, " ")
	for i, w := range words {
		if !placeholder().MatchString(w) {
			if strings.Contains(w, "|") {
				words[i] = fmt.Sprintf("${%d|%s|}", n, strings.ReplaceAll(w, "|", ","))
				n++
			} else {
				words[i] = escapeSnippet(w)
			}
			continue
		}
		var b strings.Builder
		at := 0
		for _, m := range placeholder().FindAllStringIndex(w, -1) {
			def := placeholders[w[m[0]:m[1]]]
			if def == "1" && strings.HasPrefix(syntax, "status") {
				def = "200"
			}
			fmt.Fprintf(&b, "%s${%d:%s}", escapeSnippet(w[at:m[0]]), n, def)
			n++
			at = m[1]
		}
		b.WriteString(escapeSnippet(w[at:]))
		words[i] = b.String()
	}
	return strings.Join(words, " ")
}

// escapeSnippet escapes the characters that mean something in a snippet.
func escapeSnippet(s string) string {
	return strings.NewReplacer(`\`, `\\`, `$`, `\$`, `}`, `\}`).Replace(s)
}
