package lsp_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/lsp"
	"github.com/reelier/reelier/testkit/testutil"
	"go.lsp.dev/protocol"
)

// Every table below is {file, position, expected}; every request goes
// over JSON-RPC to a real server. Positions are 0-based lines and UTF-16
// columns: on line 22 of bookings.skill.md two emoji (a surrogate pair
// each) and an em dash come before the hole, so a byte/rune confusion
// anywhere in the server misses it.

func TestHover(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	cases := []struct {
		file string
		at   protocol.Position
		want []string // substrings of the hover text; none means no hover
	}{
		{"bookings.skill.md", pos(22, 41), []string{"`{{booking_id}}` — bound by step 1 (line 18)", "booking_id = json.bookings.0.id"}},
		{"bookings.skill.md", pos(22, 39), []string{"bound by step 1"}},
		{"bookings.skill.md", pos(30, 62), []string{"`{{guest}}` — bound by step 2 (line 26)", "guest = json.guest.email"}},
		{"bookings.skill.md", pos(17, 10), []string{"**bind** `booking_id = json.bookings.0.id`", "Read by:\n- step 2, line 23\n- step 2, line 23\n- step 3, line 31"}},
		{"bookings.skill.md", pos(24, 30), []string{"regular expression `/^[^@]+@[^@]+$/`"}},
		{"bookings.skill.md", pos(14, 12), []string{"Holds when the tool's status is 200."}},
		{"bookings.skill.md", pos(16, 22), []string{"`json.bookings` is an array or a string whose length is ≥ 1"}},
		{"bookings.skill.md", pos(31, 20), []string{"`json.cancelled` is exactly `true`"}},
		{"bookings.skill.md", pos(32, 12), []string{"**effect** `destructive`", "only with `--yes`", "never re-executes"}},
		{"bookings.skill.md", pos(18, 12), []string{"A replay always runs this step."}},
		{"bookings.skill.md", pos(18, 3), []string{"**effect** (required, exactly one)"}},
		{"bookings.skill.md", pos(13, 36), []string{"7 days before the run's date"}},
		{"bookings.skill.md", pos(13, 58), []string{"`{{today}}` — the run's date in UTC"}},
		{"bookings.skill.md", pos(13, 14), []string{"**tool** `list_bookings`"}},
		{"bookings.skill.md", pos(11, 5), []string{"**Step 1 — List this week's bookings**", "Fetch every booking"}},
		{"typo.skill.md", pos(14, 63), []string{"`{{orderid}}` is not bound by any earlier step", "--var orderid=…"}},
		{"inputs.skill.md", pos(11, 33), []string{"`{{owner}}` — an input, documented on line 8:", "> Inputs: `{{owner}}`, `{{repo}}` — the repository", "`REELIER_VAR_owner`", "`--var owner=…`"}},
		{"inputs.skill.md", pos(18, 55), []string{"`{{branch}}` — bound by step 1 (line 14)"}},
		{"inputs.skill.md", pos(18, 78), []string{"`{{tokn}}` is not bound by any earlier step"}},
		{"inputs-meta.skill.md", pos(11, 33), []string{"`{{owner}}` — an input, documented on line 5:", "> reelier-inputs: \"{{owner}} the account, {{repo}} its repository\""}},
		{"tools-meta.skill.md", pos(5, 5), []string{"**reelier-tools**: one line per MCP tool", "`--ignore-tool-drift`"}},
		{"tools-meta.skill.md", pos(6, 10), []string{"**tool** `search_nodes`", "- `query`: `string`, required", "- `limit`: `integer`, optional", "Input schema digest `1a2b3c4d`; output schema digest `89abcdef`", "Annotation hints: `readOnly`"}},
		{"tools-meta.skill.md", pos(7, 6), []string{"This `reelier-tools` line does not read: column 17: in= wants 8 hex digits"}},
		{"tools-meta.skill.md", pos(4, 4), []string{"**reelier-timeout**"}},
		{"tools-meta.skill.md", pos(1, 2), nil},
		{"select.skill.md", pos(10, 11), []string{"**count(…)** — a selection's pick", "how many elements are kept"}},
		{"select.skill.md", pos(12, 71), []string{"**as date**", "RFC 3339"}},
		{"select.skill.md", pos(10, 55), []string{"`{{customer}}` — an input, documented on line 6"}},
		{"select.skill.md", pos(10, 40), []string{"Holds when the value is = `1`.", "the elements of the array at `json.entities`, keeping those where `name` == `\"{{customer}}\"`", "`count` returns how many elements are kept"}},
		{"select.skill.md", pos(11, 30), []string{"**bind** `lead = only(", "Binds `{{lead}}` to selecting from the elements of the array at `json.entities`", "`only` returns the one element kept", "Then `.id` is read in the element picked.", "Read by:\n- step 2, line 18"}},
		{"select.skill.md", pos(12, 30), []string{"the body's lines that `/^(?<file>\\S+)\\s+(?<when>\\S+)$/` matches", "ordered by `when` as date"}},
		{"select.skill.md", pos(18, 12), []string{"**last(…)**", "with `by`, the highest"}},
		{"select.skill.md", pos(18, 40), []string{"**as version**"}},
		{"approvals.skill.md", pos(9, 5), []string{"**Step 1 — Write**", "**Approved** (`sha256:eb0e67d45c8d…`)"}},
		{"approvals.skill.md", pos(21, 5), []string{"**Step 3 — Delete**", "**Approval stale**: its argument template changed after it was approved"}},
		{"approvals.skill.md", pos(27, 5), []string{"**Not approved**", "`reelier approve FILE --step 4`"}},
		{"approvals.skill.md", pos(4, 4), []string{"**reelier-approvals**: one line per approved step"}},
		{"bookings.skill.md", pos(0, 0), nil},
		{"bookings.skill.md", pos(12, 15), nil},
		{"bookings.skill.md", pos(9999, 0), nil},
	}
	uris := map[string]protocol.DocumentURI{}
	for _, tc := range cases {
		u, ok := uris[tc.file]
		if !ok {
			u = c.openFile(tc.file)
			uris[tc.file] = u
		}
		var h *protocol.Hover
		if err := c.call(protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: docPos(u, tc.at)}, &h); err != nil {
			t.Fatalf("%s %v: %v", tc.file, tc.at, err)
		}
		if tc.want == nil {
			if h != nil {
				t.Errorf("%s %v: want no hover, got %q", tc.file, tc.at, h.Contents.Value)
			}
			continue
		}
		if h == nil {
			t.Errorf("%s %v: no hover, want %q", tc.file, tc.at, tc.want)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(h.Contents.Value, w) {
				t.Errorf("%s %v: hover %q lacks %q", tc.file, tc.at, h.Contents.Value, w)
			}
		}
	}
}

