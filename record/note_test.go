package record_test

import (
	"os"
	"strings"
	"testing"

	"github.com/reelier/reelier/testkit/mcptest"
	"github.com/reelier/reelier/trace"
)

// TestNoteRedacted: a note becomes a step's title and intent in a compiled
// skill, so the trace keeps it redacted like a call's arguments — a
// credential shape, a header line, a password in JSON pasted into the
// prose — while the agent's call is answered as usual.
func TestNoteRedacted(t *testing.T) {
	password := "Hunter2-" + "note"
	tests := []struct{ text, want string }{
		{"read it back", "read it back"},
		{"use " + mcptest.Secret + " for it", "use «redacted» for it"},
		{"send it with\nAuthorization: Bearer " + mcptest.Secret, "send it with\nAuthorization: «redacted»"},
		{`sign in with {"user":"ann","password":"` + password + `"}`, `sign in with {"user":"ann","password":"«redacted»"}`},
	}
	f := start(t, "a")
	path := f.startRecording(t, "notes")
	for _, tt := range tests {
		if text, isErr := f.call(t, "reelier_note", map[string]any{"text": tt.text}); text != "Noted." || isErr {
			t.Fatalf("note %q: %q (isError %v)", tt.text, text, isErr)
		}
	}
	f.call(t, "reelier_stop_recording", map[string]any{})
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, rec := range tr.Records {
		if n, ok := rec.(*trace.Note); ok {
			notes = append(notes, n.Text)
		}
	}
	if len(notes) != len(tests) {
		t.Fatalf("%d notes in the trace, want %d", len(notes), len(tests))
	}
	for i, tt := range tests {
		if notes[i] != tt.want {
			t.Errorf("note %d kept as %q, want %q", i, notes[i], tt.want)
		}
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), mcptest.Secret) || strings.Contains(string(raw), password) {
		t.Errorf("a secret reached the trace:\n%s", raw)
	}
}
