package lsp

import (
	"fmt"
	"strings"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/approval"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/lint"
	"github.com/reelier/reelier/lang/tooldef"
	"go.lsp.dev/protocol"
)

// Hover explains what is under the cursor: a `{{var}}` (what binds it and
// where), a bind (what it binds and who reads it), an assert (when it
// holds), an effect (what it gates), a step key, a tool or a step header.
// It returns nil when there is nothing to say.
func Hover(doc *Document, pos protocol.Position) *protocol.Hover {
	off, err := doc.Mapper.Offset(pos)
	if err != nil {
		return nil
	}
	skill := doc.Skill()
	var text string
	var rng ast.Range
	if st := stepAt(skill, off); st != nil {
		text, rng = hoverStep(doc, skill, st, off)
	} else {
		text, rng = hoverMetadata(skill, off)
	}
	if text == "" {
		return nil
	}
	r := doc.Mapper.Range(rng)
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: text}, Range: &r}
}

// metadataDocs describes Reelier's metadata keys, as SPEC.md §2.1 does.
var metadataDocs = map[string]string{
	ast.MetadataPrefix + "inputs":         "**reelier-inputs**: the skill's inputs, `{{name}}` for each; the linter and the editor count them as documented.",
	ast.MetadataPrefix + "timeout":        "**reelier-timeout**: the limit on each tool call of a replay, a Go duration (`45s`, `2m`); `--timeout` wins.",
	ast.MetadataPrefix + "retry":          "**reelier-retry**: how many more times a replay executes a read step whose checks did not hold, 0 to 100; `--retry` wins.",
	ast.MetadataPrefix + "retry-interval": "**reelier-retry-interval**: the wait before each retry, a Go duration; `--retry-interval` wins.",
	ast.MetadataPrefix + "retry-steps":    "**reelier-retry-steps**: the only steps a replay retries, by number (`3, 5`).",
	approval.MetadataKey: "**reelier-approvals**: one line per approved step, written by `reelier approve`: the step's number and the `sha256:` digest of its tool, server, argument template and effect (`tool=`, `server=`, `args=`, `effect=`: each part's short digest). " +
		"Once a skill keeps approvals, `reelier run` runs a write step, or a step that has an approval, only while its approval matches — even with `--allow-writes` or `--yes`; a step edited since fails closed.",
	tooldef.MetadataKey: "**reelier-tools**: one line per MCP tool the steps call, written by `reelier compile` from the trace's tool definitions — arguments (names, types, `?` for optional), the input and output schema digests (`in=`, `out=`) and the annotation hints. " +
		"`reelier run` compares them with the live servers before step 1 and stops on a difference, naming the server, the tool and what changed; `--ignore-tool-drift` runs anyway.",
}

// hoverMetadata explains a Reelier metadata key under the cursor, and for
// a reelier-tools line, the tool signature it keeps.
func hoverMetadata(skill *ast.Skill, off int) (string, ast.Range) {
	fm := skill.Frontmatter
	md := fm.Lookup("metadata")
	if md == nil || md.Kind != ast.MapValue {
		return "", ast.Range{}
	}
	for _, e := range md.Items {
		doc, ok := metadataDocs[e.Key]
		if !ok || !e.Range.Contains(off) {
			continue
		}
		if e.KeyRange.Contains(off) {
			return doc, e.KeyRange
		}
		if e.Key != tooldef.MetadataKey || e.Kind != ast.ScalarValue {
			return doc, e.ValueRange
		}
		for i, line := range strings.Split(e.Value, "\n") {
			start := tooldef.ValuePos(fm, e, i, 0)
			end := tooldef.ValuePos(fm, e, i, len(line))
			if int(start.Offset) <= off && off <= int(end.Offset) {
				t, err := tooldef.Parse(strings.TrimSpace(line))
				if err != nil {
					return fmt.Sprintf("This `reelier-tools` line does not read: %v.\n\n%s", err, doc), ast.Range{Start: start, End: end}
				}
				return t.Explain(), ast.Range{Start: start, End: end}
			}
		}
		return doc, e.ValueRange
	}
	return "", ast.Range{}
}

