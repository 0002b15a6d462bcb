package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reelier/reelier/lang/grammar"
	"go.lsp.dev/protocol"
)

// FuzzFeatures feeds any text, any position and any edit to every feature,
// before and after the edit (so through the incremental re-parse too): no
// panic, every range returned lies inside the document, and formatting
// edits always give text that parses.
func FuzzFeatures(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.skill.md")
	for i, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src), uint16(5+i*3), uint16(12), "x")
		f.Add(string(src), uint16(13+i), uint16(40), "{{")
	}
	f.Add("### Step 1 — 🙂\n- action: t {\"a\": \"{{b}}\"}", uint16(1), uint16(22), "\n## x\n")
	f.Fuzz(func(t *testing.T, text string, line, char uint16, edit string) {
		d := NewDocument("file:///fuzz.skill.md", 1, text)
		p := protocol.Position{Line: uint32(line) % uint32(d.Mapper.LineCount()+1), Character: uint32(char)}
		checkFeatures(t, d, p)
		next, err := d.apply(2, []change{{rng: protocol.Range{Start: p, End: p}, text: edit}})
		if err != nil {
			return // the position is past the end: the change is refused
		}
		checkFeatures(t, next, p)
	})
}

func checkFeatures(t *testing.T, d *Document, p protocol.Position) {
	lines := uint32(d.Mapper.LineCount())
	in := func(what string, r protocol.Range) {
		if r.Start.Line >= lines || r.End.Line >= lines || r.End.Line < r.Start.Line {
			t.Fatalf("%s: range %v outside a document of %d lines", what, r, lines)
		}
	}
	for _, x := range Diagnostics(d) {
		in("diagnostic", x.Range)
	}
	if h := Hover(d, p); h != nil {
		in("hover", *h.Range)
	}
	if l := Completion(d, p, func() []string { return []string{"tool"} }); l != nil {
		for _, it := range l.Items {
			in("completion", it.TextEdit.Range)
		}
	}
	for _, l := range Definition(d, p) {
		in("definition", l.Range)
	}
	for _, l := range References(d, p, true) {
		in("references", l.Range)
	}
	if r, err := PrepareRename(d, p); err == nil {
		in("prepareRename", *r)
	}
	if e, err := Rename(d, p, "renamed_var"); err == nil {
		for _, x := range e.Changes[d.URI] {
			in("rename", x.Range)
		}
	}
	for _, s := range Symbols(d) {
		in("symbol", s.Range)
	}
	for _, a := range CodeActions(d, protocol.Range{Start: p, End: p}, nil) {
		for _, x := range a.Edit.Changes[d.URI] {
			in("code action", x.Range)
		}
	}
	for _, fr := range Folding(d) {
		if fr.EndLine >= lines {
			t.Fatalf("fold %v past the end", fr)
		}
	}
	toks := SemanticTokens(d).Data
	var line uint32
	for i := 0; i+5 <= len(toks); i += 5 {
		if line += toks[i]; line >= lines || toks[i+3] >= uint32(len(tokenTypes)) {
			t.Fatalf("token %v outside the document or the legend", toks[i:i+5])
		}
	}
	edits, err := Format(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(edits) > 0 {
		out := applyProtocolEdits(d, edits)
		if _, diags := grammar.Parse("", []byte(out)); diags.HasErrors() {
			t.Fatalf("formatting gave text that does not parse: %v\n%s", diags, out)
		}
	}
}

// applyProtocolEdits applies edits (in document order, not overlapping).
func applyProtocolEdits(d *Document, edits []protocol.TextEdit) string {
	text := d.Text()
	out, at := "", 0
	for _, e := range edits {
		s, _ := d.Mapper.TextOffset(e.Range.Start)
		end, _ := d.Mapper.TextOffset(e.Range.End)
		out += text[at:s] + e.NewText
		at = end
	}
	return out + text[at:]
}
