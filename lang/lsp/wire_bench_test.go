package lsp_test

import (
	"strings"
	"testing"

	"github.com/reelier/reelier/testkit/skillgen"
	"go.lsp.dev/protocol"
)

// The same budgets as bench_test.go, measured from the client's side of a
// JSON-RPC connection: the time includes encoding, the pipe and decoding
// (the 1,000-step skill has some 800 drift_index warnings to publish).

// BenchmarkWireDiagnosticsAfterEdit1000: didChange of one character, the
// debounce timer fires, the client receives publishDiagnostics.
func BenchmarkWireDiagnosticsAfterEdit1000(b *testing.B) {
	c := newClient(b, testdataRoot(b))
	text := string(skillgen.Skill(1000))
	u, _ := c.open("bench.skill.md", text)
	line := uint32(strings.Count(text[:strings.Index(text, "- intent: Fetch orders page 500 ")], "\n"))
	v := int32(1)
	b.ReportAllocs()
	for b.Loop() {
		v++
		ins, at := "x", uint32(12)
		if v%2 == 1 { // delete it again, so the document stays the same size
			ins = ""
		}
		end := at
		if ins == "" {
			end++
		}
		c.notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{{Range: rng(line, at, line, end), Text: ins}},
		})
		<-c.clock.scheduled
		c.clock.fire()
		if p := c.nextDiagnostics(); p.Version != uint32(v) {
			b.Fatalf("version %d published, want %d", p.Version, v)
		}
	}
}

// BenchmarkWireCompletion1000: a completion request inside a `{{` hole of
// the last step (999 binds in scope) and its reply.
func BenchmarkWireCompletion1000(b *testing.B) {
	c := newClient(b, testdataRoot(b))
	text := string(skillgen.Skill(1000))
	u, _ := c.open("bench.skill.md", text)
	i := strings.Index(text, "{{cursor999}}")
	line := uint32(strings.Count(text[:i], "\n"))
	col := uint32(i-strings.LastIndex(text[:i], "\n")-1) + 4
	params := &protocol.CompletionParams{TextDocumentPositionParams: docPos(u, pos(line, col))}
	b.ReportAllocs()
	for b.Loop() {
		var list protocol.CompletionList
		if err := c.call(protocol.MethodTextDocumentCompletion, params, &list); err != nil || len(list.Items) != 1002 {
			b.Fatal(err, len(list.Items))
		}
	}
}

// BenchmarkWireFormatting1000: a formatting request for a document whose
// step 500 is not canonical, and its reply.
func BenchmarkWireFormatting1000(b *testing.B) {
	c := newClient(b, testdataRoot(b))
	text := strings.Replace(string(skillgen.Skill(1000)), "### Step 500 — ", "### Step 500 - ", 1)
	u, _ := c.open("bench.skill.md", text)
	params := &protocol.DocumentFormattingParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}
	b.ReportAllocs()
	for b.Loop() {
		var edits []protocol.TextEdit
		if err := c.call(protocol.MethodTextDocumentFormatting, params, &edits); err != nil || len(edits) != 1 {
			b.Fatal(err, edits)
		}
	}
}