func TestDefinition(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	cases := []struct {
		file string
		at   protocol.Position
		want []protocol.Range
	}{
		{"bookings.skill.md", pos(22, 41), []protocol.Range{rng(17, 8, 17, 18)}},
		{"bookings.skill.md", pos(22, 67), []protocol.Range{rng(17, 8, 17, 18)}},
		{"bookings.skill.md", pos(30, 62), []protocol.Range{rng(25, 8, 25, 13)}},
		{"bookings.skill.md", pos(17, 9), []protocol.Range{rng(17, 8, 17, 18)}},
		{"bookings.skill.md", pos(29, 36), nil}, // {{guest}} in an intent is prose, not a hole
		{"bookings.skill.md", pos(13, 36), nil}, // {{today-7d}} is computed
		{"typo.skill.md", pos(14, 63), nil},
		{"inputs.skill.md", pos(11, 33), []protocol.Range{rng(7, 11, 7, 16)}}, // an input: its documentation
		{"inputs.skill.md", pos(18, 35), []protocol.Range{rng(7, 11, 7, 16)}},
		{"inputs.skill.md", pos(11, 53), []protocol.Range{rng(7, 24, 7, 28)}},
		{"inputs.skill.md", pos(18, 56), []protocol.Range{rng(13, 8, 13, 14)}},     // bound, not an input
		{"inputs.skill.md", pos(18, 78), nil},                                      // neither bound nor documented
		{"inputs-meta.skill.md", pos(11, 53), []protocol.Range{rng(4, 44, 4, 48)}}, // documented in the frontmatter
		{"bookings.skill.md", pos(500, 1), nil},
	}
	for _, tc := range cases {
		u := c.openFile(tc.file)
		var locs []protocol.Location
		if err := c.call(protocol.MethodTextDocumentDefinition, &protocol.DefinitionParams{TextDocumentPositionParams: docPos(u, tc.at)}, &locs); err != nil {
			t.Fatalf("%s %v: %v", tc.file, tc.at, err)
		}
		if got := ranges(locs, u); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s %v: definition %v, want %v", tc.file, tc.at, got, tc.want)
		}
	}
}

