package mock

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestSchemaChanged: the schema fault adds a required string field to the
// tool's input schema, whatever the schema was, and keeps the rest.
func TestSchemaChanged(t *testing.T) {
	for _, tc := range []struct{ name, def string }{
		{"with properties", `{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}}`},
		{"no schema", `{"name":"add"}`},
		{"null schema", `{"name":"add","inputSchema":null}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got struct {
				Name        string `json:"name"`
				InputSchema struct {
					Type       string                     `json:"type"`
					Properties map[string]json.RawMessage `json:"properties"`
					Required   []string                   `json:"required"`
				} `json:"inputSchema"`
			}
			if err := json.Unmarshal(schemaChanged(json.RawMessage(tc.def)), &got); err != nil {
				t.Fatal(err)
			}
			s := got.InputSchema
			if got.Name != "add" || s.Type != "object" || s.Properties["reelierInjected"] == nil || s.Required[len(s.Required)-1] != "reelierInjected" {
				t.Fatalf("%+v", got)
			}
			if strings.Contains(tc.def, `"a"`) && (s.Properties["a"] == nil || s.Required[0] != "a") {
				t.Errorf("the recorded field a was lost: %+v", s)
			}
		})
	}
}

// TestFaultInject: only the named call is failed; error answers at once
// with the mark, timeout waits for the call's context.
func TestFaultInject(t *testing.T) {
	f := &Fault{Call: 2, Kind: FaultError}
	if _, ok := f.inject(context.Background(), 1); ok {
		t.Fatal("call 1 was failed")
	}
	res, ok := f.inject(context.Background(), 2)
	if !ok || !res.IsError || res.Meta[InjectedMeta] == nil {
		t.Fatalf("call 2: %+v %v", res, ok)
	}
	if _, ok := (&Fault{Call: 2, Kind: FaultSchema}).inject(context.Background(), 2); ok {
		t.Fatal("a schema fault failed a call")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, ok := (&Fault{Call: 1, Kind: FaultTimeout}).inject(ctx, 1); !ok || !res.IsError {
		t.Fatalf("timeout: %+v %v", res, ok)
	}
	var nilFault *Fault
	if _, ok := nilFault.inject(context.Background(), 1); ok {
		t.Fatal("no fault failed a call")
	}
}
