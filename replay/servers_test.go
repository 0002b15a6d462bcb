package replay_test

import (
	"context"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/tool"
)

// serversSkill is a skill whose Servers section lists the tools its
// steps call.
const serversSkill = `---
name: mem
description: a skill with recorded servers
---

## Servers

- ` + "`memory`: `npx -y @modelcontextprotocol/server-memory` (tools: create_entities, search_nodes)" + `
- ` + "`quoted`: `sh -c \"echo $HOME\"` (tools: shout)" + `

## Steps

### Step 1 — Search
- intent: search the graph
- action: search_nodes {"query": "x"}
- effect: read

### Step 2 — Shout
- intent: a tool of a server whose command needs quoting
- action: shout {}
- effect: read
`

// noopTool is a tool that answers 200 with an empty body.
type noopTool struct{}

func (noopTool) Effect() ast.Effect { return ast.EffectRead }
func (noopTool) Call(context.Context, []byte) (*tool.Observation, error) {
	return &tool.Observation{Status: 200, Headers: map[string]string{}}, nil
}

func TestUnknownToolNamesItsServer(t *testing.T) {
	s := parse(t, serversSkill)
	tests := []struct {
		name  string
		tools tool.Registry
		want  string
	}{
		{"server not started", tool.Registry{"http.get": noopTool{}},
			`Unknown tool "search_nodes" (recorded from server memory: npx -y @modelcontextprotocol/server-memory); known tools: http.get — start it with --wrap "npx -y @modelcontextprotocol/server-memory"`},
		{"server running without the tool", tool.Registry{"create_entities": noopTool{}},
			`Unknown tool "search_nodes" (recorded from server memory: npx -y @modelcontextprotocol/server-memory); known tools: create_entities — server memory is running but no longer offers it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := replay.Run(context.Background(), s, replay.Options{Tools: tt.tools})
			if got := res.Record.Steps[0].Failures; len(got) != 1 || got[0] != tt.want {
				t.Errorf("failures %q\nwant %q", got, tt.want)
			}
		})
	}
	res := replay.Run(context.Background(), s, replay.Options{Tools: tool.Registry{"search_nodes": noopTool{}}})
	want := `Unknown tool "shout" (recorded from server quoted: sh -c "echo $HOME"); known tools: search_nodes — start it with --wrap 'sh -c "echo $HOME"'`
	if got := res.Record.Steps[1].Failures; len(got) != 1 || got[0] != want {
		t.Errorf("failures %q\nwant %q", got, want)
	}
}

func TestDryRunKnowsRecordedTools(t *testing.T) {
	s := parse(t, serversSkill)
	tools := tool.Registry{"http.get": noopTool{}}
	plan := replay.DryRun(s, replay.Options{Tools: tools, SkillServers: true})
	for _, p := range plan {
		if p.Err != nil {
			t.Errorf("step %d: %v", p.Step.Number, p.Err)
		}
	}
	if got := string(plan[0].Action.Args); got != `{"query":"x"}` {
		t.Errorf("args %s", got)
	}
	// Without SkillServers (servers given by --wrap), the list does not
	// count: the tool is unknown, and the message names its server.
	plan = replay.DryRun(s, replay.Options{Tools: tools})
	if plan[0].Err == nil || !strings.Contains(plan[0].Err.Error(), `(recorded from server memory: npx -y @modelcontextprotocol/server-memory)`) {
		t.Errorf("step 1: %v", plan[0].Err)
	}
	// A tool no server lists stays unknown, with the plain message.
	s = parse(t, strings.Replace(serversSkill, "action: shout", "action: whisper", 1))
	plan = replay.DryRun(s, replay.Options{Tools: tools, SkillServers: true})
	if plan[1].Err == nil || plan[1].Err.Error() != `Unknown tool "whisper"; known tools: http.get` {
		t.Errorf("step 2: %v", plan[1].Err)
	}
}
