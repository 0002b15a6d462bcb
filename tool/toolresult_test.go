package tool_test

import (
	"errors"
	"testing"

	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
)

func TestToolResultObservation(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		status int
		text   string
		json   string // what json paths read; "" when it is not JSON
	}{
		{"text that is JSON", `{"content":[{"type":"text","text":"{\"a\":1}"}]}`, 200, `{"a":1}`, `{"a":1}`},
		{"structured content wins for json paths", `{"content":[{"type":"text","text":"{\"a\":1}"}],"structuredContent":{"b":2}}`, 200, `{"a":1}`, `{"b":2}`},
		{"structured null is absent", `{"content":[{"type":"text","text":"[1]"}],"structuredContent":null}`, 200, `[1]`, `[1]`},
		{"plain text has no json", `{"content":[{"type":"text","text":"[FILE] a.txt"}]}`, 200, "[FILE] a.txt", ""},
		{"error keeps its text", `{"content":[{"type":"text","text":"ENOENT: no such file"}],"isError":true}`, 500, "ENOENT: no such file", ""},
		{"image described, not inlined", `{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}`, 200, "[image image/png, 4 bytes of base64]", ""},
		{"embedded resource described", `{"content":[{"type":"resource","resource":{"uri":"file:///x","mimeType":"text/plain","text":"hello"}}]}`, 200, "[resource file:///x (text/plain), 5 characters of text]", ""},
		{"resource link described", `{"content":[{"type":"resource_link","uri":"file:///y","name":"y"}]}`, 200, "[resource link file:///y y]", ""},
		{"unknown block type", `{"content":[{"type":"hologram"}]}`, 200, "[hologram block]", ""},
		{"json reads the text blocks, not the descriptions", `{"content":[{"type":"text","text":"{\"a\":1}"},{"type":"image","data":"AAAA","mimeType":"image/png"}]}`, 200, "{\"a\":1}\n[image image/png, 4 bytes of base64]", `{"a":1}`},
		{"an image written the way Anthropic's API writes it", `{"content":[{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"AAAAAA=="}}]}`, 200, "[image image/gif, 8 bytes of base64]", ""},
		{"blocks joined by line breaks", `{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`, 200, "a\nb", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs, err := tool.ObserveToolResult([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if obs.Status != tt.status || obs.Body != tt.text {
				t.Errorf("status %d body %q; want %d %q", obs.Status, obs.Body, tt.status, tt.text)
			}
			v, err := obs.JSON()
			switch {
			case tt.json == "" && err == nil:
				t.Errorf("json paths read %s; want no JSON", jsondata.String(v))
			case tt.json != "" && (err != nil || jsondata.String(v) != tt.json):
				t.Errorf("json paths read %v (%v); want %s", v, err, tt.json)
			}
		})
	}
}

func TestParseToolResultRejects(t *testing.T) {
	for _, body := range []string{``, `[]`, `"x"`, `{}`, `{"content":null}`, `{"content":{}}`, `{"content":[1]}`, `{"content":[`, `{"result":1}`} {
		if _, err := tool.ParseToolResult([]byte(body)); !errors.Is(err, tool.ErrNotToolResult) {
			t.Errorf("ParseToolResult(%q) = %v; want ErrNotToolResult", body, err)
		}
	}
}

func FuzzParseToolResult(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":[1,2]}}`))
	f.Add([]byte(`{"content":[{"type":"image","data":"AA=="}],"isError":true}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := tool.ParseToolResult(body)
		if err != nil {
			return
		}
		obs := r.Observation()
		_, _ = obs.JSON()
		if (obs.Status == 500) != r.IsError {
			t.Fatalf("status %d for isError %v", obs.Status, r.IsError)
		}
	})
}
