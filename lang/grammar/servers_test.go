package grammar_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/testkit/testutil"
)

// serversDoc wraps preamble text into a whole skill; the preamble starts
// on line 5.
func serversDoc(preamble string) []byte {
	return []byte("---\nname: s\ndescription: d\n---\n" + preamble + "### Step 1 — T\n- intent: i\n- action: create_entities {}\n- effect: read\n")
}

// server is a server as the tests write it: name, command, tools.
type server struct {
	name, command string
	tools         []string
}

func servers(skill *ast.Skill) []server {
	var out []server
	for _, sv := range skill.Servers {
		s := server{name: sv.Name, command: sv.Command}
		for _, t := range sv.Tools {
			s.tools = append(s.tools, t.Name)
		}
		out = append(out, s)
	}
	return out
}

func TestServersSection(t *testing.T) {
	tests := []struct {
		name     string
		preamble string
		want     []server
	}{
		{"none", "\n# Title\n\nText.\n\n", nil},
		{"one server", "\n## Servers\n\n- `memory`: `npx -y @modelcontextprotocol/server-memory` (tools: create_entities, search_nodes)\n\n",
			[]server{{"memory", "npx -y @modelcontextprotocol/server-memory", []string{"create_entities", "search_nodes"}}}},
		{"two servers, order kept", "## Servers\n- `b`: `srv -name b` (tools: 1_echo)\n- `a`: `srv` (tools: echo)\n",
			[]server{{"b", "srv -name b", []string{"1_echo"}}, {"a", "srv", []string{"echo"}}}},
		{"no tool list", "## Servers\n\n- `crm`: `crm-mcp --region eu`\n", []server{{"crm", "crm-mcp --region eu", nil}}},
		{"empty tool list", "## Servers\n\n- `crm`: `crm-mcp` (tools: )\n", []server{{"crm", "crm-mcp", nil}}},
		{"bare name, tight spacing", "## Servers\n-crm:`crm-mcp`(tools:a,b)\n", []server{{"crm", "crm-mcp", []string{"a", "b"}}}},
		{"other list markers", "## Servers\n* `a`: `x`\n+ `b`: `y` (tools: t)\n", []server{{"a", "x", nil}, {"b", "y", []string{"t"}}}},
		{"double backticks keep a backtick", "## Servers\n- `sh`: `` sh -c 'echo `date`' `` (tools: `odd name`, `a,b`)\n",
			[]server{{"sh", "sh -c 'echo `date`'", []string{"odd name", "a,b"}}}},
		{"case-insensitive heading", "## servers\n- `a`: `x`\n", []server{{"a", "x", nil}}},
		{"prose, blank lines and breaks are kept, not read", "## Servers\n\nStarted by `reelier run`.\n\n- `a`: `x`\n\n---\n\n  Indented prose.\n",
			[]server{{"a", "x", nil}}},
		{"a fenced block is not read", "## Servers\n\n```\n- not a server\n```\n- `a`: `x`\n", []server{{"a", "x", nil}}},
		{"the section ends at the next heading", "## Servers\n- `a`: `x`\n\n### Notes\n- not a server: at all\n\n## Steps\n\n",
			[]server{{"a", "x", nil}}},
		{"a heading in a code block does not open it", "```\n## Servers\n- junk\n```\n", nil},
		{"a level-3 heading does not open it", "### Servers\n- junk\n", nil},
		{"a setext heading does not open it", "Servers\n-------\n- junk\n", nil},
		{"trailing blanks", "## Servers\n- `a`: `x` (tools: t)   \n", []server{{"a", "x", []string{"t"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := serversDoc(tt.preamble)
			skill, diags := grammar.Parse("s.skill.md", src)
			if len(diags) > 0 {
				t.Fatalf("diagnostics:\n%v", diags)
			}
			if got := servers(skill); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("servers = %v\nwant %v", got, tt.want)
			}
			if out := format.Source(skill); string(out) != string(src) {
				t.Errorf("fmt changed the file:\n%s", format.Diff("s", src, out))
			}
		})
	}
}

// TestServersPositions: every range covers its text in the source.
func TestServersPositions(t *testing.T) {
	src := serversDoc("\n## Servers\n\n  - `memory`: `` npx `x` `` (tools: create_entities, `b c`)\n")
	skill, diags := grammar.Parse("s.skill.md", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	sv := skill.Servers[0]
	at := func(r ast.Range) string { return string(src[r.Start.Offset:r.End.Offset]) }
	checks := []struct{ got, want string }{
		{at(sv.Range), "- `memory`: `` npx `x` `` (tools: create_entities, `b c`)"},
		{at(sv.NameRange), "memory"},
		{at(sv.CommandRange), "`` npx `x` ``"},
		{at(sv.Tools[0].Range), "create_entities"},
		{at(sv.Tools[1].Range), "b c"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("range covers %q, want %q", c.got, c.want)
		}
	}
	if sv.Range.Start.Line != 8 || sv.Range.Start.Column != 3 || sv.NameRange.Start.Column != 6 {
		t.Errorf("positions %v %v", sv.Range.Start, sv.NameRange.Start)
	}
	if skill.ServerOf("b c") != sv || skill.ServerOf("create_entities") != sv || skill.ServerOf("nope") != nil {
		t.Error("ServerOf")
	}
}

func TestServersRejections(t *testing.T) {
	tests := []struct {
		name     string
		preamble string
		want     string // the rendered diagnostics
	}{
		{"no colon", "## Servers\n- `a` `x`\n",
			"s.skill.md:6:7: error: Malformed server line, expected '- `name`: `command` (tools: a, b)': - `a` `x` [malformed_server]"},
		{"bare command", "## Servers\n- memory: npx -y server\n",
			"s.skill.md:6:11: error: Malformed server line, expected '- `name`: `command` (tools: a, b)': - memory: npx -y server [malformed_server]"},
		{"unclosed code span", "## Servers\n- `a`: `npx\n",
			"s.skill.md:6:8: error: Malformed server line, expected '- `name`: `command` (tools: a, b)': - `a`: `npx [malformed_server]"},
		{"empty name", "## Servers\n- : `x`\n",
			"s.skill.md:6:3: error: Malformed server line, expected '- `name`: `command` (tools: a, b)': - : `x` [malformed_server]"},
		{"text after the command", "## Servers\n- `a`: `x` tools a\n",
			"s.skill.md:6:12: error: Malformed server line, expected '- `name`: `command` (tools: a, b)': - `a`: `x` tools a [malformed_server]"},
		{"trailing comma", "## Servers\n- `a`: `x` (tools: a, )\n",
			"s.skill.md:6:23: error: Malformed server line, expected '- `name`: `command` (tools: a, b)': - `a`: `x` (tools: a, ) [malformed_server]"},
		{"unclosed tool list", "## Servers\n- `a`: `x` (tools: a b\n",
			"s.skill.md:6:22: error: Malformed server line, expected '- `name`: `command` (tools: a, b)': - `a`: `x` (tools: a b [malformed_server]"},
		{"text after the tool list", "## Servers\n- `a`: `x` (tools: a) b\n",
			"s.skill.md:6:23: error: Malformed server line, expected '- `name`: `command` (tools: a, b)': - `a`: `x` (tools: a) b [malformed_server]"},
		{"a list item that is not a server", "## Servers\n- see the README\n",
			"s.skill.md:6:7: error: Malformed server line, expected '- `name`: `command` (tools: a, b)': - see the README [malformed_server]"},
		{"empty command", "## Servers\n- `a`: ` ` (tools: t)\n",
			"s.skill.md:6:8: error: Server 'a' has an empty command [empty_server_command]"},
		{"duplicate server", "## Servers\n- `a`: `x`\n- `a`: `y`\n",
			"s.skill.md:7:4: error: Duplicate server 'a' — each server in the Servers section needs its own name [duplicate_server]"},
		{"duplicate section", "## Servers\n- `a`: `x`\n\n## Servers\n- `b`: `y`\n",
			"s.skill.md:8:1: error: Duplicate '## Servers' section — list every server in the first one [duplicate_servers_section]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := serversDoc(tt.preamble)
			_, diags := grammar.Parse("s.skill.md", src)
			checkRanges(t, src, diags)
			if got := diags.Error(); got != tt.want {
				t.Errorf("diagnostics:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestServersOnlyInPreamble: a Servers heading after the first step is
// ordinary Markdown.
func TestServersOnlyInPreamble(t *testing.T) {
	src := append(serversDoc(""), "\n## Servers\n\n- junk\n"...)
	skill, diags := grammar.Parse("s.skill.md", src)
	if len(diags) > 0 || skill.Servers != nil {
		t.Fatalf("servers %v, diagnostics %v", skill.Servers, diags)
	}
}

// TestServersReparse: an edit after the first step keeps the servers, and
// an edit in the section parses it again.
func TestServersReparse(t *testing.T) {
	old := serversDoc("## Servers\n- `a`: `x` (tools: t)\n\n")
	prev, prevDiags := grammar.Parse("s.skill.md", old)
	edits := [][]byte{
		append(append([]byte{}, old...), "\n### Step 2 — U\n- intent: j\n- action: t {}\n- effect: read\n"...),
		[]byte(strings.Replace(string(old), "`x`", "`y z`", 1)),
		[]byte(strings.Replace(string(old), "`x`", "x", 1)),
	}
	for _, cur := range edits {
		got, gotDiags := grammar.Reparse("s.skill.md", old, prev, prevDiags, cur)
		want, wantDiags := grammar.Parse("s.skill.md", cur)
		if fmt.Sprint(servers(got)) != fmt.Sprint(servers(want)) || gotDiags.Error() != wantDiags.Error() {
			t.Errorf("Reparse gives %v %v, Parse %v %v", servers(got), gotDiags, servers(want), wantDiags)
		}
		if d := testutil.DiffSkills(got, want); d != "" {
			t.Errorf("trees differ:\n%s", d)
		}
	}
}

// FuzzServerLine drives one line of a Servers section through the
// document parser: never a panic, every diagnostic inside the file, and
// an accepted line's ranges hold what the nodes say.
func FuzzServerLine(f *testing.F) {
	for _, s := range []string{
		"- `memory`: `npx -y @modelcontextprotocol/server-memory` (tools: create_entities, search_nodes)",
		"- `a`: `` x `y` `` (tools: `b c`, d)", "-a:`b`(tools:)", "- `a`: ` `", "* `a`: `b`", "- ``", "- `a`: `b` (tools: a,",
		"```", "---", "- a: b",
		"- `m`: `npx -y x\u0085  allow-writes: \"true\"`", "- `m`: `a\x1b[2K\rb`", "- m\u202e: `x` (tools: a\u2028b)",
		"- `api`: `https://x.test` (headers: `A: $B\u2029`)", "-\t`a`:\t`b\tc`",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") {
			return
		}
		src := serversDoc("## Servers\n" + line + "\n")
		skill, diags := grammar.Parse("", src)
		checkRanges(t, src, diags)
		for _, sv := range skill.Servers {
			if strings.TrimSpace(sv.Command) == "" || sv.Name == "" {
				t.Fatalf("accepted a server without a name or command: %+v", sv)
			}
			texts := []string{sv.Name, sv.Command}
			for _, tool := range sv.Tools {
				texts = append(texts, tool.Name)
			}
			for _, h := range sv.Headers {
				texts = append(texts, h.Text)
			}
			for _, x := range texts {
				if at, r := termtext.FirstForbidden(x); at >= 0 {
					t.Fatalf("accepted a server holding %s: %q", termtext.CodePoint(r), x)
				}
			}
			if got := string(src[sv.NameRange.Start.Offset:sv.NameRange.End.Offset]); got != sv.Name {
				t.Fatalf("name range covers %q, name is %q", got, sv.Name)
			}
			for _, tool := range sv.Tools {
				if got := string(src[tool.Range.Start.Offset:tool.Range.End.Offset]); got != tool.Name || tool.Name == "" {
					t.Fatalf("tool range covers %q, tool is %q", got, tool.Name)
				}
			}
		}
		if out := format.Source(skill); !diags.HasErrors() && string(out) != string(src) {
			t.Fatalf("fmt changed the file:\n%s", format.Diff("s", src, out))
		}
		// A list item holding a forbidden character is refused at it.
		item := strings.TrimLeft(line, " \t")
		if at, r := termtext.FirstForbidden(strings.TrimRight(item, " \t")); at >= 0 && item != "" && (item[0] == '-' || (item[0] == '*' || item[0] == '+') && (len(item) == 1 || item[1] == ' ' || item[1] == '\t')) && !strings.HasPrefix(item, "---") {
			if len(diags) == 0 || diags[0].Code != grammar.CodeServerControl || int(diags[0].Range.Start.Offset) != bytes.Index(src, []byte(item))+at {
				t.Fatalf("%q holds %s at %d, diagnostics %v", line, termtext.CodePoint(r), at, diags)
			}
		}
	})
}

// FuzzServersSection drives whole preambles holding a Servers section
// (headings, fences, breaks, several bullets) through the parser and the
// incremental parser: no panic, diagnostics inside the file; an accepted
// file's canonical form parses to the same tree and servers and formats
// to itself; fmt keeps the file but for the one step header it may
// respell; and an edit after the first step keeps the same servers.
func FuzzServersSection(f *testing.F) {
	for _, s := range []string{
		"## Servers\n\n- `a`: `x` (tools: t)\n- `b`: `y`\n\n## Steps\n\n",
		"## Servers\n```\n- x\n```\n- `a`: `x`\n## Servers\n- `a`: `y`\n",
		"Servers\n---\n- `a`: `x`\n", "# T\n\n## servers\n* a: `b`\n+ c: `d` (tools: e,f)\n---\n",
		// A preamble ending in blanks without a line end indents the
		// step header that follows it.
		" ", "## Servers\n- `a`: `x`\n\n   ", "## Servers\n- `a`: `x`\n  ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, preamble string) {
		src := serversDoc(preamble)
		skill, diags := grammar.Parse("", src)
		checkRanges(t, src, diags)
		if diags.HasErrors() {
			return
		}
		out := format.Source(skill)
		checkCanonical(t, skill, src, out)
		// A step header in the preamble makes steps the printer may
		// respell; otherwise the file is canonical already, but for the
		// header serversDoc adds: a preamble whose last line is blanks
		// indents it, and fmt prints a header unindented (SPEC §9).
		if want := unindentedDoc(preamble); !strings.Contains(preamble, "Step") && string(out) != string(want) {
			t.Fatalf("fmt gives:\n%s", format.Diff("want", want, out))
		}
		edited := append(append([]byte{}, src...), "\nMore text.\n"...)
		got, _ := grammar.Reparse("", src, skill, diags, edited)
		want, _ := grammar.Parse("", edited)
		if fmt.Sprint(servers(got)) != fmt.Sprint(servers(want)) {
			t.Fatalf("Reparse gives servers %v, Parse %v", servers(got), servers(want))
		}
	})
}

// unindentedDoc is serversDoc(preamble) in canonical form when preamble
// holds no step header: the blanks (at most three) that end preamble
// without a line end indent the step header, and fmt drops them.
func unindentedDoc(preamble string) []byte {
	last := preamble[strings.LastIndexByte(preamble, '\n')+1:]
	if len(last) <= 3 && strings.Trim(last, " ") == "" {
		preamble = preamble[:len(preamble)-len(last)]
	}
	return serversDoc(preamble)
}

// checkCanonical fails unless out, the canonical form of skill (parsed
// from src), parses without errors to the same tree and servers, formats
// to itself, and format.Matches says whether src is already out.
func checkCanonical(t *testing.T, skill *ast.Skill, src, out []byte) {
	t.Helper()
	again, diags := grammar.Parse("", out)
	if diags.HasErrors() {
		t.Fatalf("canonical form does not parse: %v\ninput: %q\noutput: %q", diags, src, out)
	}
	if d := testutil.DiffSkills(skill, again); d != "" {
		t.Fatalf("re-parsed tree differs (-input +canonical):\n%s\ninput: %q\noutput: %q", d, src, out)
	}
	if fmt.Sprint(servers(again)) != fmt.Sprint(servers(skill)) {
		t.Fatalf("canonical form has servers %v, input %v", servers(again), servers(skill))
	}
	if twice := format.Source(again); !bytes.Equal(twice, out) {
		t.Fatalf("fmt is not idempotent:\n%s", format.Diff("canonical", out, twice))
	}
	if got := format.Matches(skill, src); got != bytes.Equal(src, out) {
		t.Fatalf("Matches(input) = %v; input canonical: %v", got, bytes.Equal(src, out))
	}
	if !format.Matches(again, out) {
		t.Fatalf("Matches(canonical) = false")
	}
}

// TestIndentedStepHeader: a step header indented by one to three spaces
// is a CommonMark heading and opens the step, after a Servers section or
// not; fmt prints it unindented (SPEC §9) and leaves the preamble and
// servers alone, and the canonical form parses to the same tree. Right
// after a list item (a server's bullet among them), blank line or not,
// two or three spaces put the header inside the item, as CommonMark
// reads it: that is no step header, so the file has no steps and the
// item's section reads the step's bullets. Four spaces are a code block.
func TestIndentedStepHeader(t *testing.T) {
	const step = "### Step 1 — T\n- intent: i\n- action: create_entities {}\n- effect: read\n"
	preambles := []struct {
		name, text string
		servers    []server
		maxIndent  int  // the most blanks that still open a step
		open       bool // the Servers section runs on to the header
	}{
		{"no preamble", "", nil, 3, false},
		{"blank line", "\n", nil, 3, false},
		{"prose", "# Title\n\nSome text.\n", nil, 3, false},
		{"list item", "- item\n", nil, 1, false},
		{"servers", "## Servers\n- `a`: `x` (tools: t)\n", []server{{"a", "x", []string{"t"}}}, 1, true},
		{"servers, blank line", "## Servers\n\n- `a`: `x` (tools: t)\n- `b`: `y`\n\n", []server{{"a", "x", []string{"t"}}, {"b", "y", nil}}, 1, true},
		{"servers, then a section", "## Servers\n- `a`: `x`\n\n## Steps\n\n", []server{{"a", "x", nil}}, 3, false},
		{"servers, then prose", "## Servers\n- `a`: `x`\n\nRun them first.\n", []server{{"a", "x", nil}}, 3, true},
	}
	for _, pre := range preambles {
		for indent := 1; indent <= 4; indent++ {
			t.Run(fmt.Sprintf("%s/%d", pre.name, indent), func(t *testing.T) {
				blanks := strings.Repeat(" ", indent)
				src := []byte("---\nname: s\ndescription: d\n---\n" + pre.text + blanks + step)
				skill, diags := grammar.Parse("s.skill.md", src)
				checkRanges(t, src, diags)
				if got := servers(skill); fmt.Sprint(got) != fmt.Sprint(pre.servers) {
					t.Errorf("servers %v; want %v", got, pre.servers)
				}
				if indent > pre.maxIndent {
					// No step, and an open Servers section reads the
					// step's three bullets as malformed servers.
					want := []string{grammar.CodeNoSteps}
					if pre.open {
						want = append(want, grammar.CodeMalformedServer, grammar.CodeMalformedServer, grammar.CodeMalformedServer)
					}
					var codes []string
					for _, d := range diags {
						codes = append(codes, d.Code)
					}
					if fmt.Sprint(codes) != fmt.Sprint(want) {
						t.Errorf("diagnostics %v; want codes %v", diags, want)
					}
					if len(skill.Steps) != 0 {
						t.Errorf("steps %+v; want none", skill.Steps)
					}
					return
				}
				if len(diags) > 0 {
					t.Fatalf("diagnostics:\n%v", diags)
				}
				if len(skill.Steps) != 1 || skill.Steps[0].Number != 1 || skill.Steps[0].Title != "T" {
					t.Fatalf("steps %+v; want step 1 titled T", skill.Steps)
				}
				h := skill.Steps[0].HeaderRange
				if got := string(src[h.Start.Offset:h.End.Offset]); got != blanks+"### Step 1 — T" {
					t.Errorf("header range covers %q", got)
				}
				if got, want := int(skill.Steps[0].TitleRange.Start.Column), indent+len("### Step 1 - ")+1; got != want {
					t.Errorf("title at column %d; want %d", got, want)
				}
				if skill.Preamble.Text != pre.text {
					t.Errorf("preamble %q; want %q", skill.Preamble.Text, pre.text)
				}
				out := format.Source(skill)
				if want := "---\nname: s\ndescription: d\n---\n" + pre.text + step; string(out) != want {
					t.Errorf("fmt gives:\n%s", format.Diff("want", []byte(want), out))
				}
				checkCanonical(t, skill, src, out)
			})
		}
	}
}

func TestHasStepHeader(t *testing.T) {
	for src, want := range map[string]bool{
		"---\nname: a\n---\n\n### Step 1 — Go\n":                      true,
		"---\nname: a\n---\n\n   ### Step 2 — Indented\n":             true,
		"---\nname: a\n---\n\n# Docs\n\n## Overview\n":                false,
		"---\nname: a\n---\n\n```\n### Step 1 — In a fence\n```\n":    false,
		"---\nname: a\n---\n\n    ### Step 1 — Four spaces is code\n": false,
		"": false,
	} {
		if got := grammar.HasStepHeader([]byte(src)); got != want {
			t.Errorf("HasStepHeader(%q) = %v, want %v", src, got, want)
		}
	}
}

// TestServersHeaders: a remote server's (headers: …) list, after its
// tools or alone.
func TestServersHeaders(t *testing.T) {
	tests := []struct {
		name, preamble string
		want           [][]string // the headers of each server
		err            string     // the rendered diagnostics, if any
	}{
		{"after the tools", "## Servers\n- `e`: `https://h/mcp` (tools: echo) (headers: `Authorization: Bearer $TOKEN`, `X-Team: ${TEAM}`)\n",
			[][]string{{"Authorization: Bearer $TOKEN", "X-Team: ${TEAM}"}}, ""},
		{"alone", "## Servers\n- `e`: `https://h/mcp` (headers:`X-Api-Key: $X_API_KEY`)\n", [][]string{{"X-Api-Key: $X_API_KEY"}}, ""},
		{"none", "## Servers\n- `e`: `https://h/mcp` (tools: a)\n", [][]string{nil}, ""},
		{"bare header", "## Servers\n- `e`: `https://h/mcp` (headers: X-A: b)\n", nil,
			"s.skill.md:6:34: error: Malformed server line, expected '- `name`: `command` (tools: a, b)': - `e`: `https://h/mcp` (headers: X-A: b) [malformed_server]"},
		{"no colon", "## Servers\n- `e`: `https://h/mcp` (headers: `X-A b`)\n", nil,
			"s.skill.md:6:34: error: Malformed server line, expected '- `name`: `command` (tools: a, b)': - `e`: `https://h/mcp` (headers: `X-A b`) [malformed_server]"},
		{"headers before tools", "## Servers\n- `e`: `https://h/mcp` (headers: `X-A: b`) (tools: a)\n", nil,
			"s.skill.md:6:44: error: Malformed server line, expected '- `name`: `command` (tools: a, b)': - `e`: `https://h/mcp` (headers: `X-A: b`) (tools: a) [malformed_server]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := serversDoc(tt.preamble)
			skill, diags := grammar.Parse("s.skill.md", src)
			if got := diags.Error(); got != tt.err {
				t.Fatalf("diagnostics:\n got %s\nwant %s", got, tt.err)
			}
			if tt.err != "" {
				checkRanges(t, src, diags)
				return
			}
			var got [][]string
			for _, sv := range skill.Servers {
				var hs []string
				for _, h := range sv.Headers {
					hs = append(hs, h.Text)
					if at := string(src[h.Range.Start.Offset:h.Range.End.Offset]); at != h.Text {
						t.Errorf("header range covers %q; want %q", at, h.Text)
					}
				}
				got = append(got, hs)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("headers %v; want %v", got, tt.want)
			}
			if out := format.Source(skill); string(out) != string(src) {
				t.Errorf("fmt changed the file:\n%s", format.Diff("s", src, out))
			}
		})
	}
}

// controlChars are the characters no server line may hold: C0 controls
// but tab, DEL, C1 controls (NEL among them), the line and paragraph
// separators YAML 1.1 breaks lines on, and the bidi overrides and
// isolates. Each is named as the diagnostic names it.
var controlChars = []struct{ r, name string }{
	{"\x00", "U+0000"}, {"\x07", "U+0007"}, {"\x08", "U+0008"}, {"\v", "U+000B"}, {"\f", "U+000C"},
	{"\r", "U+000D"}, {"\x1b", "U+001B"}, {"\x1f", "U+001F"}, {"\x7f", "U+007F"},
	{"\u0080", "U+0080"}, {"\u0085", "U+0085"}, {"\u009b", "U+009B"}, {"\u009f", "U+009F"},
	{"\u2028", "U+2028"}, {"\u2029", "U+2029"},
	{"\u202a", "U+202A"}, {"\u202b", "U+202B"}, {"\u202c", "U+202C"}, {"\u202d", "U+202D"}, {"\u202e", "U+202E"},
	{"\u2066", "U+2066"}, {"\u2067", "U+2067"}, {"\u2068", "U+2068"}, {"\u2069", "U+2069"},
}

// TestServersControlCharacters: a control, line-break or bidi character
// anywhere in a server's name, command, tools or headers is a
// server_control_character error at that character's column, and the
// server is not read; a tab where blanks go is fine.
func TestServersControlCharacters(t *testing.T) {
	// Each place: the line with ¤ where the character goes, and X's column
	// (the bullet starts in column 1; the é before ¤ counts one column).
	places := []struct {
		name, line string
	}{
		{"name", "- `mé ¤`: `npx -y @modelcontextprotocol/server-memory`"},
		{"bare name", "- mé¤: `npx -y @modelcontextprotocol/server-memory`"},
		{"command", "- `memory`: `npx -y @modelcontextprotocol/server-memoryé¤  allow-writes: \"true\"`"},
		{"command start", "- `memory`: `¤ sh -c 'touch /tmp/pwned'`"},
		{"tool", "- `memory`: `npx -y server` (tools: create_entities, sé¤)"},
		{"header", "- `api`: `https://api.example.test/mcp` (headers: `X-Api-Key: $KEYé ¤`)"},
	}
	for _, pl := range places {
		for _, c := range controlChars {
			t.Run(pl.name+"/"+c.name, func(t *testing.T) {
				line := strings.Replace(pl.line, "¤", c.r, 1)
				col := ast.Column(line, strings.Index(line, c.r))
				src := serversDoc("## Servers\n" + line + "\n")
				skill, diags := grammar.Parse("s.skill.md", src)
				checkRanges(t, src, diags)
				if len(skill.Servers) != 0 {
					t.Errorf("the server was read: %+v", skill.Servers[0])
				}
				want := fmt.Sprintf("s.skill.md:6:%d: error: Server line holds %s, a control, line-break or bidi character — a server's name, command, tools and headers may not [server_control_character]", col, c.name)
				if got := diags.Error(); got != want {
					t.Errorf("diagnostics:\n got %s\nwant %s", got, want)
				}
			})
		}
	}
	// A tab where blanks go, and inside a command, is a blank.
	src := serversDoc("## Servers\n-\t`a`:\t`npx\t-y server`\t(tools:\tt)\n")
	skill, diags := grammar.Parse("s.skill.md", src)
	if len(diags) > 0 || len(skill.Servers) != 1 || skill.Servers[0].Command != "npx\t-y server" {
		t.Errorf("tabs: servers %+v, diagnostics %v", skill.Servers, diags)
	}
}
