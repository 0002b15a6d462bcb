package mcpx

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/policy"
	"github.com/reelier/reelier/policy/engine"
)

func fsRoute(raw string) *Route {
	return &Route{Exposed: "write_file", Tool: &mcp.Tool{Name: "write_file"}, Raw: json.RawMessage(raw),
		Downstream: &Downstream{Name: "node fs.js /srv"}}
}

func TestPolicyCall(t *testing.T) {
	tests := []struct {
		name   string
		route  *Route
		effect ast.Effect
		want   policy.Call
	}{
		{"annotations as declared, live effect from them",
			fsRoute(`{"name":"write_file","annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true}}`), "",
			policy.Call{Tool: "write_file", Server: policy.Server{Name: "fs", Command: "node fs.js /srv"},
				Annotations: map[string]any{"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true},
				Args:        map[string]any{"path": "/srv/a"}, Effect: "idempotent-write"}},
		{"no annotations: the verbs decide",
			fsRoute(`{"name":"write_file"}`), "",
			policy.Call{Tool: "write_file", Server: policy.Server{Name: "fs", Command: "node fs.js /srv"},
				Args: map[string]any{"path": "/srv/a"}, Effect: "idempotent-write"}},
		{"a read hint on a delete verb is raised",
			&Route{Exposed: "delete_file", Tool: &mcp.Tool{Name: "delete_file"}, Raw: json.RawMessage(`{"annotations":{"readOnlyHint":true}}`),
				Downstream: &Downstream{Name: "https://user:pw@mcp.example.com:8443/mcp"}}, "",
			policy.Call{Tool: "delete_file", Server: policy.Server{Name: ServerLabel("https://user:pw@mcp.example.com:8443/mcp"), Host: "mcp.example.com"},
				Annotations: map[string]any{"readOnlyHint": true}, Args: map[string]any{"path": "/srv/a"}, Effect: "destructive"}},
		{"a replay's step effect wins",
			fsRoute(`{"name":"write_file"}`), ast.EffectRead,
			policy.Call{Tool: "write_file", Server: policy.Server{Name: "fs", Command: "node fs.js /srv"},
				Args: map[string]any{"path": "/srv/a"}, Effect: "read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.route.PolicyCall(json.RawMessage(`{"path":"/srv/a"}`), tt.effect)
			if got.Static == nil {
				t.Fatal("no Static: every call would build the server and annotations again")
			}
			if again := tt.route.PolicyCall(nil, tt.effect); again.Static != got.Static {
				t.Fatal("a second call built its Static again")
			}
			got.Static = nil
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("PolicyCall =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// BenchmarkPolicyFastPath is what a policy of 50 rules adds to a call on
// the recorder's fast path (record/fast.go): the call seen as the rules
// see it (Route.PolicyCall: the arguments decoded, the annotations read)
// and Decide, the last rule deciding (every rule evaluated). It reports
// ns/op and the p50 and p99 of single calls, in milliseconds.
func BenchmarkPolicyFastPath(b *testing.B) {
	var src strings.Builder
	src.WriteString("default: deny\nrules:\n")
	for k := 0; k < 49; k++ {
		fmt.Fprintf(&src, "  - name: r%d\n    when: 'server.name == \"s%d\" && tool.startsWith(\"t%d_\") && has(args.path) && args.path.startsWith(\"/etc\")'\n    action: deny\n", k, k, k)
	}
	src.WriteString("  - name: fs-writes\n    when: server.command.startsWith(\"node fs.js\") && effect != \"destructive\" && args.path.startsWith(\"/srv/\")\n    action: allow\n")
	f := filepath.Join(b.TempDir(), "policy.yaml")
	if err := os.WriteFile(f, []byte(src.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	p, err := engine.Load("", f)
	if err != nil {
		b.Fatal(err)
	}
	r := fsRoute(`{"name":"write_file","description":"Write a file.","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true}}`)
	args := json.RawMessage(`{"path":"/srv/notes/today.md","content":"hello from the agent"}`)
	lat := make([]time.Duration, 0, 1<<16)
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		d := p.Decide(r.PolicyCall(args, ""))
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(t0))
		}
		if d.Action != policy.Allow || d.Rule != "fs-writes" {
			b.Fatal(d)
		}
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e6, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e6, "p99-ms")
	}
}
