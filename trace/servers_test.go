package trace_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/trace"
)

// TestMetaServers: the writer keeps the servers (their commands redacted
// once more, as wrapped is) and the reader gives them back.
func TestMetaServers(t *testing.T) {
	dir := t.TempDir()
	servers := []trace.Server{
		{Name: "memory", Command: "npx -y @modelcontextprotocol/server-memory", Tools: []string{"create_entities", "search_nodes"}},
		{Name: "gh", Command: "gh-mcp --token " + ghToken, Tools: []string{}},
	}
	w, err := trace.Create(trace.WriterOptions{Dir: dir, Name: "s", Wrapped: []string{servers[0].Command, servers[1].Command},
		Servers: servers, Redactor: redact.NewRedactor(nil, nil), Now: fixedClock()})
	must(t, err)
	must(t, w.Close())
	raw, err := os.ReadFile(w.Path())
	must(t, err)
	if strings.Contains(string(raw), ghToken) {
		t.Fatalf("the token reached the trace: %s", raw)
	}
	want := `"servers":[{"name":"memory","command":"npx -y @modelcontextprotocol/server-memory","tools":["create_entities","search_nodes"]},{"name":"gh","command":"gh-mcp --token «redacted»","tools":[]}]}`
	if !strings.Contains(string(raw), want) {
		t.Errorf("meta line %s\nwant it to hold %s", raw, want)
	}
	if servers[1].Command != "gh-mcp --token "+ghToken {
		t.Error("Create changed the caller's servers")
	}
	tr, err := trace.Load(w.Path())
	must(t, err)
	got := tr.Meta.Servers
	if len(got) != 2 || got[0].Name != "memory" || got[0].Tools[1] != "search_nodes" || got[1].Command != "gh-mcp --token «redacted»" || got[1].Tools == nil {
		t.Errorf("read back %+v", got)
	}

	// Without servers the field is absent, as in older traces.
	w, err = trace.Create(trace.WriterOptions{Dir: dir, Name: "none", Wrapped: []string{"x"}})
	must(t, err)
	must(t, w.Close())
	raw, err = os.ReadFile(w.Path())
	must(t, err)
	if strings.Contains(string(raw), "servers") {
		t.Errorf("an empty servers field: %s", raw)
	}
}

func TestMetaServersRejected(t *testing.T) {
	for _, servers := range []string{`"x"`, `[{"name": 3}]`, `[{"name":"a","command":"b","tools":"c"}]`} {
		src := `{"t":"meta","seq":0,"name":"n","startedAt":"2026-07-18T14:02:00.000Z","wrapped":[],"servers":` + servers + "}\n"
		_, err := trace.Read(strings.NewReader(src))
		var le *trace.LineError
		if !errors.As(err, &le) || le.Line != 1 || !strings.HasPrefix(le.Field, "servers") {
			t.Errorf("servers %s: %v, want a *LineError about servers on line 1", servers, err)
		}
	}
}
