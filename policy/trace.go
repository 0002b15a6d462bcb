package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/reelier/reelier/trace"
)

// Verdict is what a policy decides for one call of a recording.
type Verdict struct {
	I        int    // the call index
	Line     int    // the trace line of the call
	Tool     string // the tool as recorded
	Server   string // the server that served it, when the trace says
	Decision Decision
}

// TestTrace reads a recording and says what p would decide for each of
// its calls, in order: each call seen as the live proxy would have seen
// it — its server (from the trace's servers), its arguments, the
// annotations the server declared (toolDefs, else toolAnnotations) and
// the tool's live effect (LiveEffect). A line that is not a trace record
// is an error naming it.
func TestTrace(p *Policy, name string, r io.Reader) ([]Verdict, error) {
	tr := trace.NewReader(r)
	servers := map[string]Server{}
	anns := map[string]map[string]any{}
	var out []Verdict
	for {
		rec, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		switch rec := rec.(type) {
		case *trace.Meta:
			for tool, a := range rec.ToolAnnotations {
				m := map[string]any{}
				if a.ReadOnlyHint != nil {
					m["readOnlyHint"] = *a.ReadOnlyHint
				}
				if a.DestructiveHint != nil {
					m["destructiveHint"] = *a.DestructiveHint
				}
				if a.IdempotentHint != nil {
					m["idempotentHint"] = *a.IdempotentHint
				}
				anns[tool] = m
			}
			for _, s := range rec.Servers {
				srv := Server{Name: s.Name}
				if h, ok := urlHost(s.Command); ok {
					srv.Host = h
				} else {
					srv.Command = s.Command
				}
				for _, t := range s.Tools {
					servers[t] = srv
				}
				for _, def := range s.ToolDefs {
					var d struct {
						Name        string         `json:"name"`
						Annotations map[string]any `json:"annotations"`
					}
					if json.Unmarshal(def, &d) == nil && d.Name != "" && d.Annotations != nil {
						anns[d.Name] = d.Annotations
					}
				}
			}
		case *trace.Call:
			c := Call{Tool: rec.Tool, Server: servers[rec.Tool], Annotations: anns[rec.Tool]}
			if len(rec.Args) > 0 {
				var m map[string]any
				if json.Unmarshal(rec.Args, &m) == nil {
					c.Args = m
				}
			}
			c.Effect = string(LiveEffect(c.Tool, c.Annotations))
			out = append(out, Verdict{I: rec.I, Line: tr.Line(), Tool: rec.Tool, Server: c.Server.Name, Decision: p.Decide(c)})
		}
	}
}

// urlHost is the host of a server written as a URL.
func urlHost(s string) (string, bool) {
	l := strings.ToLower(strings.TrimSpace(s))
	if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") {
		return "", false
	}
	rest := strings.TrimSpace(s)[strings.Index(l, "//")+2:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = rest[i+1:]
	}
	if strings.HasPrefix(rest, "[") {
		if i := strings.Index(rest, "]"); i > 0 {
			return rest[1:i], true
		}
	}
	if i := strings.LastIndex(rest, ":"); i >= 0 {
		rest = rest[:i]
	}
	return rest, true
}