func TestReferences(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	bookingID := []protocol.Range{rng(17, 8, 17, 18), rng(22, 41, 22, 51), rng(22, 65, 22, 75), rng(30, 35, 30, 45)}
	cases := []struct {
		file string
		at   protocol.Position
		decl bool
		want []protocol.Range
	}{
		{"bookings.skill.md", pos(17, 9), true, bookingID},
		{"bookings.skill.md", pos(22, 41), true, bookingID},
		{"bookings.skill.md", pos(22, 41), false, bookingID[1:]},
		{"bookings.skill.md", pos(25, 9), true, []protocol.Range{rng(25, 8, 25, 13), rng(30, 62, 30, 67)}},
		{"typo.skill.md", pos(14, 63), true, []protocol.Range{rng(14, 63, 14, 70)}},
		{"typo.skill.md", pos(9, 10), true, []protocol.Range{rng(9, 8, 9, 16)}},
		{"bookings.skill.md", pos(1, 1), true, nil},
		// Holes in selections' conditions read the same variables.
		{"select.skill.md", pos(10, 50), true, []protocol.Range{rng(9, 64, 9, 72), rng(10, 47, 10, 55), rng(11, 82, 11, 90)}},
	}
	for _, tc := range cases {
		u := c.openFile(tc.file)
		var locs []protocol.Location
		params := &protocol.ReferenceParams{TextDocumentPositionParams: docPos(u, tc.at), Context: protocol.ReferenceContext{IncludeDeclaration: tc.decl}}
		if err := c.call(protocol.MethodTextDocumentReferences, params, &locs); err != nil {
			t.Fatalf("%s %v: %v", tc.file, tc.at, err)
		}
		if got := ranges(locs, u); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s %v: references %v, want %v", tc.file, tc.at, got, tc.want)
		}
	}
}

func TestRename(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	cases := []struct {
		file    string
		at      protocol.Position
		newName string
		want    []protocol.Range // edited ranges; nil with wantErr
		wantErr string
	}{
		{"bookings.skill.md", pos(22, 41), "bid", []protocol.Range{rng(17, 8, 17, 18), rng(22, 41, 22, 51), rng(22, 65, 22, 75), rng(30, 35, 30, 45)}, ""},
		{"bookings.skill.md", pos(25, 9), "email", []protocol.Range{rng(25, 8, 25, 13), rng(30, 62, 30, 67)}, ""},
		{"bookings.skill.md", pos(25, 9), "booking_id", nil, `"booking_id" is already bound in step 1`},
		{"bookings.skill.md", pos(25, 9), "today", nil, `"today" is reserved`},
		{"bookings.skill.md", pos(25, 9), "2x", nil, "not a variable name"},
		{"bookings.skill.md", pos(12, 4), "x", nil, "only a bind name or a {{variable}} can be renamed"},
	}
	for _, tc := range cases {
		u := c.openFile(tc.file)
		var edit *protocol.WorkspaceEdit
		err := c.call(protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: docPos(u, tc.at), NewName: tc.newName}, &edit)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s %v → %q: error %v, want %q", tc.file, tc.at, tc.newName, err, tc.wantErr)
			}
			if rpcCode(err) != lsp.RequestFailed {
				t.Errorf("%s %v → %q: error code %d, want RequestFailed (-32803)", tc.file, tc.at, tc.newName, rpcCode(err))
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s %v: %v", tc.file, tc.at, err)
		}
		var got []protocol.Range
		for _, e := range edit.Changes[u] {
			if e.NewText != tc.newName {
				t.Errorf("edit text %q, want %q", e.NewText, tc.newName)
			}
			got = append(got, e.Range)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s %v: rename edits %v, want %v", tc.file, tc.at, got, tc.want)
		}
	}
	u := c.openFile("bookings.skill.md")
	var r *protocol.Range
	if err := c.call(protocol.MethodTextDocumentPrepareRename, &protocol.PrepareRenameParams{TextDocumentPositionParams: docPos(u, pos(22, 41))}, &r); err != nil || r == nil || *r != rng(22, 41, 22, 51) {
		t.Errorf("prepareRename = %v, %v; want %v", r, err, rng(22, 41, 22, 51))
	}
	if err := c.call(protocol.MethodTextDocumentPrepareRename, &protocol.PrepareRenameParams{TextDocumentPositionParams: docPos(u, pos(13, 36))}, &r); rpcCode(err) != lsp.RequestFailed {
		t.Errorf("prepareRename on {{today-7d}} = %v (code %d), want a RequestFailed (-32803) refusal", err, rpcCode(err))
	}
}

