package lsp_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/testkit/skillgen"
	"github.com/reelier/reelier/testkit/testutil"
	"go.lsp.dev/protocol"
)

// TestDiagnostics: opening a file publishes the parser's diagnostics (with
// their rejection codes) and the linter's (with a link to the rule).
func TestDiagnostics(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	var b strings.Builder
	for _, file := range []string{"broken.skill.md", "typo.skill.md", "bookings.skill.md"} {
		u, p := c.open(file, readTestdata(t, file))
		if p.URI != u || p.Version != 1 {
			t.Errorf("%s: published for %s version %d", file, p.URI, p.Version)
		}
		fmt.Fprintf(&b, "## %s\n", file)
		for _, d := range p.Diagnostics {
			link := ""
			if d.CodeDescription != nil {
				link = " " + string(d.CodeDescription.Href)
			}
			fmt.Fprintf(&b, "%s %s %s %q%s\n", showRange(d.Range), d.Severity, d.Code, d.Message, link)
		}
	}
	testutil.Golden(t).Assert(t, "diagnostics", []byte(b.String()))
}

// TestDebounce: changes publish nothing until the (fake) timer fires, a
// burst of changes publishes once, for the latest version, and closing a
// document clears its diagnostics.
func TestDebounce(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	u, p := c.open("broken.skill.md", readTestdata(t, "broken.skill.md"))
	if len(p.Diagnostics) != 3 {
		t.Fatalf("want 3 diagnostics on open, got %v", p.Diagnostics)
	}
	// Fix the misspelt key (line 8 "- asert:") in two keystrokes.
	for i, ch := range []string{"s", "X"} {
		c.notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: int32(2 + i)},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{{Range: rng(8, 3, 8, 3), Text: ch}},
		})
		<-c.clock.scheduled
	}
	select {
	case p := <-c.diags:
		t.Fatalf("published before the debounce delay: %v", p)
	default:
	}
	if n := c.clock.fire(); n != 1 {
		t.Fatalf("%d publications fired, want 1 (the first timer was stopped)", n)
	}
	p = c.nextDiagnostics()
	if p.Version != 3 || len(p.Diagnostics) != 3 || !strings.Contains(p.Diagnostics[0].Message, "- aXssert") {
		t.Fatalf("after the burst: version %d, %v", p.Version, p.Diagnostics)
	}
	// Undo the X: the key is right now and the file has two errors left.
	c.notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 4},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{{Range: rng(8, 3, 8, 4), Text: ""}},
	})
	<-c.clock.scheduled
	c.clock.fire()
	if p = c.nextDiagnostics(); p.Version != 4 || len(p.Diagnostics) != 2 {
		t.Fatalf("after the fix: version %d, %v", p.Version, p.Diagnostics)
	}
	c.notify(protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if p = c.nextDiagnostics(); p.Version != 4 || len(p.Diagnostics) != 2 {
		t.Fatalf("on save: version %d, %v", p.Version, p.Diagnostics)
	}
	c.notify(protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if p = c.nextDiagnostics(); len(p.Diagnostics) != 0 {
		t.Fatalf("after close: %v", p.Diagnostics)
	}
}

// observe asks the server everything that depends on a document's text,
// so two documents with equal answers hold the same text.
func observe(t *testing.T, c *client, u protocol.DocumentURI) string {
	t.Helper()
	id := protocol.TextDocumentIdentifier{URI: u}
	var toks *protocol.SemanticTokens
	var syms []protocol.DocumentSymbol
	var folds []protocol.FoldingRange
	var edits []protocol.TextEdit
	var actions []protocol.CodeAction
	for _, call := range []struct {
		method      string
		params, res any
	}{
		{protocol.MethodSemanticTokensFull, &protocol.SemanticTokensParams{TextDocument: id}, &toks},
		{protocol.MethodTextDocumentDocumentSymbol, &protocol.DocumentSymbolParams{TextDocument: id}, &syms},
		{protocol.MethodTextDocumentFoldingRange, &protocol.FoldingRangeParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: id}}, &folds},
		{protocol.MethodTextDocumentFormatting, &protocol.DocumentFormattingParams{TextDocument: id}, &edits},
		{protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{TextDocument: id, Range: rng(0, 0, 9999, 0)}, &actions},
	} {
		if err := c.call(call.method, call.params, call.res); err != nil {
			t.Fatalf("%s: %v", call.method, err)
		}
	}
	for i := range actions { // the URI differs between the two documents
		actions[i].Edit = &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{"x": actions[i].Edit.Changes[u]}}
	}
	out, err := json.Marshal([]any{toks, syms, folds, edits, actions})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestIncrementalSync sends a long sequence of incremental edits — single
