package grammar

import (
	"fmt"
	"strings"

	"github.com/reelier/reelier/lang/ast"
)

// fields reads lines [from, to) of a step block: bullets, prose, blanks.
func (p *docParser) fields(step *ast.Step, from, to int) {
	var prose []ast.Prose
	seenBullet := false
	for i := from; i < to && !p.tooMany(i); i++ {
		l := p.line(i)
		raw := p.text(l)
		trimmed := strings.TrimSpace(raw)
		if trimmed == "" {
			continue
		}
		lead := strings.Index(raw, trimmed)
		org := l.at(lead)
		if trimmed[0] != '-' {
			// Prose keeps its indentation: trimmed, an indented `## x`
			// would turn into a section heading when printed.
			text := strings.TrimRight(raw, " \t")
			prose = append(prose, ast.Prose{Text: text, Range: l.at(0).span(0, len(text))})
			continue
		}
		if !seenBullet {
			step.LeadingProse, prose = prose, nil
			seenBullet = true
		}
		g, value, err := p.exprs.bullet(trimmed)
		if err != nil || !isStepKey(g.Key.Value) {
			d := p.report(step.Number, CodeUnknownField, org.span(0, len(trimmed)), fmt.Sprintf(msgUnknownField, trimmed))
			if err == nil {
				if key, ok := Suggest(g.Key.Value, StepKeys); ok {
					d.Detail = fmt.Sprintf("did you mean %q?", key)
					d.Fixes = []ast.SuggestedFix{{
						Title: fmt.Sprintf("Change %q to %q", g.Key.Value, key),
						Edits: []ast.TextEdit{{Range: org.span(g.Key.Pos.Offset, g.Key.Pos.Offset+len(g.Key.Value)), NewText: key}},
					}}
				}
			}
			continue
		}
		b := ast.Bullet{
			Range:    org.span(0, len(trimmed)),
			KeyRange: org.span(g.Key.Pos.Offset, g.Key.Pos.Offset+len(g.Key.Value)),
			Leading:  prose,
		}
		prose = nil
		valStart := len(trimmed) - len(value)
		b.ValueRange = org.span(valStart, valStart+len(value))
		p.field(step, g.Key.Value, value, b, org.from(valStart))
	}
	if seenBullet {
		step.TrailingProse = prose
	} else {
		step.LeadingProse = prose
	}
	for _, f := range []struct {
		name    string
		missing bool
	}{{"intent", step.Intent == nil || step.Intent.Text == ""}, {"action", step.Action == nil}, {"effect", step.Effect == nil}} {
		if f.missing {
			p.report(step.Number, CodeMissingField, step.HeaderRange, fmt.Sprintf(msgMissingField, f.name))
		}
	}
}

func isStepKey(k string) bool {
	for _, s := range StepKeys {
		if k == s {
			return true
		}
	}
	return false
}

// field stores one bullet in its step. The value starts at org.
func (p *docParser) field(step *ast.Step, key, value string, b ast.Bullet, org origin) {
	dup := func(present bool) bool {
		if present {
			p.report(step.Number, CodeDuplicateField, b.Range, fmt.Sprintf(msgDuplicateField, key))
		}
		return present
	}
	switch key {
	case "intent":
		// An empty intent is kept, so the printer keeps its line and a
		// second intent bullet is a duplicate; it counts as missing.
		if !dup(step.Intent != nil) {
			step.Intent = p.nodes.intents.new()
			*step.Intent = ast.IntentField{Bullet: b, Text: value}
		}
	case "action":
		if !dup(step.Action != nil) {
			if a := p.action(step.Number, value, b, org); a != nil {
				step.Action = a
			} else {
				// Keep a placeholder so the step is not also reported as
				// missing its action.
				step.Action = &ast.ActionField{Bullet: b}
			}
		}
	case "effect":
		if !dup(step.Effect != nil) {
			step.Effect = p.nodes.effects.new()
			*step.Effect = ast.EffectField{Bullet: b, Value: ast.Effect(value)}
			if !step.Effect.Value.Valid() {
				d := p.report(step.Number, CodeInvalidEffect, b.ValueRange, fmt.Sprintf(msgInvalidEffect, value))
				if e, ok := Suggest(value, effectNames); ok {
					d.Detail = fmt.Sprintf("did you mean %q?", e)
					d.Fixes = []ast.SuggestedFix{{
						Title: fmt.Sprintf("Change %q to %q", value, e),
						Edits: []ast.TextEdit{{Range: b.ValueRange, NewText: e}},
					}}
				}
			}
		}
	case "assert":
		a, err := p.exprs.parseAnyAssert(value, org)
		if p.exprReport(step.Number, err, org) {
			if step.Asserts == nil {
				step.Asserts = make([]*ast.AssertField, 0, 4)
			}
			step.Asserts = append(step.Asserts, p.newAssert(ast.AssertField{Bullet: b, Expr: a}))
		}
	case "bind":
		bd, err := p.exprs.parseAnyBind(value, org)
		if p.exprReport(step.Number, err, org) {
			f := p.nodes.binds.new()
			*f = ast.BindField{Bullet: b, Expr: bd}
			step.Binds = append(step.Binds, f)
		}
	}
}

// exprReport records an expression error and reports whether there was none.
func (p *docParser) exprReport(step int, err *exprError, org origin) bool {
	if err == nil {
		return true
	}
	d := err.diagnostic(org)
	d.File, d.Step = p.file, step
	p.diags = append(p.diags, *d)
	return false
}

// action parses `<tool> <json-args>`; it returns nil after reporting a
// problem.
func (p *docParser) action(step int, value string, b ast.Bullet, org origin) *ast.ActionField {
	g, err := p.exprs.fastAction(value), error(nil)
	if g == nil {
		g, err = actionParser().ParseString("", value)
	}
	if err != nil || g.Tool.Value == "" {
		p.report(step, CodeMalformedAction, b.ValueRange, fmt.Sprintf(msgMalformedAction, value))
		return nil
	}
	if strings.ContainsAny(g.Tool.Value[:1], `{["`) {
		p.report(step, CodeMissingTool, b.ValueRange, msgMissingTool)
		return nil
	}
	if g.Args.Value == "" {
		p.report(step, CodeMalformedAction, b.ValueRange, fmt.Sprintf(msgMalformedAction, value))
		return nil
	}
	a := p.nodes.actions.new()
	*a = ast.ActionField{Bullet: b, Tool: g.Tool.Value, ToolRange: org.span(0, len(g.Tool.Value))}
	argsAt := g.Args.Pos.Offset
	v, jerr := parseJSON(g.Args.Value, org.from(argsAt), &p.exprs)
	if jerr != nil {
		code, msg := jerr.rejection()
		p.report(step, code, ast.Range{Start: org.at(argsAt + jerr.at), End: org.at(len(value))}, msg)
		return nil
	}
	a.Args = v
	return a
}

// ParseArgs parses an action's JSON arguments (with template holes) that
// start at base in their file.
func ParseArgs(src string, base ast.Pos) (ast.Value, *ast.Diagnostic) {
	org := fragment(base, src)
	v, err := parseJSON(src, org, &exprCache{})
	if err != nil {
		code, msg := err.rejection()
		return nil, &ast.Diagnostic{Range: org.span(err.at, len(src)), Code: code, Message: msg}
	}
	return v, nil
}

// rejection returns the code and message that reject action arguments
// for e.
func (e *jsonError) rejection() (code, msg string) {
	if e.deep {
		return CodeJSONTooDeep, msgJSONTooDeep
	}
	return CodeInvalidJSON, fmt.Sprintf(msgInvalidJSON, e.msg)
}
