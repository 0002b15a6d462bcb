package lsp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"go.lsp.dev/protocol"
)

// statusAssert is the bullet the "add status assert" action inserts.
const statusAssert = "- assert: status == 200"

// CodeActions returns the actions available for a range of the document:
// the suggested fixes of the parser's and the linter's findings that touch
// the range, "renumber steps" when the steps are not numbered 1, 2, 3…,
// and "add status assert" in a step whose action's status goes unchecked.
// only, when not empty, restricts the kinds returned (as the client asks).
func CodeActions(doc *Document, rng protocol.Range, only []protocol.CodeActionKind) []protocol.CodeAction {
	start, end, err := doc.Mapper.OffsetRange(rng)
	if err != nil {
		return nil
	}
	var out []protocol.CodeAction
	var sequence []protocol.Diagnostic
	for _, f := range doc.Findings() {
		if int(f.Range.Start.Offset) > end || int(f.Range.End.Offset) < start {
			continue
		}
		pd := toProtocol(doc.Mapper, f)
		if f.Code == grammar.CodeStepSequence {
			sequence = append(sequence, pd)
		}
		for i, fx := range f.Fixes {
			out = append(out, protocol.CodeAction{
				Title: fx.Title, Kind: protocol.QuickFix, Diagnostics: []protocol.Diagnostic{pd}, IsPreferred: i == 0,
				Edit: editOf(doc, fx.Edits),
			})
		}
	}
	if a := renumber(doc, sequence); a != nil {
		out = append(out, *a)
	}
	if a := addStatusAssert(doc, start); a != nil {
		out = append(out, *a)
	}
	return filterKinds(out, only)
}

// editOf converts the edits of a suggested fix to a workspace edit.
func editOf(doc *Document, edits []ast.TextEdit) *protocol.WorkspaceEdit {
	out := make([]protocol.TextEdit, len(edits))
	for i, e := range edits {
		out[i] = protocol.TextEdit{Range: doc.Mapper.Range(e.Range), NewText: e.NewText}
	}
	return &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{doc.URI: out}}
}

// renumber rewrites the step numbers to 1, 2, 3… when any is off. It
// resolves the step_sequence diagnostics in the range.
func renumber(doc *Document, diags []protocol.Diagnostic) *protocol.CodeAction {
	var edits []ast.TextEdit
	for i, st := range doc.Skill().Steps {
		want := strconv.Itoa(i + 1)
		if r := st.NumberRange; r.End.Offset > r.Start.Offset && doc.Mapper.Slice(r) != want {
			edits = append(edits, ast.TextEdit{Range: r, NewText: want})
		}
	}
	if len(edits) == 0 {
		return nil
	}
	return &protocol.CodeAction{Title: "Renumber steps 1 to " + strconv.Itoa(len(doc.Skill().Steps)), Kind: protocol.QuickFix, Diagnostics: diags, IsPreferred: len(diags) > 0, Edit: editOf(doc, edits)}
}

// addStatusAssert inserts `- assert: status == 200` right after the action
// of the step at off, when the step has an action and no status assert.
func addStatusAssert(doc *Document, off int) *protocol.CodeAction {
	skill := doc.Skill()
	st := stepAt(skill, off)
	if st == nil || st.Action == nil || st.Action.Tool == "" {
		return nil
	}
	for _, a := range st.Asserts {
		if _, ok := a.Expr.(*ast.StatusAssert); ok {
			return nil
		}
	}
	eol := "\n"
	if skill.CRLF {
		eol = "\r\n"
	}
	// Insert at the start of the line after the action's, or after the
	// action when it ends the file.
	after := st.Action.Range.End.Offset
	at, text := after, eol+statusAssert
	if i := strings.IndexByte(doc.Mapper.Slice(ast.Range{Start: ast.Pos{Offset: after}, End: ast.Pos{Offset: int32(len(doc.Text()))}}), '\n'); i >= 0 {
		at, text = after+int32(i)+1, statusAssert+eol
	}
	pos := ast.Pos{Offset: at}
	edit := ast.TextEdit{Range: ast.Range{Start: pos, End: pos}, NewText: text}
	return &protocol.CodeAction{Title: fmt.Sprintf("Add %q to step %d", statusAssert, st.Number), Kind: protocol.RefactorRewrite, Edit: editOf(doc, []ast.TextEdit{edit})}
}

// filterKinds keeps the actions whose kind is one of only, or a sub-kind
// of one (quickfix covers quickfix.x); an empty only keeps everything.
func filterKinds(actions []protocol.CodeAction, only []protocol.CodeActionKind) []protocol.CodeAction {
	if len(only) == 0 {
		return actions
	}
	var out []protocol.CodeAction
	for _, a := range actions {
		for _, k := range only {
			if a.Kind == k || strings.HasPrefix(string(a.Kind), string(k)+".") {
				out = append(out, a)
				break
			}
		}
	}
	return out
}
