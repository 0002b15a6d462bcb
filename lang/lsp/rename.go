package lsp

import (
	"fmt"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/grammar"
	"go.lsp.dev/protocol"
)

// PrepareRename returns the range of the variable name under the cursor,
// or an error saying why nothing there can be renamed.
func PrepareRename(doc *Document, pos protocol.Position) (*protocol.Range, error) {
	off, err := doc.Mapper.Offset(pos)
	if err != nil {
		return nil, err
	}
	sym, ok := flowOf(doc.Skill()).symbolAt(off)
	if !ok {
		return nil, fmt.Errorf("only a bind name or a {{variable}} can be renamed")
	}
	r := doc.Mapper.Range(sym.at)
	return &r, nil
}

// Rename renames the variable under the cursor in its bind and in every
// hole that reads it (see References). It refuses a new name that is not a
// variable name, is reserved for the computed dates, or is already used in
// the skill (renaming onto it would capture other holes).
func Rename(doc *Document, pos protocol.Position, newName string) (*protocol.WorkspaceEdit, error) {
	off, err := doc.Mapper.Offset(pos)
	if err != nil {
		return nil, err
	}
	flow := flowOf(doc.Skill())
	sym, ok := flow.symbolAt(off)
	if !ok {
		return nil, fmt.Errorf("only a bind name or a {{variable}} can be renamed")
	}
	if err := checkNewName(flow, newName); err != nil {
		return nil, err
	}
	var edits []protocol.TextEdit
	for _, r := range flow.occurrences(sym, true) {
		edits = append(edits, protocol.TextEdit{Range: doc.Mapper.Range(r), NewText: newName})
	}
	return &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{doc.URI: edits}}, nil
}

// checkNewName explains why name cannot be the new name of a variable.
func checkNewName(flow *dataflow, name string) error {
	if !words.IsIdent(name) {
		return fmt.Errorf("%q is not a variable name: use letters, digits and '_', not starting with a digit", name)
	}
	if grammar.IsReservedName(name) {
		return fmt.Errorf("%q is reserved for the computed dates", name)
	}
	for _, b := range flow.binds {
		if b.name() == name {
			return fmt.Errorf("%q is already bound in step %d", name, b.step.Number)
		}
	}
	for _, u := range flow.uses {
		if u.hole.Name == name {
			return fmt.Errorf("{{%s}} is already used in step %d", name, u.step.Number)
		}
	}
	return nil
}
