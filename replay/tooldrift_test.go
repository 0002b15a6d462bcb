package replay_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/tooldef"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
)

// defTool is an MCP-like tool: it shows a definition and counts calls.
type defTool struct {
	def   string
	calls *int
}

func (defTool) Effect() ast.Effect { return ast.EffectRead }

func (d defTool) Call(context.Context, []byte) (*tool.Observation, error) {
	*d.calls++
	return &tool.Observation{Status: 200, Body: `{"ok":true}`}, nil
}

func (d defTool) Definition() (string, json.RawMessage) { return "live", json.RawMessage(d.def) }

// plainTool is a builtin: no definition.
type plainTool struct{ calls *int }

func (plainTool) Effect() ast.Effect { return ast.EffectRead }

func (p plainTool) Call(context.Context, []byte) (*tool.Observation, error) {
	*p.calls++
	return &tool.Observation{Status: 200, Body: `{"ok":true}`}, nil
}

const (
	searchV1 = `{"name":"search","description":"Search.","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]},"annotations":{"readOnlyHint":true}}`
	// searchV2 reworded its description and reordered its keys (no
	// drift), and gained an optional field (drift).
	searchV2 = `{"annotations":{"readOnlyHint":true},"inputSchema":{"required":["q"],"properties":{"limit":{"type":"integer"},"q":{"type":"string","description":"the query"}},"type":"object"},"name":"search","description":"Search better."}`
	// searchReworded only rewords.
	searchReworded = `{"name":"search","description":"Find things.","inputSchema":{"properties":{"q":{"description":"what to find","type":"string"}},"type":"object","required":["q"]},"annotations":{"title":"Search","readOnlyHint":true}}`
)

// driftSkill keeps the signature of search (v1) and calls it.
func driftSkill(t *testing.T) *ast.Skill {
	t.Helper()
	sig, err := tooldef.Read(json.RawMessage(searchV1))
	if err != nil {
		t.Fatal(err)
	}
	return parse(t, `---
name: drift
description: search once
metadata:
  reelier-tools: "`+sig.Line()+`"
---

## Servers

- `+"`search-server`: `search-mcp` (tools: search)"+`

## Steps

### Step 1 — Search
- intent: search
- action: search {"q": "x"}
- assert: json.ok == true
- effect: read
`)
}

func TestCheckTools(t *testing.T) {
	skill := driftSkill(t)
	n := 0
	tests := []struct {
		name string
		reg  tool.Registry
		want string // the drift lines joined by "|"; "" for none
	}{
		{"same definition", tool.Registry{"search": defTool{searchV1, &n}}, ""},
		{"reworded and reordered only", tool.Registry{"search": defTool{searchReworded, &n}}, ""},
		{"a field added", tool.Registry{"search": defTool{searchV2, &n}}, "search-server: search: input field limit added (integer, optional)"},
		{"no longer offered", tool.Registry{"other": defTool{searchV1, &n}}, "search-server: search: no longer offered by the server"},
		{"no MCP server started", tool.Registry{"http.get": plainTool{&n}}, ""},
		{"served by a builtin", tool.Registry{"search": plainTool{&n}, "other": defTool{searchV1, &n}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := replay.CheckTools(skill, tt.reg, nil)
			got := strings.Join(replay.DriftLines(d), "|")
			if got != tt.want {
				t.Errorf("drift %q; want %q", got, tt.want)
			}
		})
	}
	if replay.CheckTools(parse(t, "---\nname: a\ndescription: b\n---\n\n### Step 1 — S\n- intent: s\n- action: search {}\n- effect: read\n"), tool.Registry{"search": defTool{searchV2, &n}}, nil) != nil {
		t.Error("a skill without reelier-tools was checked")
	}
}

// TestRunStopsOnToolDrift: a drifted tool stops the run before step 1 —
// the tool is never called, every step is skipped as tool drift, the
// verdict is failed — unless the drift is ignored.
func TestRunStopsOnToolDrift(t *testing.T) {
	skill := driftSkill(t)
	calls := 0
	reg := tool.Registry{"search": defTool{searchV2, &calls}}
	res := replay.Run(context.Background(), skill, replay.Options{Tools: reg})
	rec := res.Record
	if calls != 0 || rec.Verdict != runlog.VerdictFailed || rec.ToolDrift == nil || rec.ToolDrift.Ignored || rec.Steps[0].Skip != replay.SkipToolDrift {
		t.Errorf("calls %d, verdict %s, drift %+v, skip %q; want no call, failed, the drift, skipped as tool drift", calls, rec.Verdict, rec.ToolDrift, rec.Steps[0].Skip)
	}
	res = replay.Run(context.Background(), skill, replay.Options{Tools: reg, IgnoreToolDrift: true})
	rec = res.Record
	if calls != 1 || rec.Verdict != runlog.VerdictPassed || rec.ToolDrift == nil || !rec.ToolDrift.Ignored {
		t.Errorf("ignored: calls %d, verdict %s, drift %+v; want one call, passed, the drift marked ignored", calls, rec.Verdict, rec.ToolDrift)
	}
}

func TestSkillTools(t *testing.T) {
	bad := parse(t, "---\nname: a\ndescription: b\nmetadata:\n  reelier-tools: |-\n    search(q: string) in=0123abcd\n    search(q string) in=0123abcd\n---\n\n### Step 1 — S\n- intent: s\n- action: search {}\n- effect: read\n")
	err := replay.SkillTools(bad)
	if err == nil || err.Error() != `7:14: metadata reelier-tools: want ":" after a field name` {
		t.Errorf("SkillTools = %v", err)
	}
	if err := replay.SkillTools(driftSkill(t)); err != nil {
		t.Errorf("a good signature: %v", err)
	}
}
