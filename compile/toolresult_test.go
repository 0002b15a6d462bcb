package compile

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/reelier/reelier/tool"
)

var toolResultCases = []string{
	`{"content":[{"type":"text","text":"hi"}]}`,
	` {"content":[{"type":"text","text":"{\"a\":1,\"b\":\"\\u00e9\"}"},{"text":"x","type":"text"}],"structuredContent":{"a":1},"isError":false} `,
	`{"content":[],"isError":true}`, `{"content":[{}]}`, `{"content":[{"type":"text"}]}`,
	`{"content":[{"type":"text","text":"a","text":"b"}],"content":[{"type":"text","text":"c"}]}`,
	`{"structuredContent":null,"content":[{"type":"text","text":"x"}]}`,
	`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}`,
	`{"content":[{"type":"text","text":5}]}`, `{"content":[1]}`, `{"content":{}}`, `{"con\u0074ent":[]}`, `[]`, `"x"`,
	`{"content":[{"type":"text","text":"\ud800 lone"}]}`, "{\"content\":[{\"type\":\"text\",\"text\":\"bad \xff utf8\"}]}",
	`{"content":[{"typ\u0065":"text","text":"x"}]}`, `{"isError":"true","content":[]}`,
}

// TestQuickToolResult checks quickToolResult against the runtime's
// reader wherever it reads a body.
func TestQuickToolResult(t *testing.T) {
	read := 0
	for _, body := range toolResultCases {
		if checkQuickToolResult(t, []byte(body)) {
			read++
		}
	}
	if read < 8 {
		t.Errorf("quickToolResult read only %d of the cases", read)
	}
}

func checkQuickToolResult(t *testing.T, body []byte) bool {
	t.Helper()
	if !json.Valid(body) {
		return false
	}
	got, ok := quickToolResult(body)
	if !ok {
		return false
	}
	want, err := tool.ParseValidToolResult(body)
	if err != nil {
		t.Fatalf("%s: quickToolResult read a body the runtime rejects (%v)", body, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\nquick   %#v\nruntime %#v", body, got, want)
	}
	return true
}

func FuzzQuickToolResult(f *testing.F) {
	for _, body := range toolResultCases {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkQuickToolResult(t, body) })
}