// hoverStep finds the innermost thing under the cursor inside a step.
func hoverStep(doc *Document, skill *ast.Skill, st *ast.Step, off int) (string, ast.Range) {
	flow := flowOf(skill)
	if sym, ok := flow.symbolAt(off); ok && sym.use != nil {
		return explainUse(doc, sym.use), sym.use.hole.Range
	}
	if a := st.Action; a != nil {
		for _, h := range ast.Holes(a.Args) {
			if h.Range.Contains(off) && h.Kind != ast.HoleVar {
				return explainDate(h), h.Range
			}
		}
	}
	for _, f := range st.Fields() {
		if !f.Range.Contains(off) {
			continue
		}
		if f.KeyRange.Contains(off) {
			return keyDocs[doc.Mapper.Slice(f.KeyRange)], f.KeyRange
		}
		return explainField(doc, flow, st, f, off)
	}
	if st.HeaderRange.Contains(off) {
		return explainStep(skill, st), st.HeaderRange
	}
	return "", ast.Range{}
}

// explainField explains the value of one bullet.
func explainField(doc *Document, flow *dataflow, st *ast.Step, f *ast.Bullet, off int) (string, ast.Range) {
	switch {
	case st.Action != nil && f == &st.Action.Bullet:
		if st.Action.ToolRange.Contains(off) {
			return fmt.Sprintf("**tool** `%s`\n\nThe step calls this tool with the JSON arguments that follow. `{{name}}` holes in string values are filled, when the step runs, from the binds of earlier steps and the computed dates.", st.Action.Tool), st.Action.ToolRange
		}
	case st.Effect != nil && f == &st.Effect.Bullet:
		return explainEffect(st.Effect.Value), f.ValueRange
	}
	if text, rng := explainSelectionWord(st, f, off); text != "" {
		return text, rng
	}
	for _, a := range st.Asserts {
		if f == &a.Bullet {
			return explainAssert(a.Expr), f.ValueRange
		}
	}
	for _, b := range flow.binds {
		if f == &b.field.Bullet {
			return explainBind(doc, b), f.ValueRange
		}
	}
	return "", ast.Range{}
}

// keyDocs describes each step key, as SPEC.md's table does.
var keyDocs = map[string]string{
	"intent": "**intent** (required, exactly one): a sentence saying what the step is for.",
	"action": "**action** (required, exactly one): `<tool> <json-args>` — the tool to call and its arguments as one JSON value.",
	"assert": "**assert** (any number, checked in order): a check on the tool's result — its status, its body text or a value in its JSON body.",
	"bind":   "**bind** (any number): names a value of the tool's result so later steps can use it as `{{name}}`.",
	"effect": "**effect** (required, exactly one): `read`, `idempotent-write` or `destructive` — decides when a replay may run the step.",
}

// effectDocs says what each effect means and what it gates on replay.
var effectDocs = map[ast.Effect]string{
	ast.EffectRead:            "No side effects. A replay always runs this step.",
	ast.EffectIdempotentWrite: "A write that is safe to repeat. A replay runs this step only with `--allow-writes` or `--yes`.",
	ast.EffectDestructive:     "Cannot be safely repeated or undone. A replay runs this step only with `--yes`, and self-healing never re-executes it.",
}

func explainEffect(e ast.Effect) string {
	if d, ok := effectDocs[e]; ok {
		return fmt.Sprintf("**effect** `%s`\n\n%s", e, d)
	}
	return fmt.Sprintf("`%s` is not an effect: use `read`, `idempotent-write` or `destructive`.", e)
}

func explainStep(skill *ast.Skill, st *ast.Step) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Step %d — %s**", st.Number, st.Title)
	if st.Intent != nil {
		fmt.Fprintf(&b, "\n\n%s", st.Intent.Text)
	}
	if st.Effect != nil {
		if d, ok := effectDocs[st.Effect.Value]; ok {
			fmt.Fprintf(&b, "\n\n`%s`: %s", st.Effect.Value, d)
		}
	}
	if line := approvalLine(skill, st); line != "" {
		b.WriteString("\n\n" + line)
	}
	return b.String()
}

