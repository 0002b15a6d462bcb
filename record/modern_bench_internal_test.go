package record

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkModernResult: encoding the answer to a 2026-07-28 agent's call
// (the echo server's result) as the SDK path does.
func BenchmarkModernResult(b *testing.B) {
	p := &Proxy{impl: &mcp.Implementation{Name: "reelier", Title: "Reelier recording proxy", Version: "v1"}}
	raw := json.RawMessage(`{"content":[{"type":"text","text":"a: hello"}]}`)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a: hello"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.modernResult(res, raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkModernCallMeta: checking the _meta of a 2026-07-28 agent's
// call as the go-sdk client sends it.
func BenchmarkModernCallMeta(b *testing.B) {
	p := &Proxy{}
	meta := []byte(`{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"abbench","version":"v1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, ok := p.checkModernMeta("2026-07-28", meta); !ok {
			b.Fatal("refused")
		}
	}
}

// BenchmarkModernPlain: modernResult's answer without decoding.
func BenchmarkModernPlain(b *testing.B) {
	p := &Proxy{impl: &mcp.Implementation{Name: "reelier", Title: "Reelier recording proxy", Version: "v1"}}
	raw := json.RawMessage(`{"content":[{"type":"text","text":"a: hello"}]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := p.modernPlain(raw); !ok {
			b.Fatal("not plain")
		}
	}
}

// TestModernPlain: modernPlain writes what modernResult writes.
func TestModernPlain(t *testing.T) {
	p := &Proxy{impl: &mcp.Implementation{Name: "reelier", Title: "Reelier <proxy> & co", Version: "v1"}}
	for _, tc := range []struct {
		raw   string
		plain bool
	}{
		{`{"content":[{"type":"text","text":"a: hello"}]}`, true},
		{`{}`, true},
		{`{"isError":true,"content":[{"type":"text","text":"<b>&amp;</b> \u2028 ` + "\u2028\u2029" + `"}]}`, true},
		{` { "content" : [ { "type" : "text" , "text" : "x y" } ] , "structuredContent" : { "n" : 1.50 , "e" : 1e3 } } `, true},
		{`{"content":[],"zeta":1,"alpha":{"b":2,"a":1},"Mid":null}`, true},
		{`{"content":[],"_meta":{"x":1}}`, false},
		{`{"content":[],"resultType":"complete"}`, false},
		{`{"content":[],"content":[]}`, false},
		{`{"cont\u0065nt":[]}`, false},
		{`{"content":[],"a<b":1}`, false},
	} {
		var res mcp.CallToolResult
		if err := res.UnmarshalJSON([]byte(tc.raw)); err != nil && tc.plain {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		want, err := p.modernResult(&res, json.RawMessage(tc.raw))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := p.modernPlain([]byte(tc.raw))
		if ok != tc.plain {
			t.Errorf("modernPlain(%s): ok %v, want %v", tc.raw, ok, tc.plain)
			continue
		}
		if ok && string(got) != string(want) {
			t.Errorf("modernPlain(%s):\n got %s\nwant %s", tc.raw, got, want)
		}
	}
}
