package compile_test

import (
	"encoding/json"
	"testing"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/lint"
	"github.com/reelier/reelier/lang/tooldef"
	"github.com/reelier/reelier/trace"
	"github.com/sebdah/goldie/v2"
)

// searchDef is server-memory's search_nodes, a description reworded to
// carry a quote and a colon.
const searchDef = `{"name":"search_nodes","description":"Search: \"nodes\"","inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"The search query"}},"required":["query"]},"annotations":{"readOnlyHint":true}}`

// TestToolsMetadata: a trace whose meta keeps tool definitions compiles
// to a skill whose frontmatter keeps the signature of each tool a step
// calls (and of no other), as a literal block that reads back exactly
// and that the Agent Skills rule accepts.
func TestToolsMetadata(t *testing.T) {
	servers := []trace.Server{{Name: "memory", Command: "npx -y @modelcontextprotocol/server-memory", Tools: []string{"read_graph", "search_nodes"},
		ToolDefs: []json.RawMessage{json.RawMessage(`{"name":"read_graph","inputSchema":{"type":"object"}}`), json.RawMessage(searchDef)}}}
	res, err := compile.Compile(serversTrace(t, servers), compile.Options{Source: "mem-1.jsonl", Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	out := format.Source(res.Skill)
	goldie.New(t).Assert(t, t.Name()+"/skill", out)
	skill, diags := grammar.Parse("s.skill.md", out)
	if diags.HasErrors() {
		t.Fatalf("the compiled skill does not parse: %v", diags)
	}
	e := skill.Frontmatter.Metadata(tooldef.MetadataKey)
	if e == nil {
		t.Fatalf("no %s metadata in\n%s", tooldef.MetadataKey, out)
	}
	want, _ := tooldef.Read(json.RawMessage(searchDef))
	if e.Value != want.Line() {
		t.Errorf("%s = %q; want the one tool called, %q", tooldef.MetadataKey, e.Value, want.Line())
	}
	driver, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range driver.Run(lint.ParseFile("s.skill.md", out)) {
		if d.Code == "agent_skill" || d.Code == "tool_signature" {
			t.Errorf("lint: %s", d)
		}
	}
}

// TestToolsMetadataAbsent: a trace without definitions (older, or made
// by another recorder) compiles without the key, as before.
func TestToolsMetadataAbsent(t *testing.T) {
	servers := []trace.Server{{Name: "memory", Command: "npx -y @modelcontextprotocol/server-memory", Tools: []string{"search_nodes"}}}
	res, err := compile.Compile(serversTrace(t, servers), compile.Options{Source: "mem-1.jsonl", Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	out := format.Source(res.Skill)
	skill, _ := grammar.Parse("s.skill.md", out)
	if skill.Frontmatter.Lookup("metadata") != nil {
		t.Errorf("metadata written without tool definitions:\n%s", out)
	}
}