// approvalLine says what the skill's approvals say of the step, or ""
// when the skill keeps none or the step needs none.
func approvalLine(skill *ast.Skill, st *ast.Step) string {
	c := approval.Check(skill)
	if !c.Present() {
		return ""
	}
	sc := c.Of(st.Number)
	if sc == nil {
		return ""
	}
	switch sc.Status {
	case approval.Approved:
		return fmt.Sprintf("**Approved** (`%s…`): a replay runs it while it stays as approved.", sc.Approval.Digest[:len("sha256:")+12])
	case approval.Stale:
		return "**Approval stale**: " + sc.Message() + ". A replay refuses it."
	}
	if approval.IsWrite(st.EffectValue()) {
		return fmt.Sprintf("**Not approved**: this skill keeps approvals, so a replay refuses this write step; run `reelier approve FILE --step %d` once it is reviewed.", st.Number)
	}
	return ""
}

// documentedInput returns the preamble's documentation of the input name.
func documentedInput(doc *Document, name string) (lint.Input, bool) {
	for _, in := range lint.DocumentedInputs(doc.Skill()) {
		if in.Name == name {
			return in, true
		}
	}
	return lint.Input{}, false
}

// explainUse says what a `{{name}}` hole reads.
func explainUse(doc *Document, u *use) string {
	if u.bind == nil {
		if in, ok := documentedInput(doc, u.hole.Name); ok {
			line := doc.Mapper.LineOf(in.Offset) + 1
			return fmt.Sprintf("`{{%s}}` — an input, documented on line %d:\n\n> %s\n\nA run supplies it as `REELIER_VAR_%s` in the environment, in a `--var-file`, or with `--var %s=…`; without it the replay stops at this step.", u.hole.Name, line, in.Line, u.hole.Name, u.hole.Name)
		}
		return fmt.Sprintf("`{{%s}}` is not bound by any earlier step.\n\nUnless a run passes it as an input (`--var %s=…`), the replay stops at this step.", u.hole.Name, u.hole.Name)
	}
	b := u.bind
	line := doc.Mapper.LineOf(int(b.field.Range.Start.Offset)) + 1
	return fmt.Sprintf("`{{%s}}` — bound by step %d (line %d):\n\n```\n- bind: %s\n```\n\n%s", u.hole.Name, b.step.Number, line, format.Bind(b.field.Expr), bindMeaning(b.field.Expr))
}

// explainDate describes `{{today}}` and `{{today±Nd}}`.
func explainDate(h *ast.Hole) string {
	switch {
	case h.Kind == ast.HoleMalformedDate:
		return fmt.Sprintf("`{{%s}}` is not a computed date — write `{{today}}`, `{{today-Nd}}` or `{{today+Nd}}`; a replay fails this step.", h.Written)
	case h.Kind == ast.HoleToday:
		return "`{{today}}` — the run's date in UTC, as `YYYY-MM-DD`, computed once when the run starts."
	case h.Days < 0:
		return fmt.Sprintf("`{{%s}}` — the UTC date %d day%s before the run's date, as `YYYY-MM-DD`.", h.Written, -h.Days, words.Suffix(-h.Days))
	}
	return fmt.Sprintf("`{{%s}}` — the UTC date %d day%s after the run's date, as `YYYY-MM-DD`.", h.Written, h.Days, words.Suffix(h.Days))
}

// explainBind says what a bind binds and which later holes read it.
func explainBind(doc *Document, b *binding) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "**bind** `%s`\n\n%s", format.Bind(b.field.Expr), bindMeaning(b.field.Expr))
	if len(b.uses) == 0 {
		sb.WriteString("\n\nNo later step reads it.")
		return sb.String()
	}
	sb.WriteString("\n\nRead by:")
	for _, u := range b.uses {
		fmt.Fprintf(&sb, "\n- step %d, line %d", u.step.Number, doc.Mapper.LineOf(int(u.hole.Range.Start.Offset))+1)
	}
	return sb.String()
}

func bindMeaning(b ast.Bind) string {
	switch b := b.(type) {
	case *ast.JSONBind:
		return fmt.Sprintf("Binds `{{%s}}` to the value at `%s` in the step's JSON result. When the path is absent the step diverges.", b.Name, format.Path(b.Path))
	case *ast.BodyMatchBind:
		return fmt.Sprintf("Binds `{{%s}}` to capture group 1 of the first match of `/%s/` in the result's body. When nothing matches the step diverges.", b.Name, b.Pattern)
	case *ast.SelectionBind:
		return fmt.Sprintf("Binds `{{%s}}` to %s When the selection picks nothing the step diverges.", b.Name, selectionMeaning(b.Sel))
	}
	return ""
}

