package mcpx

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK re-encodes what it decoded, which drops the fields its types do
// not model (a tool's "execution", say) and turns numbers into float64.
// A server that answers with JSON it did not make — the recording proxy
// passing a downstream's answers on, the mock serving a recording's —
// returns the types below from a receiving middleware instead: they
// encode the exact JSON, with only the fields the SDK adds on the serving
// side (_meta entries, resultType) merged in.

// RawToolList is a tools/list result whose tools are encoded from the
// exact JSON a server sent (or a recording kept), by name; a tool without
// one is encoded from its typed definition.
type RawToolList struct {
	*mcp.ListToolsResult
	Raw map[string]json.RawMessage
}

// MarshalJSON implements json.Marshaler.
func (l *RawToolList) MarshalJSON() ([]byte, error) {
	tools := make([]json.RawMessage, len(l.Tools))
	for k, t := range l.Tools {
		if raw, ok := l.Raw[t.Name]; ok {
			tools[k] = raw
			continue
		}
		b, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		tools[k] = b
	}
	return withMembers(l.ListToolsResult, map[string]any{"tools": tools})
}

// RawCallResult is a tools/call result encoded from the exact JSON a
// server sent (or a recording kept), plus what the SDK on the serving
// side added to the envelope (resultType, _meta entries).
type RawCallResult struct {
	*mcp.CallToolResult
	Raw json.RawMessage
}

// MarshalJSON implements json.Marshaler.
func (c *RawCallResult) MarshalJSON() ([]byte, error) {
	// What the proxy's side may have added is in the envelope, not in the
	// content: encode the result without its content to find out.
	envelope := *c.CallToolResult
	envelope.Content, envelope.StructuredContent = nil, nil
	typed, err := json.Marshal(&envelope)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(typed, []byte(`"resultType"`)) && !bytes.Contains(typed, []byte(`"_meta"`)) {
		return c.Raw, nil // nothing added on the proxy's side
	}
	var down map[string]json.RawMessage
	if err := json.Unmarshal(c.Raw, &down); err != nil {
		return json.Marshal(c.CallToolResult)
	}
	var ours map[string]json.RawMessage
	if err := json.Unmarshal(typed, &ours); err != nil {
		return nil, err
	}
	if rt, ok := ours["resultType"]; ok {
		down["resultType"] = rt
	}
	if meta, ok := ours["_meta"]; ok {
		merged, err := mergeObjects(down["_meta"], meta)
		if err != nil {
			return nil, err
		}
		down["_meta"] = merged
	}
	return json.Marshal(down)
}

// withMembers encodes v as an object with some members replaced.
func withMembers(v any, members map[string]any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range members {
		m[k] = v
	}
	return json.Marshal(m)
}

// mergeObjects returns base with the members of extra it lacks added.
func mergeObjects(base, extra json.RawMessage) (json.RawMessage, error) {
	var b, e map[string]json.RawMessage
	if len(base) > 0 {
		if err := json.Unmarshal(base, &b); err != nil {
			return extra, nil
		}
	}
	if err := json.Unmarshal(extra, &e); err != nil {
		return nil, err
	}
	if b == nil {
		b = map[string]json.RawMessage{}
	}
	for k, v := range e {
		if _, ok := b[k]; !ok {
			b[k] = v
		}
	}
	return json.Marshal(b)
}