// and several per notification, across lines, with emoji, em dashes and
// CRLF — and checks after each one that the server's document answers
// exactly as a document opened with the client's own copy of the text.
func TestIncrementalSync(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	text := strings.ReplaceAll(readTestdata(t, "bookings.skill.md"), "## Changelog", "## Changelog\r\n\r\n- 🙂 crlf — line\r")
	u, _ := c.open("incremental.skill.md", text)
	inserts := []string{"x", "🙂", "—", "\n", "\r\n", "- assert: status == 200\n", "{{booking_id}}", "", "### Step 9 — New\n"}
	r := rand.New(rand.NewPCG(3, 4))
	for v := int32(2); v < 60; v++ {
		var changes []protocol.TextDocumentContentChangeEvent
		for range 1 + r.IntN(3) {
			units := utf16Units(text)
			a := r.IntN(len(units) + 1)
			b := min(a+r.IntN(6), len(units))
			a, b = clampToRunes(units, a), clampToRunes(units, b)
			ins := inserts[r.IntN(len(inserts))]
			changes = append(changes, protocol.TextDocumentContentChangeEvent{Range: protocol.Range{Start: unitPos(units, a), End: unitPos(units, b)}, Text: ins})
			text = utf16String(units[:a]) + ins + utf16String(units[b:])
		}
		c.notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
			ContentChanges: changes,
		})
		<-c.clock.scheduled
		ref, _ := c.open(fmt.Sprintf("full-%d.skill.md", v), text)
		if got, want := observe(t, c, u), observe(t, c, ref); got != want {
			t.Fatalf("version %d: the incrementally edited document differs from a full sync of\n%s", v, text)
		}
	}
	// A change without a range replaces the whole text (full sync).
	text = readTestdata(t, "typo.skill.md")
	if err := c.conn.Notify(t.Context(), protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": 100},
		"contentChanges": []map[string]any{{"text": text}},
	}); err != nil {
		t.Fatal(err)
	}
	<-c.clock.scheduled
	ref, _ := c.open("full-final.skill.md", text)
	if observe(t, c, u) != observe(t, c, ref) {
		t.Fatal("a whole-text change did not replace the document")
	}
}

// clampToRunes moves a UTF-16 index off the second half of a surrogate
// pair, as an editor never splits a character.
func clampToRunes(units []uint16, i int) int {
	if i > 0 && i < len(units) && units[i] >= 0xDC00 && units[i] <= 0xDFFF {
		return i - 1
	}
	return i
}

// unitPos converts a UTF-16 index of the whole text to a position.
func unitPos(units []uint16, i int) protocol.Position {
	var line, char uint32
	for k := 0; k < i; k++ {
		switch {
		case units[k] == '\n', units[k] == '\r' && (k+1 >= len(units) || units[k+1] != '\n'):
			line, char = line+1, 0
		default:
			char++
		}
	}
	return pos(line, char)
}

// TestFormatting: a canonical file gets no edits, a messy one gets edits
// that produce exactly `reelier fmt`'s output, and a file that does not
// parse gets none.
func TestFormatting(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	cases := []struct {
		file  string
		edits bool
	}{
		{"bookings.skill.md", false},
		{"messy.skill.md", true},
		{"broken.skill.md", false},
		{"crlf", true},
		{"big", true},
	}
	for _, tc := range cases {
		text := ""
		switch tc.file {
		case "crlf":
			text = strings.ReplaceAll(readTestdata(t, "messy.skill.md"), "\n", "\r\n")
		case "big":
			text = strings.Replace(string(skillgen.Skill(300)), "### Step 150 — ", "### Step 150 - ", 1)
			text = strings.Replace(text, "- assert: status == 200\n", "- assert: status==200\n", 7)
		default:
			text = readTestdata(t, tc.file)
		}
		u, _ := c.open(tc.file+".skill.md", text)
		var edits []protocol.TextEdit
		if err := c.call(protocol.MethodTextDocumentFormatting, &protocol.DocumentFormattingParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &edits); err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if !tc.edits {
			if len(edits) != 0 {
				t.Errorf("%s: want no edits, got %v", tc.file, edits)
			}
			continue
		}
		skill, _ := grammar.Parse("", []byte(text))
		if got, want := applyEdits(text, edits), string(format.Source(skill)); got != want {
			t.Errorf("%s: edits give\n%s\nwant\n%s", tc.file, got, want)
		}
	}
}

// applyEdits applies non-overlapping protocol edits to text, as a client.
func applyEdits(text string, edits []protocol.TextEdit) string {
	units := utf16Units(text)
	offset := func(p protocol.Position) int {
		var line, char uint32
		for k := range units {
			if line == p.Line && char == p.Character {
				return k
			}
			if units[k] == '\n' {
				line, char = line+1, 0
			} else if line == p.Line {
				char++
			}
		}
		return len(units)
	}
	for i := len(edits) - 1; i >= 0; i-- { // edits come in document order
		a, b := offset(edits[i].Range.Start), offset(edits[i].Range.End)
		units = append(append(append([]uint16(nil), units[:a]...), utf16Units(edits[i].NewText)...), units[b:]...)
	}
	return utf16String(units)
}

// TestOnlySkillsGetDiagnostics: a Markdown file that is not a skill, as a
// generic client attached to every Markdown file sends, gets an empty
// diagnostics list; so does a SKILL.md with no Reelier step (an ordinary
// Agent Skill), while a SKILL.md with a step is checked.
func TestOnlySkillsGetDiagnostics(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	if _, p := c.open("README.md", "# Just notes\n"); len(p.Diagnostics) != 0 {
		t.Errorf("README.md: %v", p.Diagnostics)
	}
	if _, p := c.open("notes/SKILL.md", "---\nname: notes\n---\n\n# Instructions for an agent\n"); len(p.Diagnostics) != 0 {
		t.Errorf("an ordinary Agent Skill got diagnostics: %v", p.Diagnostics)
	}
	if _, p := c.open("fetch/SKILL.md", "---\nname: fetch\ndescription: x\n---\n\n### Step 1 — Fetch\n- intent: Fetch\n"); len(p.Diagnostics) == 0 {
		t.Error("a Reelier SKILL.md with missing fields got no diagnostics")
	}
}