// pickDocs says what each pick returns, as SPEC.md §5.1's table does.
var pickDocs = map[ast.Pick]string{
	ast.PickFirst: "the first element kept, in the source's order — or, with `by`, the lowest. Fails when nothing is kept.",
	ast.PickLast:  "the last element kept, in the source's order — or, with `by`, the highest. Fails when nothing is kept.",
	ast.PickOnly:  "the one element kept. Fails when none or several are kept, so the step stops where an agent would hesitate.",
	ast.PickMax:   "the element whose `by` key is highest (the element itself when the elements are scalars). Fails when nothing is kept, a key is missing or cannot be ordered, or two elements tie.",
	ast.PickMin:   "the element whose `by` key is lowest (the element itself when the elements are scalars). Fails when nothing is kept, a key is missing or cannot be ordered, or two elements tie.",
	ast.PickCount: "how many elements are kept, a number. Takes no path after `)`.",
	ast.PickSum:   "the sum of the elements kept (or of the path after `)` in each), a number.",
	ast.PickJoin:  "the elements kept (or the path after `)` in each) joined as text by `sep` (`,` when not written).",
}

// orderingDocs says how each ordering compares, as SPEC.md §5.1's table does.
var orderingDocs = map[ast.Ordering]string{
	ast.OrderNumber:  "compares JSON numbers, or strings that read as decimal numbers.",
	ast.OrderDate:    "compares RFC 3339 / ISO 8601 dates and times; a date alone is midnight UTC.",
	ast.OrderVersion: "compares dotted versions part by part as numbers (`v1.10.0` after `v1.9.2`); a pre-release comes before its release.",
	ast.OrderName:    "compares names naturally: runs of digits as numbers, the rest byte by byte (`file2` before `file10`).",
	ast.OrderText:    "compares strings byte by byte.",
}

// explainSelectionWord explains the pick or the ordering under the cursor
// in a selection assert or bind of the bullet f.
func explainSelectionWord(st *ast.Step, f *ast.Bullet, off int) (string, ast.Range) {
	var sel *ast.Selection
	for _, a := range st.Asserts {
		if f == &a.Bullet {
			sel = ast.StepSelection(a.Expr)
		}
	}
	for _, b := range st.Binds {
		if f == &b.Bullet {
			sel = ast.StepSelection(b.Expr)
		}
	}
	switch {
	case sel == nil:
	case sel.PickRange.Contains(off):
		return fmt.Sprintf("**%s(…)** — a selection's pick\n\nReturns %s", sel.Pick, pickDocs[sel.Pick]), sel.PickRange
	case sel.Order != ast.OrderNone && sel.OrderRange.Contains(off):
		return fmt.Sprintf("**as %s** — how `by` orders the keys\n\n`%s` %s", sel.Order, sel.Order, orderingDocs[sel.Order]), sel.OrderRange
	}
	return "", ast.Range{}
}

// selectionMeaning describes a selection's value in words: what it reads,
// what it keeps, how it orders and what it picks.
func selectionMeaning(s *ast.Selection) string {
	var b strings.Builder
	switch {
	case s.Source.Kind == ast.SourceJSON && len(s.Source.Path.Elements) == 0:
		b.WriteString("the elements of the JSON result (an array)")
	case s.Source.Kind == ast.SourceJSON:
		fmt.Fprintf(&b, "the elements of the array at `json.%s`", s.Source.Path.String())
	case s.Source.Pattern != "":
		fmt.Fprintf(&b, "the body's lines that `/%s/` matches, each an object of its captures", s.Source.Pattern)
	default:
		b.WriteString("the body's non-blank lines")
	}
	if len(s.Where) > 0 {
		b.WriteString(", keeping those where ")
		for i, c := range s.Where {
			if i > 0 {
				b.WriteString(" and ")
			}
			key := "the element"
			if !ast.IsIt(c.Key) {
				key = "`" + c.Key.String() + "`"
			}
			if c.Op == ast.CondMatches {
				fmt.Fprintf(&b, "%s matches `/%s/`", key, c.Pattern)
			} else {
				fmt.Fprintf(&b, "%s %s `%s`", key, c.Op, format.Value(c.Value))
			}
		}
	}
	if s.HasBy {
		fmt.Fprintf(&b, ", ordered by `%s`", s.By.String())
		if s.Order != ast.OrderNone {
			fmt.Fprintf(&b, " as %s", s.Order)
		}
	}
	fmt.Fprintf(&b, " — `%s` returns %s", s.Pick, pickDocs[s.Pick])
	if len(s.Field.Elements) > 0 && s.Pick != ast.PickSum && s.Pick != ast.PickJoin {
		fmt.Fprintf(&b, " Then `.%s` is read in the element picked.", s.Field.String())
	}
	return "selecting from " + b.String()
}

