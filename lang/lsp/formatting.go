package lsp

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"go.lsp.dev/protocol"
)

// maxDiffLines bounds the changed region handed to the line differ; a
// larger one is replaced by a single edit.
const maxDiffLines = 4000

// Format returns the edits that print the document in canonical form
// (`reelier fmt`). It returns no edits when the document is canonical
// already, and none when it does not parse: there is no whole tree to
// print. The printed text is parsed again before any edit is returned, so
// the editor is never handed text that breaks the file.
func Format(doc *Document) ([]protocol.TextEdit, error) {
	syn := doc.parse()
	if syn.diags.HasErrors() {
		return nil, nil
	}
	out := format.Source(syn.skill)
	if bytes.Equal(out, syn.src) {
		return nil, nil
	}
	if diags := grammar.ReparseDiagnostics(doc.name, syn.src, syn.skill, syn.diags, out); diags.HasErrors() {
		return nil, fmt.Errorf("internal error: the canonical form of this file does not parse (%s), so it was left as it is; please report it", diags[0].String())
	}
	return lineEdits(doc.Mapper, string(out)), nil
}

// lineEdits returns edits turning the mapper's text into next, one per
// run of changed lines, so that the editor keeps marks and the cursor on
// the lines that did not change.
func lineEdits(m *Mapper, next string) []protocol.TextEdit {
	a, b := splitKeep(m.Text()), splitKeep(next)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	aMid, bMid := a[pre:len(a)-suf], b[pre:len(b)-suf]
	ops := []difflib.OpCode{{Tag: 'r', I1: 0, I2: len(aMid), J1: 0, J2: len(bMid)}}
	if len(aMid) <= maxDiffLines && len(bMid) <= maxDiffLines {
		ops = difflib.NewMatcher(aMid, bMid).GetOpCodes()
	}
	starts := make([]int, len(a)+1)
	for i, l := range a {
		starts[i+1] = starts[i] + len(l)
	}
	var edits []protocol.TextEdit
	for _, op := range ops {
		if op.Tag == 'e' {
			continue
		}
		edits = append(edits, protocol.TextEdit{
			Range:   protocol.Range{Start: m.TextPosition(starts[pre+op.I1]), End: m.TextPosition(starts[pre+op.I2])},
			NewText: strings.Join(bMid[op.J1:op.J2], ""),
		})
	}
	return edits
}

// splitKeep cuts s into lines that keep their "\n".
func splitKeep(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
