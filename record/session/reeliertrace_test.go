package session_test

import (
	"strings"
	"testing"

	"github.com/reelier/reelier/record/session"
)

// TestReelierTrace: a file that opens with a Reelier trace's meta record
// is told apart from an agent's transcript, whatever follows it.
func TestReelierTrace(t *testing.T) {
	meta := `{"t":"meta","seq":0,"name":"n","startedAt":"s","wrapped":["crm-mcp"]}`
	call := `{"t":"call","seq":1,"i":0,"ts":"s","tool":"list_orders","args":{}}`
	claude := `{"type":"user","sessionId":"abc","message":{"role":"user","content":"hi"}}`
	tests := []struct {
		name, src string
		want      bool
	}{
		{"a trace", meta + "\n" + call + "\n", true},
		{"blank lines and CRLF first", "\r\n\n" + meta + "\r\n", true},
		{"only the meta record", meta, true},
		{"a transcript", claude + "\n", false},
		{"meta later", claude + "\n" + meta + "\n", false},
		{"a trace's call first", call + "\n" + meta + "\n", false},
		{"a typed line with a t member", `{"type":"summary","t":"meta"}` + "\n", false},
		{"not JSON", "nope\n" + meta + "\n", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := session.Read(strings.NewReader(tt.src), session.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if s.ReelierTrace != tt.want {
				t.Errorf("ReelierTrace = %v, want %v", s.ReelierTrace, tt.want)
			}
		})
	}
}