// typeDocs says what each `is` type name accepts.
var typeDocs = map[ast.TypeName]string{
	ast.TypeArray: "an array", ast.TypeSet: "present and not null", ast.TypeNumber: "a number",
	ast.TypeString: "a string", ast.TypeBoolean: "`true` or `false`", ast.TypeNull: "`null`",
}

var opWords = map[ast.Op]string{ast.OpGt: ">", ast.OpLt: "<", ast.OpGe: "≥", ast.OpLe: "≤", ast.OpEq: "=", ast.OpNe: "≠"}

// explainAssert says when an assert holds, in terms of its own operands.
func explainAssert(a ast.Assert) string {
	head := fmt.Sprintf("**assert** `%s`\n\n", format.Assert(a))
	paths := "\n\nA path reads JSON data only: object members and array indexes (`items.0.id`)."
	switch a := a.(type) {
	case *ast.StatusAssert:
		if a.Op == ast.OpNe {
			return head + fmt.Sprintf("Holds when the tool's status is anything but %d.", a.Code)
		}
		return head + fmt.Sprintf("Holds when the tool's status is %d.", a.Code)
	case *ast.BodyContainsAssert:
		if a.Negated {
			return head + fmt.Sprintf("Holds when the result's body does not include the text %q (no escapes; the text runs to the last quote of the line).", a.Text)
		}
		return head + fmt.Sprintf("Holds when the result's body includes the text %q (no escapes; the text runs to the last quote of the line).", a.Text)
	case *ast.JSONIsAssert:
		return head + fmt.Sprintf("Holds when `%s` is %s.", format.Path(a.Path), typeDocs[a.Type]) + paths
	case *ast.JSONMatchesAssert:
		return head + fmt.Sprintf("Holds when `%s` is a string that the regular expression `/%s/` matches (JavaScript syntax, no flags).", format.Path(a.Path), a.Pattern) + paths
	case *ast.JSONLengthAssert:
		return head + fmt.Sprintf("Holds when `%s` is an array or a string whose length is %s %d.", format.Path(a.Path), opWords[a.Op], a.Length) + paths
	case *ast.JSONCompareAssert:
		v := format.Value(a.Value)
		switch a.Op {
		case ast.OpEq:
			return head + fmt.Sprintf("Holds when `%s` is exactly `%s` (strict JSON equality: `1` and `\"1\"` differ).", format.Path(a.Path), v) + paths
		case ast.OpNe:
			return head + fmt.Sprintf("Holds when `%s` is anything but `%s` (strict JSON equality).", format.Path(a.Path), v) + paths
		}
		return head + fmt.Sprintf("Holds when `%s` and `%s` are both numbers and the value is %s %s.", format.Path(a.Path), v, opWords[a.Op], v) + paths
	case *ast.SelectionAssert:
		var test string
		switch a.Kind {
		case ast.SelCompare:
			test = fmt.Sprintf("is %s `%s`", opWords[a.Op], format.Value(a.Value))
		case ast.SelIs:
			test = "is " + typeDocs[a.Type]
		case ast.SelMatches:
			test = fmt.Sprintf("is a string that `/%s/` matches", a.Pattern)
		}
		return head + fmt.Sprintf("Holds when the value %s. The value comes from %s", test, selectionMeaning(a.Sel))
	}
	return ""
}
