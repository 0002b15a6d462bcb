package mock

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The kinds of Fault (the same words as reelier run --fail).
const (
	FaultError   = "error"
	FaultTimeout = "timeout"
	FaultSchema  = "schema"
)

// Fault is a failure the mock injects on purpose (reelier mock --fail
// STEP=KIND), so a replay, a heal ladder or a CI job can meet a failure
// without an outage. Call counts a session's tools/call requests from 1
// (a skill's step N is its Nth call); Kind is FaultError (that call gets
// an error result), FaultTimeout (that call is never answered: the
// client's time limit passes) or FaultSchema (tools/list serves the tool
// of the Call-th recorded call with a changed input schema, which a
// replay's drift check reports).
type Fault struct {
	Call int
	Kind string
}

// InjectedMeta is the _meta key of an injected error result.
const InjectedMeta = "reelier/mock"

// CheckFault says whether the book has the recorded call a fault names:
// nil, or an error naming the traces' call count.
func (b *Book) CheckFault(f *Fault) error {
	if f.Call <= len(b.calls) {
		return nil
	}
	return fmt.Errorf("--fail %d=%s: the recordings have %d call(s), so there is no call %d", f.Call, f.Kind, len(b.calls), f.Call)
}

// note is what an injected failure says.
func (f *Fault) note() string {
	return fmt.Sprintf("injected by reelier mock --fail %d=%s: not a real failure", f.Call, f.Kind)
}

// inject answers the call numbered n of a session when the fault names
// it: an error result, or (timeout) nothing until ctx ends. ok is false
// when the call is answered as usual.
func (f *Fault) inject(ctx context.Context, n int) (*mcp.CallToolResult, bool) {
	if f == nil || f.Call != n || f.Kind == FaultSchema {
		return nil, false
	}
	if f.Kind == FaultTimeout {
		<-ctx.Done()
		return errorResult("reelier mock: no answer (" + f.note() + ")"), true
	}
	res := errorResult("the tool failed (" + f.note() + ")")
	res.Meta = mcp.Meta{InjectedMeta: map[string]any{"injected": f.Kind, "call": f.Call}}
	return res, true
}

// schemaChanged returns def with a required string property
// "reelierInjected" added to its input schema: a change every drift check
// sees.
func schemaChanged(def json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(def, &m) != nil {
		return def
	}
	schema := map[string]any{}
	if raw, ok := m["inputSchema"]; ok {
		json.Unmarshal(raw, &schema)
	}
	if schema == nil {
		schema = map[string]any{}
	}
	schema["type"] = "object"
	props, _ := schema["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	props["reelierInjected"] = map[string]any{"type": "string", "description": "added by reelier mock --fail …=schema"}
	schema["properties"] = props
	req, _ := schema["required"].([]any)
	schema["required"] = append(req, "reelierInjected")
	raw, err := json.Marshal(schema)
	if err != nil {
		return def
	}
	m["inputSchema"] = raw
	out, err := json.Marshal(m)
	if err != nil {
		return def
	}
	return out
}
