package record_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/tooldef"
	"github.com/reelier/reelier/record/agentcfg"
	"github.com/reelier/reelier/trace"
)

// TestMetaServers: the meta record describes every downstream in --wrap
// order — the name it gave itself, made unique; its command; the names its
// tools were exposed under, collision prefixes included — and a secret in
// a command reaches neither "servers" nor "wrapped".
func TestMetaServers(t *testing.T) {
	key := "sk-" + strings.Repeat("Zt7q", 6)
	f := startWrap(t, server("a"), server("a"), "env CRM_TOKEN=plain-value-1 "+server("b")+" -name "+key)
	path := f.startRecording(t, "servers")
	f.call(t, "reelier_stop_recording", map[string]any{})
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{key, "plain-value-1"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("%q reached the trace", secret)
		}
	}
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	bin := os.Args[0]
	names := []string{"add", "crash", "create_item", "delete_item", "echo", "fail", "get_item", "leak", "slow"}
	tools := func(prefix string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = prefix + n
		}
		return fmt.Sprint(out)
	}
	want := []string{
		fmt.Sprintf("a '%s' -name a %s", bin, tools("")),
		fmt.Sprintf("a-2 '%s' -name a %s", bin, tools("1_")),
		// The last -name wins, so the server calls itself by the key:
		// its name is redacted too.
		fmt.Sprintf("redacted env 'CRM_TOKEN=«redacted»' %s -name b -name '«redacted»' %s", agentcfg.ShellJoin([]string{bin}), tools("2_")),
	}
	var got []string
	for _, sv := range tr.Meta.Servers {
		got = append(got, fmt.Sprintf("%s %s %v", sv.Name, sv.Command, sv.Tools))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("servers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(tr.Meta.Wrapped) != 3 || tr.Meta.Wrapped[2] != tr.Meta.Servers[2].Command {
		t.Errorf("wrapped %q, want the servers' redacted commands", tr.Meta.Wrapped)
	}
	// Each server's tool definitions parallel its tools, under the names
	// they were exposed under, with what the drift check reads.
	for _, sv := range tr.Meta.Servers {
		if len(sv.ToolDefs) != len(sv.Tools) {
			t.Fatalf("server %s: %d toolDefs for %d tools", sv.Name, len(sv.ToolDefs), len(sv.Tools))
		}
		for i, def := range sv.ToolDefs {
			tool, err := tooldef.Read(def)
			if err != nil {
				t.Fatalf("server %s: toolDefs[%d] does not read: %v", sv.Name, i, err)
			}
			if tool.Name != sv.Tools[i] {
				t.Errorf("server %s: toolDefs[%d] is named %q; want %q", sv.Name, i, tool.Name, sv.Tools[i])
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(def, &m); err != nil || m["description"] == nil || m["inputSchema"] == nil {
				t.Errorf("server %s: toolDefs[%d] = %s; want a description and an inputSchema", sv.Name, i, def)
			}
			if strings.HasSuffix(tool.Name, "add") {
				if got := tool.Line(); !strings.Contains(got, "(a: number, b: number) in=") || !strings.Contains(got, " out=") || !strings.HasSuffix(got, " hints=readOnly,idempotent,!openWorld") {
					t.Errorf("server %s: add reads as %q", sv.Name, got)
				}
			}
		}
	}
}
