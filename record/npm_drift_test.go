package record_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/tooldef"
)

// The environment of the tools/list editor: a test binary started with
// editToolsEnv set runs the command its arguments name as an MCP server
// and passes its messages through, except that the tool editToolsEnv
// names gains an optional input field "priority" (in the objects of its
// first array argument, when it has one) in every tools/list
// answer; each tools/call request is logged to the file callLogEnv names.
const (
	editToolsEnv = "REELIER_TEST_EDIT_TOOLS"
	callLogEnv   = "REELIER_TEST_CALL_LOG"
)

// editToolsIfAsked runs the editor and exits when editToolsEnv is set.
func editToolsIfAsked() {
	tool := os.Getenv(editToolsEnv)
	if tool == "" || len(os.Args) < 2 {
		return
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		os.Exit(1)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var req struct {
				Method string `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if json.Unmarshal(sc.Bytes(), &req) == nil && req.Method == "tools/call" {
				if f, err := os.OpenFile(os.Getenv(callLogEnv), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
					fmt.Fprintln(f, req.Params.Name)
					f.Close()
				}
			}
			in.Write(append(sc.Bytes(), '\n'))
		}
		in.Close()
	}()
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		os.Stdout.Write(append(editTools(sc.Bytes(), tool), '\n'))
	}
	cmd.Wait()
	os.Exit(0)
}

// editTools adds the optional field to the named tool of a tools/list
// answer; any other line comes back unchanged.
func editTools(line []byte, tool string) []byte {
	var msg map[string]any
	if json.Unmarshal(line, &msg) != nil {
		return line
	}
	res, _ := msg["result"].(map[string]any)
	tools, _ := res["tools"].([]any)
	if tools == nil {
		return line
	}
	for _, t := range tools {
		if t, ok := t.(map[string]any); ok && t["name"] == tool {
			schema, _ := t["inputSchema"].(map[string]any)
			props, _ := schema["properties"].(map[string]any)
			// Into the objects of its first array argument when it has
			// one (create_entities' entities), else beside its arguments.
			for _, arg := range props {
				if items, ok := arg.(map[string]any)["items"].(map[string]any); ok {
					if inner, ok := items["properties"].(map[string]any); ok {
						props = inner
						break
					}
				}
			}
			if props != nil {
				props["priority"] = map[string]any{"type": "number", "description": "added by the test's editor"}
			}
		}
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	return out
}

// TestMemoryToolDrift: the real server-memory from npm, recorded through
// the reelier binary and compiled: the skill keeps the signatures of the
// two tools it calls, and a replay against the same server finds no drift
// (its descriptions, $schema and key order do not count) and passes.
// Behind an editor that adds an optional field to create_entities in its
// tools/list answer, the replay stops before step 1 — no tools/call
// reaches the server — naming the server, the tool and the field.
func TestMemoryToolDrift(t *testing.T) {
	dir := npmPackage(t, "@modelcontextprotocol/server-memory")
	wrap := fmt.Sprintf("node '%s'", filepath.Join(dir, "dist", "index.js"))
	t.Setenv("MEMORY_FILE_PATH", filepath.Join(t.TempDir(), "memory.jsonl"))
	p := startBinary(t, "", wrap)
	cs := p.session
	callSession(t, cs, "reelier_start_recording", map[string]any{"name": "memory"}, nil)
	callSession(t, cs, "reelier_note", map[string]any{"text": "remember Ada"}, nil)
	callSession(t, cs, "create_entities", map[string]any{"entities": []any{map[string]any{"name": "Ada", "entityType": "person", "observations": []any{"wrote the first program"}}}}, nil)
	callSession(t, cs, "reelier_note", map[string]any{"text": "find her"}, nil)
	callSession(t, cs, "search_nodes", map[string]any{"query": "Ada"}, nil)
	callSession(t, cs, "reelier_stop_recording", nil, nil)

	skill := filepath.Join(t.TempDir(), "memory.skill.md")
	if out, err := exec.Command(reelierBin(t), "compile", filepath.Join(p.dir, "memory-1.jsonl"), "-o", skill).CombinedOutput(); err != nil {
		t.Fatalf("compile: %v\n%s", err, out)
	}
	src, err := os.ReadFile(skill)
	if err != nil {
		t.Fatal(err)
	}
	parsed, diags := grammar.Parse(skill, src)
	if diags.HasErrors() {
		t.Fatalf("compiled skill: %v", diags)
	}
	e := parsed.Frontmatter.Metadata(tooldef.MetadataKey)
	if e == nil {
		t.Fatalf("no %s:\n%s", tooldef.MetadataKey, src)
	}
	lines := strings.Split(e.Value, "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "create_entities(entities: {entityType: string, name: string, observations: string[]}[]) in=") ||
		!strings.Contains(lines[0], " out=") || !strings.HasPrefix(lines[1], "search_nodes(query: string) in=") || !strings.Contains(lines[1], "hints=readOnly,") {
		t.Errorf("%s:\n%s", tooldef.MetadataKey, e.Value)
	}

	// The same server, an empty memory: no drift, and the replay passes.
	t.Setenv("MEMORY_FILE_PATH", filepath.Join(t.TempDir(), "memory.jsonl"))
	same := runSkill(t, skill, wrap)
	if same.code != 0 || same.rec.ToolDrift != nil {
		t.Errorf("same server: exit %d, drift %+v\n%s%s", same.code, same.rec.ToolDrift, same.stdout, same.stderr)
	}

	// The editor in front: create_entities gained a field.
	callLog := filepath.Join(t.TempDir(), "calls.log")
	t.Setenv(callLogEnv, callLog)
	edited := fmt.Sprintf("env %s=create_entities '%s' %s", editToolsEnv, os.Args[0], wrap)
	r := runSkill(t, skill, edited)
	if r.code != 1 {
		t.Errorf("edited server: exit %d; want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(callLog); err == nil && len(b) > 0 {
		t.Errorf("tool calls reached the server before the drift check stopped the run: %s", b)
	}
	d := r.rec.ToolDrift
	if d == nil || len(d.Tools) != 1 || d.Tools[0].Server != "memory-server" || d.Tools[0].Tool != "create_entities" ||
		strings.Join(d.Tools[0].Changes, "|") != "input field entities[].priority added (number, optional)" {
		t.Errorf("record toolDrift %+v\n%s", d, r.stdout)
	}
	if !strings.Contains(r.stdout, "memory-server: create_entities: input field entities[].priority added (number, optional)") {
		t.Errorf("receipt:\n%s", r.stdout)
	}
}