// TestCompletion records, for each cursor position, what is offered: the
// label, what replaces which range, and the snippet flag.
func TestCompletion(t *testing.T) {
	c := newClient(t, workspaceRoot(t))
	cases := []struct {
		file string
		at   protocol.Position
		what string
	}{
		{"complete.skill.md", pos(15, 61), "after {{ in an action"},
		{"complete.skill.md", pos(16, 10), "empty assert"},
		{"complete.skill.md", pos(17, 21), "assert after a json path"},
		{"complete.skill.md", pos(18, 24), "assert after is"},
		{"complete.skill.md", pos(19, 12), "bind after ="},
		{"complete.skill.md", pos(20, 10), "empty effect"},
		{"complete.skill.md", pos(21, 2), "after a dash"},
		{"complete.skill.md", pos(22, 10), "tool of an action"},
		{"complete.skill.md", pos(23, 0), "blank line in a step"},
		{"complete.skill.md", pos(24, 2), "heading marks"},
		{"complete.skill.md", pos(1, 3), "frontmatter"},
		{"bookings.skill.md", pos(22, 43), "inside a closed hole, after emoji"},
		{"complete.skill.md", pos(99, 0), "past the end"},
		{"inputs.skill.md", pos(18, 55), "in a hole: binds first, then documented inputs"},
		{"inputs-meta.skill.md", pos(11, 33), "in a hole: inputs documented in the frontmatter"},
		{"complete-select.skill.md", pos(15, 16), "selection: the source after ("},
		{"complete-select.skill.md", pos(16, 27), "selection: clauses after the source"},
		{"complete-select.skill.md", pos(17, 44), "selection: a hole in a condition's string"},
		{"complete-select.skill.md", pos(18, 41), "selection: orderings after as"},
		{"complete-select.skill.md", pos(19, 43), "selection: join's clauses after a condition"},
		{"complete-select.skill.md", pos(20, 47), "selection: nothing inside a string"},
		{"complete-select.skill.md", pos(21, 12), "bind after =: forms and picks"},
		{"complete-select.skill.md", pos(22, 8), "empty bind: forms, the selection one as a snippet"},
	}
	var b strings.Builder
	for _, tc := range cases {
		u := c.openFile(tc.file)
		var list *protocol.CompletionList
		if err := c.call(protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{TextDocumentPositionParams: docPos(u, tc.at)}, &list); err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		fmt.Fprintf(&b, "## %s (%s %d:%d)\n", tc.what, tc.file, tc.at.Line, tc.at.Character)
		if list == nil {
			b.WriteString("null\n")
			continue
		}
		for _, it := range list.Items {
			snippet := ""
			if it.InsertTextFormat == protocol.InsertTextFormatSnippet {
				snippet = " (snippet)"
			}
			r := it.TextEdit.Range
			fmt.Fprintf(&b, "%-45s %d:%d-%d:%d %q%s [filter %q]\n", it.Label, r.Start.Line, r.Start.Character, r.End.Line, r.End.Character, it.TextEdit.NewText, snippet, it.FilterText)
		}
	}
	testutil.Golden(t).Assert(t, "completion", []byte(b.String()))
}

func TestSymbols(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	var b strings.Builder
	for _, file := range []string{"bookings.skill.md", "broken.skill.md"} {
		u := c.openFile(file)
		var syms []protocol.DocumentSymbol
		if err := c.call(protocol.MethodTextDocumentDocumentSymbol, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &syms); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "## %s\n", file)
		writeSymbols(&b, syms, "")
	}
	testutil.Golden(t).Assert(t, "symbols", []byte(b.String()))
}

func writeSymbols(b *strings.Builder, syms []protocol.DocumentSymbol, indent string) {
	for _, s := range syms {
		fmt.Fprintf(b, "%s%s %q %q %s sel %s\n", indent, s.Kind, s.Name, s.Detail, showRange(s.Range), showRange(s.SelectionRange))
		writeSymbols(b, s.Children, indent+"  ")
	}
}

