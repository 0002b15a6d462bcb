package compile_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/trace"
)

// serversTrace is a one-call trace whose meta lists the given servers.
func serversTrace(t *testing.T, servers []trace.Server) *trace.Trace {
	t.Helper()
	meta := map[string]any{"t": "meta", "seq": 0, "name": "mem", "startedAt": "2026-07-18T14:02:00.000Z", "wrapped": []string{"srv"}}
	if servers != nil {
		meta["servers"] = servers
	}
	line, err := json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	src := string(line) + "\n" +
		`{"t":"call","seq":1,"i":0,"ts":"2026-07-18T14:02:01.000Z","tool":"search_nodes","args":{"query":"x"}}` + "\n" +
		`{"t":"result","seq":2,"i":0,"ok":true,"ms":3,"body":{"content":[{"type":"text","text":"{}"}]}}` + "\n"
	tr, err := trace.Read(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// serversSection returns the Servers section of a compiled skill: from
// its heading to the preamble's "## Steps" heading.
func serversSection(src []byte) string {
	s := string(src)
	i := strings.Index(s, "## Servers\n")
	j := strings.Index(s, "## Steps\n")
	if i < 0 || j < i {
		return ""
	}
	return s[i:j]
}

const serversIntro = "## Servers\n\nRecorded with these MCP servers. `reelier run` starts them, in this order, once you have trusted this file (`--servers-from-skill`); `--wrap` replaces them.\n\n"

func TestServersSection(t *testing.T) {
	tests := []struct {
		name    string
		servers []trace.Server
		want    string // the section; "" for none
	}{
		{"no servers in the meta", nil, ""},
		{"an empty list", []trace.Server{}, ""},
		{"one server", []trace.Server{{Name: "memory", Command: "npx -y @modelcontextprotocol/server-memory", Tools: []string{"create_entities", "search_nodes"}}},
			serversIntro + "- `memory`: `npx -y @modelcontextprotocol/server-memory` (tools: create_entities, search_nodes)\n\n"},
		{"a remote server with headers", []trace.Server{{Name: "everything", Command: "https://mcp.example.com/mcp", Tools: []string{"echo"},
			Headers: []string{"Authorization: Bearer $TOKEN", "X-Team: $X_TEAM", "no colon", "bad name: x"}}},
			serversIntro + "- `everything`: `https://mcp.example.com/mcp` (tools: echo) (headers: `Authorization: Bearer $TOKEN`, `X-Team: $X_TEAM`)\n\n"},
		{"order kept, a server without tools", []trace.Server{
			{Name: "b", Command: "srv -name b", Tools: []string{"echo"}},
			{Name: "a", Command: "srv", Tools: []string{}},
			{Name: "c", Command: "srv -name c", Tools: []string{"search_nodes", "1_echo"}}},
			serversIntro + "- `b`: `srv -name b` (tools: echo)\n- `a`: `srv`\n- `c`: `srv -name c` (tools: search_nodes, 1_echo)\n\n"},
		{"backticks, odd tool names, line breaks", []trace.Server{{Name: "sh", Command: "sh -c 'echo `date`'\n--x", Tools: []string{"a b", "c,d", "`q`", "ok", "bad\nname", ""}}},
			serversIntro + "- `sh`: ``sh -c 'echo `date`' --x`` (tools: `a b`, `c,d`, `` `q` ``, ok)\n\n"},
		{"duplicate and missing names", []trace.Server{
			{Name: "a", Command: "x"}, {Name: "a", Command: "y"}, {Name: "", Command: "z"}, {Name: "a-2", Command: "w"}},
			serversIntro + "- `a`: `x`\n- `a-2`: `y`\n- `server-3`: `z`\n- `a-2-2`: `w`\n\n"},
		{"an empty command is left out", []trace.Server{{Name: "e", Command: "  "}, {Name: "f", Command: "srv"}},
			serversIntro + "- `f`: `srv`\n\n"},
		{"only empty commands", []trace.Server{{Name: "e", Command: ""}}, ""},
		{"a redacted command is written as recorded", []trace.Server{{Name: "gh", Command: "env 'GITHUB_TOKEN=«redacted»' npx srv", Tools: []string{"search_nodes"}}},
			serversIntro + "- `gh`: `env 'GITHUB_TOKEN=«redacted»' npx srv` (tools: search_nodes)\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := compile.Compile(serversTrace(t, tt.servers), compile.Options{Source: "mem-1.jsonl", Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			src := format.Source(out.Skill)
			got := serversSection(src)
			if got != tt.want {
				t.Errorf("section:\n%s\nwant:\n%s", got, tt.want)
			}
			if tt.want == "" && strings.Contains(string(src), "## Servers") {
				t.Errorf("a Servers section without servers:\n%s", src)
			}
			// The section reads back as the meta said, and survives fmt.
			skill, diags := grammar.Parse("mem.skill.md", src)
			if len(diags) > 0 {
				t.Fatalf("the compiled skill does not parse:\n%v\n%s", diags, src)
			}
			if again := format.Source(skill); !bytes.Equal(again, src) {
				t.Errorf("fmt changed the compiled skill:\n%s", format.Diff("mem", src, again))
			}
			var names []string
			for _, sv := range skill.Servers {
				var tools []string
				for _, tool := range sv.Tools {
					tools = append(tools, tool.Name)
				}
				names = append(names, fmt.Sprintf("%s=%s%v", sv.Name, sv.Command, tools))
			}
			var want []string
			taken := map[string]bool{}
			for k, sv := range tt.servers {
				cmd := strings.ReplaceAll(sv.Command, "\n", " ")
				if strings.TrimSpace(cmd) == "" {
					continue
				}
				name := sv.Name
				if name == "" {
					name = fmt.Sprintf("server-%d", k+1)
				}
				for base, n := name, 2; taken[name]; n++ {
					name = fmt.Sprintf("%s-%d", base, n)
				}
				taken[name] = true
				var tools []string
				for _, tool := range sv.Tools {
					if tool != "" && !strings.Contains(tool, "\n") {
						tools = append(tools, tool)
					}
				}
				want = append(want, fmt.Sprintf("%s=%s%v", name, cmd, tools))
			}
			if fmt.Sprint(names) != fmt.Sprint(want) {
				t.Errorf("parsed servers %v, want %v", names, want)
			}
		})
	}
}

// TestServersSectionDeterministic: the same trace compiles to the same
// bytes, whether loaded or read as a file.
func TestServersSectionDeterministic(t *testing.T) {
	servers := []trace.Server{{Name: "memory", Command: "npx -y @modelcontextprotocol/server-memory", Tools: []string{"search_nodes"}}}
	var first []byte
	for range 5 {
		out, err := compile.Compile(serversTrace(t, servers), compile.Options{Source: "mem-1.jsonl", Now: fixedNow})
		if err != nil {
			t.Fatal(err)
		}
		src := format.Source(out.Skill)
		if first == nil {
			first = src
		} else if !bytes.Equal(src, first) {
			t.Fatalf("two compilations differ:\n%s", format.Diff("mem", first, src))
		}
	}
	if !strings.Contains(string(first), "(recorded 2026-07-18T14:02:00.000Z). Every value") ||
		!strings.Contains(string(first), "Inputs: none (the compiler never invents input variables).\n\n## Servers\n\n") {
		t.Errorf("the section is not in the preamble before ## Steps:\n%s", first)
	}
}