func TestFolding(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	cases := []struct {
		file string
		want string
	}{
		{"bookings.skill.md", "[0-3 11-18 20-26 28-32]"},
		{"broken.skill.md", "[0-3 5-10 12-16]"},
	}
	for _, tc := range cases {
		u := c.openFile(tc.file)
		var folds []protocol.FoldingRange
		if err := c.call(protocol.MethodTextDocumentFoldingRange, &protocol.FoldingRangeParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}}, &folds); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range folds {
			got = append(got, fmt.Sprintf("%d-%d", f.StartLine, f.EndLine))
		}
		if s := "[" + strings.Join(got, " ") + "]"; s != tc.want {
			t.Errorf("%s: folds %s, want %s", tc.file, s, tc.want)
		}
	}
}

// TestSemanticTokens decodes the relative token stream back to absolute
// positions and the text each token covers.
func TestSemanticTokens(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	for file, golden := range map[string]string{"bookings.skill.md": "tokens", "select.skill.md": "tokens-select"} {
		semanticTokens(t, c, file, golden)
	}
}

func semanticTokens(t *testing.T, c *client, file, golden string) {
	u := c.openFile(file)
	var toks *protocol.SemanticTokens
	if err := c.call(protocol.MethodSemanticTokensFull, &protocol.SemanticTokensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &toks); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(readTestdata(t, file), "\n")
	legend := lsp.Legend()
	var b strings.Builder
	var line, char uint32
	for i := 0; i+5 <= len(toks.Data); i += 5 {
		d := toks.Data[i : i+5]
		if d[0] > 0 {
			char = 0
		}
		line, char = line+d[0], char+d[1]
		units := utf16Units(lines[line])
		var mods []string
		for bit, m := range legend.TokenModifiers {
			if d[4]&(1<<bit) != 0 {
				mods = append(mods, string(m))
			}
		}
		fmt.Fprintf(&b, "%d:%d %-10s %-30q %s\n", line, char, legend.TokenTypes[d[3]], utf16String(units[char:char+d[2]]), strings.Join(mods, ","))
	}
	testutil.Golden(t).Assert(t, golden, []byte(b.String()))
}

func TestCodeActions(t *testing.T) {
	c := newClient(t, testdataRoot(t))
	cases := []struct {
		file string
		at   protocol.Range
		only []protocol.CodeActionKind
		what string
	}{
		{"broken.skill.md", rng(8, 3, 8, 3), nil, "misspelt key"},
		{"broken.skill.md", rng(12, 9, 12, 9), nil, "step numbered 3 after 1"},
		{"typo.skill.md", rng(14, 62, 14, 62), nil, "misspelt variable (a lint fix)"},
		{"typo.skill.md", rng(14, 62, 14, 62), []protocol.CodeActionKind{protocol.RefactorRewrite}, "only refactor.rewrite"},
		{"broken-select.skill.md", rng(8, 15, 8, 15), nil, "misspelt pick"},
		{"broken-select.skill.md", rng(9, 35, 9, 35), nil, "misspelt ordering"},
		{"bookings.skill.md", rng(31, 5, 31, 5), nil, "step without a status assert"},
		{"bookings.skill.md", rng(14, 5, 14, 5), nil, "nothing to do"},
		{"bookings.skill.md", rng(400, 0, 400, 0), nil, "out of range"},
	}
	var b strings.Builder
	for _, tc := range cases {
		u := c.openFile(tc.file)
		var actions []protocol.CodeAction
		params := &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: tc.at, Context: protocol.CodeActionContext{Only: tc.only}}
		if err := c.call(protocol.MethodTextDocumentCodeAction, params, &actions); err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		fmt.Fprintf(&b, "## %s (%s %s)\n", tc.what, tc.file, showRange(tc.at))
		for _, a := range actions {
			var codes []string
			for _, d := range a.Diagnostics {
				codes = append(codes, fmt.Sprint(d.Code))
			}
			fmt.Fprintf(&b, "%s %q preferred=%v fixes=%v\n", a.Kind, a.Title, a.IsPreferred, codes)
			for _, e := range a.Edit.Changes[u] {
				fmt.Fprintf(&b, "  %s %q\n", showRange(e.Range), e.NewText)
			}
		}
	}
	testutil.Golden(t).Assert(t, "actions", []byte(b.String()))
}

func ranges(locs []protocol.Location, u protocol.DocumentURI) []protocol.Range {
	var out []protocol.Range
	for _, l := range locs {
		if l.URI == u {
			out = append(out, l.Range)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Start, out[j].Start
		return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
	})
	return out
}

func showRange(r protocol.Range) string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
}
